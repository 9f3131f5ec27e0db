// What the REAL binary loads before it needs it (issue 15 §3). A loader hook
// (fixtures/record-modules.mjs) writes every module URL as it is loaded; the tests read that list
// after `--help`, and at the moment the first model request reaches a loopback server.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mcpConfigFiles } from '@toolgate/mcp/config-files'
import { beforeAll, describe, expect, test } from 'vitest'
import { mcpConfigured } from '../src/session/mcp-configured.js'
import {
  BIN,
  buildBinary,
  collect,
  ENV,
  finish,
  localRun,
  type Ran,
  scriptServer,
  text,
} from './binary-helpers.js'

const RECORDER = join(import.meta.dirname, 'fixtures', 'record-modules.mjs')

/**
 * Module groups, by where their files live (workspace packages resolve to packages/<name>).
 * `@toolgate/mcp` counts as loaded when its main entry is (its `config-files` entry is light).
 */
const HEAVY = {
  '@toolgate/mcp': '/packages/mcp/dist/index.js',
  'the MCP SDK': '/node_modules/@modelcontextprotocol/',
  'the TypeScript compiler': '/node_modules/typescript/',
  ajv: '/node_modules/ajv/',
  'tree-sitter': '/node_modules/web-tree-sitter/',
  QuickJS: 'quickjs',
} as const

function loaded(list: readonly string[]): string[] {
  return Object.entries(HEAVY)
    .filter(([, where]) => list.some((url) => url.includes(where)))
    .map(([name]) => name)
}

beforeAll(async () => {
  expect(await buildBinary()).toEqual([])
}, 600_000)

/** Run the binary with the recorder; `home` is TOOLGATE_HOME (no user settings unless a test writes them). */
function recorded(args: string[], home: string, cwd: string): { ran: Promise<Ran>; modules: () => string[] } {
  const out = join(home, `modules-${Math.random().toString(36).slice(2)}.log`)
  writeFileSync(out, '')
  const child = spawn(process.execPath, ['--import', RECORDER, BIN, ...args], {
    cwd,
    env: { ...ENV, TOOLGATE_HOME: home, TOOLGATE_MODULE_LOG: out },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return {
    ran: new Promise((done) => collect(child, done)),
    modules: () => readFileSync(out, 'utf8').split('\n').filter(Boolean),
  }
}

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))

describe.concurrent('start-up loads only what the command needs', () => {
  test('--help and --version load no package of the runtime, only the CLI surface', async () => {
    const home = scratch('toolgate-startup-home-')
    for (const args of [['--help'], ['--version'], ['run', '--help']]) {
      const r = recorded(args, home, home)
      expect((await r.ran).code).toBe(0)
      const modules = r.modules()
      expect(modules.some((url) => url.endsWith('/packages/cli/dist/main.js'))).toBe(true)
      expect(loaded(modules)).toEqual([])
      expect(modules.filter((url) => /\/packages\/(?!cli\/)|\/node_modules\//.test(url))).toEqual([])
    }
  }, 120_000)

  test('run without MCP servers: neither @toolgate/mcp nor the MCP SDK is ever loaded; with a .mcp.json both are', async () => {
    const home = scratch('toolgate-startup-home-')
    const plain = scratch('toolgate-startup-ws-')
    const withMcp = scratch('toolgate-startup-mcp-')
    // A server that is never approved (a project file): configured, so MCP must load, but nothing starts.
    writeFileSync(join(withMcp, '.mcp.json'), JSON.stringify({ mcpServers: { never: { command: 'false' } } }))
    const server = await scriptServer([
      () => [text('Hello.'), finish('stop')],
      () => [text('Hello.'), finish('stop')],
    ])
    try {
      const without = recorded([...localRun(server.baseUrl, plain), '--no-code', 'hi'], home, plain)
      const ranWithout = await without.ran
      expect(ranWithout.code).toBe(0)
      expect(ranWithout.stdout).toContain('Hello.')
      expect(loaded(without.modules()).filter((m) => m === '@toolgate/mcp' || m === 'the MCP SDK')).toEqual(
        [],
      )

      const configured = recorded([...localRun(server.baseUrl, withMcp), '--no-code', 'hi'], home, withMcp)
      const ranWith = await configured.ran
      expect(ranWith.code).toBe(0)
      expect(ranWith.stdout).toContain('mcp       never: not approved (project server)')
      expect(loaded(configured.modules())).toEqual(expect.arrayContaining(['@toolgate/mcp', 'the MCP SDK']))
    } finally {
      await server.close()
    }
  }, 300_000)

  // The early first request (README "Start-up"): it leaves the process before the session is
  // built, so none of what the session loads is loaded when it does (read from the module log up
  // to the `request-sent` line the recorder writes when the body is on the socket).
  // (Loaded early on purpose: @toolgate/core with ajv under the providers, the policy's rules text
  // with re2js for its globs, the context-window table of @toolgate/agent.)
  const EARLY_HEAVY = {
    // Its entry (the manager and the SDK behind it), not a light subpath such as its file list.
    '@toolgate/mcp': '/packages/mcp/dist/index.js',
    'the MCP SDK': HEAVY['the MCP SDK'],
    'the TypeScript compiler': HEAVY['the TypeScript compiler'],
    'tree-sitter': HEAVY['tree-sitter'],
    QuickJS: HEAVY.QuickJS,
    zod: '/node_modules/zod/',
    '@toolgate/tools': '/packages/tools/',
    '@toolgate/codemode': '/packages/codemode/',
    'the agent loop': '/packages/agent/dist/index.js',
    'the policy engine': '/packages/policy/dist/index.js',
    'the run view': '/packages/cli/dist/render/run-view.js',
  } as const

  test.for<[string, string[]]>([
    ['--no-code', ['--no-code']],
    ['(run_code offered)', []],
  ])(
    'run %s: its first model request leaves before the tools, zod, the parser, Code Mode or MCP are loaded',
    { timeout: 300_000 },
    async ([, extra]) => {
      const home = scratch('toolgate-startup-home-')
      const root = scratch('toolgate-startup-ws-')
      const server = await scriptServer([() => [text('Hello.'), finish('stop')]])
      try {
        const r = recorded([...localRun(server.baseUrl, root), ...extra, 'hi'], home, root)
        const ran = await r.ran
        expect(ran.code).toBe(0)
        expect(ran.stdout).toContain('Hello.')
        const modules = r.modules()
        const sent = modules.findIndex((line) => line.startsWith('request-sent '))
        expect(modules[sent]).toBe(`request-sent ${server.origin}/v1/chat/completions`)
        const before = modules.slice(0, sent)
        expect(before.some((url) => url.endsWith('/packages/providers/dist/index.js'))).toBe(true)
        expect(
          Object.entries(EARLY_HEAVY)
            .filter(([, where]) => before.some((url) => url.includes(where)))
            .map(([name]) => name),
        ).toEqual([])
        // ...and all of them are there by the end (the session was built after it).
        for (const where of ['/packages/tools/', '/node_modules/zod/', '/node_modules/web-tree-sitter/'])
          expect(modules.some((url) => url.includes(where))).toBe(true)
      } finally {
        await server.close()
      }
    },
  )
})

describe('mcpConfigured: the pre-check that keeps @toolgate/mcp unloaded', () => {
  const write = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, text)
  }

  test('the files it reads are those of the MCP loader, in its order', () => {
    expect(mcpConfigFiles('/w', { TOOLGATE_HOME: '/h' })).toEqual([
      { path: '/h/settings.json', source: 'user-settings' },
      { path: '/w/.mcp.json', source: 'project-mcp-json' },
      { path: '/w/.toolgate/settings.json', source: 'project-settings' },
    ])
  })

  test.for([
    ['absent', undefined, false],
    ['settings without mcpServers', '{"permissions":{"allow":["read"]}}', false],
    ['mcpServers, even empty', '{"mcpServers":{}}', true],
    ['not JSON (the loader reports it)', '{"mcpServers":', true],
    ['JSON that is not an object (the loader reports it)', '[1]', true],
  ] as const)('%s -> %s', ([, content, expected]) => {
    for (const index of [0, 1, 2]) {
      const home = scratch('toolgate-mcpcfg-home-')
      const root = scratch('toolgate-mcpcfg-ws-')
      const file = mcpConfigFiles(root, { TOOLGATE_HOME: home })[index]!.path
      if (content !== undefined) write(file, content)
      expect(mcpConfigured(root, { TOOLGATE_HOME: home })).toBe(expected)
    }
  })

  test('a directory where a file belongs counts as configured (the loader reports it)', () => {
    const home = scratch('toolgate-mcpcfg-home-')
    const root = scratch('toolgate-mcpcfg-ws-')
    mkdirSync(join(root, '.mcp.json'))
    expect(mcpConfigured(root, { TOOLGATE_HOME: home })).toBe(true)
  })
})
