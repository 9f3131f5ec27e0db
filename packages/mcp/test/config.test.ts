// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the configuration syntax under test
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRuntime } from '@toolgate/core'
import { afterEach, describe, expect, it } from 'vitest'
import { loadMcpConfig } from '../src/config/load.js'
import { fileTrustStore } from '../src/config/trust.js'
import { concurrencyLimit } from '../src/limit.js'
import { McpManager } from '../src/manager.js'
import { childEnvironment } from '../src/transport/env.js'
import { FAULT_SERVER } from './helpers.js'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-mcp-cfg-'))
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

describe('configuration files are hostile input', () => {
  it('lists every problem with file and field, fails closed per server, and never throws', () => {
    const root = workspace({
      '.mcp.json': JSON.stringify({
        mcpServers: {
          good: {
            command: 'node',
            args: ['${SERVER_JS}', '--mode=${MODE:-fast}'],
            env: { TOKEN: '${API_TOKEN}' },
          },
          bad: { command: 'node', args: 'server.js', env: { N: 1 }, cmd: 'typo', timeoutMs: -1 },
          missing: { command: '${NOT_SET}' },
          legacy: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
          web: {
            type: 'http',
            url: 'ftp://example.invalid',
            headers: { 'Bad Header': 'x' },
            bearerTokenEnv: 'NOPE',
          },
          twice: { command: 'a' },
        },
      }),
      '.toolgate/settings.json': JSON.stringify({ mcpServers: { twice: { command: 'b' } } }),
    })
    const { servers, fileProblems } = loadMcpConfig({
      root,
      userSettingsPath: null,
      env: { SERVER_JS: '/srv/s.js', API_TOKEN: 'tok' },
    })
    expect(fileProblems).toEqual([])
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]))
    expect(servers.map((s) => s.name)).toEqual(['bad', 'good', 'legacy', 'missing', 'twice', 'web'])
    expect(byName.good?.config).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['/srv/s.js', '--mode=fast'],
      env: { TOKEN: 'tok' },
    })
    const mcpJson = join(root, '.mcp.json')
    const problems = (n: string) =>
      byName[n]?.problems.map((p) => [p.file === mcpJson ? '.mcp.json' : 'settings', p.field, p.message])
    expect(byName.bad?.config).toBeUndefined()
    expect(problems('bad')).toEqual([
      [
        '.mcp.json',
        'mcpServers.bad.cmd',
        'unknown field for a stdio server (allowed: type, command, args, env, cwd, timeoutMs, startupTimeoutMs, maxOutputTokens, trustAnnotations, disabled)',
      ],
      ['.mcp.json', 'mcpServers.bad.timeoutMs', 'must be a whole number from 1 to 3600000'],
      ['.mcp.json', 'mcpServers.bad.args', 'must be an array of strings'],
      ['.mcp.json', 'mcpServers.bad.env.N', 'must be a string'],
    ])
    expect(problems('missing')).toEqual([
      ['.mcp.json', 'mcpServers.missing.command', 'uses ${NOT_SET}, which is not set'],
    ])
    expect(problems('legacy')).toEqual([
      [
        '.mcp.json',
        'mcpServers.legacy.type',
        'the legacy SSE transport is not supported; use the server\'s Streamable HTTP endpoint ("type": "http")',
      ],
    ])
    expect(problems('web')).toEqual([
      ['.mcp.json', 'mcpServers.web.url', 'must be an http: or https: URL'],
      ['.mcp.json', 'mcpServers.web.headers.Bad Header', 'is not a valid HTTP header name'],
      ['.mcp.json', 'mcpServers.web.bearerTokenEnv', 'names NOPE, which is not set'],
    ])
    expect(problems('twice')).toEqual([
      [
        'settings',
        'mcpServers.twice',
        `the server "twice" is also defined in ${mcpJson}; rename one of them`,
      ],
    ])
  })

  it('reports unreadable files as a whole and reads the rest', () => {
    const root = workspace({
      '.mcp.json': '{ "mcpServers": { oops',
      '.toolgate/settings.json': JSON.stringify({ mcpServers: { ok: { command: 'x' } }, other: 1 }),
    })
    const { servers, fileProblems } = loadMcpConfig({ root, userSettingsPath: null, env: {} })
    expect(fileProblems.map((p) => [p.field, p.message.replace(/\(.*\)/, '(…)')])).toEqual([
      ['(file)', 'is not valid JSON (…)'],
    ])
    expect(servers.map((s) => [s.name, s.problems.length])).toEqual([['ok', 0]])
    const big = workspace({ '.mcp.json': `{"mcpServers":{},"pad":"${'x'.repeat(1 << 20)}"}` })
    expect(loadMcpConfig({ root: big, userSettingsPath: null, env: {} }).fileProblems[0]?.message).toMatch(
      /^is \d+ bytes; configuration files larger than 1 MiB are not read$/,
    )
  })

  it('a manager over a broken configuration starts nothing for the broken servers and reports them', async () => {
    const root = workspace({ '.mcp.json': JSON.stringify({ mcpServers: { bad: { command: 5 } } }) })
    const home = mkdtempSync(join(tmpdir(), 'toolgate-home-'))
    const manager = McpManager.fromConfig({
      root,
      userSettingsPath: null,
      env: {},
      trust: fileTrustStore(join(home, 'a.json')),
    })
    cleanup.push(() => manager.dispose())
    await manager.start()
    expect(manager.report().map((r) => [r.name, r.status.state])).toEqual([['bad', 'invalid']])
  })
})

describe('project servers are untrusted until approved once', () => {
  it('does not start an unapproved project server; approval is remembered per path and config hash', async () => {
    const config = { mcpServers: { proj: { command: process.execPath, args: [FAULT_SERVER] } } }
    const root = workspace({ '.mcp.json': JSON.stringify(config) })
    const home = mkdtempSync(join(tmpdir(), 'toolgate-home-'))
    const trust = fileTrustStore(join(home, 'mcp-approvals.json'))
    const open = async () => {
      const runtime = createRuntime()
      const manager = McpManager.fromConfig({
        root,
        userSettingsPath: null,
        env: { PATH: process.env.PATH },
        trust,
      }).attach(runtime)
      cleanup.push(() => manager.dispose())
      await manager.start()
      manager.sync()
      return { runtime, manager }
    }
    const first = await open()
    expect(first.manager.report()[0]?.status).toEqual({ state: 'untrusted' })
    expect(first.manager.connection('proj')).toBeUndefined()
    expect(first.runtime.schemas()).toEqual([])

    const entry = loadMcpConfig({ root, userSettingsPath: null, env: {} }).servers[0]!
    trust.approve(root, entry)
    const second = await open()
    expect(second.manager.report()[0]?.status).toEqual({ state: 'connected' })
    expect(second.runtime.schemas().length).toBeGreaterThan(0)

    // Re-formatting keeps the approval; any change to the configuration needs a new one.
    writeFileSync(join(root, '.mcp.json'), JSON.stringify(config, null, 4))
    expect((await open()).manager.report()[0]?.status).toEqual({ state: 'connected' })
    writeFileSync(
      join(root, '.mcp.json'),
      JSON.stringify({
        mcpServers: { proj: { command: process.execPath, args: [FAULT_SERVER, '--stderr-noise'] } },
      }),
    )
    expect((await open()).manager.report()[0]?.status).toEqual({ state: 'untrusted' })
    // The same configuration in another workspace is another approval.
    const elsewhere = workspace({ '.mcp.json': JSON.stringify(config) })
    const other = loadMcpConfig({ root: elsewhere, userSettingsPath: null, env: {} }).servers[0]!
    expect(trust.isTrusted(elsewhere, other)).toBe(false)
    // The user's own settings are trusted without approval.
    expect(trust.isTrusted(root, { ...entry, source: 'user-settings' })).toBe(true)
  })
})

describe('the stdio environment', () => {
  it('passes an allowlist, never credential-looking names, plus what the config names', () => {
    expect(
      childEnvironment(
        {
          PATH: '/bin',
          HOME: '/h',
          LANG: 'C.UTF-8',
          LC_CTYPE: 'C',
          GITHUB_TOKEN: 't',
          NPM_TOKEN: 't',
          AWS_SECRET_ACCESS_KEY: 's',
          SSH_AUTH_SOCK: '/tmp/agent',
          NODE_OPTIONS: '--require /tmp/x.js',
          LD_PRELOAD: '/tmp/x.so',
          'BASH_FUNC_f%%': '() { :; }',
        },
        { GITHUB_TOKEN: 'explicit' },
      ),
    ).toEqual({ PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', LC_CTYPE: 'C', GITHUB_TOKEN: 'explicit' })
  })
})

describe('start concurrency', () => {
  it('never runs more than the limit at once and starts the rest in order', async () => {
    const limit = concurrencyLimit(3)
    const gates = Array.from({ length: 5 }, () => gate())
    const fourth = gate()
    let running = 0
    let peak = 0
    const started: number[] = []
    const all = gates.map((g, i) =>
      limit(async () => {
        started.push(i)
        if (i === 3) fourth.resolve()
        running++
        peak = Math.max(peak, running)
        await g.promise
        running--
      }),
    )
    await Promise.resolve()
    expect(started).toEqual([0, 1, 2])
    gates[1]!.resolve()
    await fourth.promise
    expect(started).toEqual([0, 1, 2, 3])
    for (const g of gates) g.resolve()
    await Promise.all(all)
    expect(started).toEqual([0, 1, 2, 3, 4])
    expect(peak).toBe(3)
  })
})

function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}
