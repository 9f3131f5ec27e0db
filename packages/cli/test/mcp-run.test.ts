// `toolgate run` with an MCP server, end to end: the real binary, the fault-injection MCP server
// and a scripted OpenAI-compatible model on loopback. The MCP tools are deferred (small context
// window), announced in the per-turn note, loaded with tool_search, called, and when the server
// dies in the middle of the call the run says so on its own line and in the session log.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, expect, test } from 'vitest'
import { BIN, build } from './binary-helpers.js'
// @ts-expect-error: a plain .mjs fixture, also run standalone for the README sample
import { startScriptedServer } from './fixtures/scripted-openai-server.mjs'

const FAULT = fileURLToPath(new URL('../../mcp/test/servers/fault-server.mjs', import.meta.url))

beforeAll(async () => {
  const built = await build()
  expect(built.lines.filter((l) => l.startsWith('packages/'))).toEqual([])
}, 600_000)

/** Resolves once the JSONL log has a line matching `test` (fs.watch on the real file, no polling). */
function logLine(path: string, match: (event: Record<string, unknown>) => boolean): Promise<void> {
  const found = () =>
    existsSync(path) &&
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.endsWith('}'))
      .some((l) => match(JSON.parse(l)))
  return new Promise((resolveFound) => {
    const dir = resolve(path, '..')
    const watcher = watch(dir, () => {
      if (found()) {
        watcher.close()
        resolveFound()
      }
    })
    if (found()) {
      watcher.close()
      resolveFound()
    }
  })
}

/**
 * `toolgate run` against a scripted model, asynchronously: the model answers from this process,
 * so a blocking spawn would starve it.
 */
async function runAsync(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], {
    env: { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8')
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8')
  })
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)))
  return { code, stdout, stderr }
}

/** A workspace with the fault server configured and approved, a home, and a log path. */
function faultWorkspace(prefix: string) {
  const root = mkdtempSync(join(tmpdir(), prefix))
  const home = mkdtempSync(join(tmpdir(), 'toolgate-home-'))
  const log = join(mkdtempSync(join(tmpdir(), `${prefix}log-`)), 'session.jsonl')
  writeFileSync(
    join(root, '.mcp.json'),
    JSON.stringify({ mcpServers: { fault: { command: process.execPath, args: [FAULT] } } }),
  )
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TOOLGATE_HOME: home, LANG: 'C.UTF-8' }
  const approved = spawnSync(process.execPath, [BIN, 'mcp', 'approve', 'fault', '--root', root], { env })
  expect(approved.status).toBe(0)
  return { root, log, env }
}

test('deferred MCP tools are announced, loaded with tool_search and called; a server that dies mid-call is reported between turns', {
  timeout: 180_000,
}, async () => {
  const { root, log, env } = faultWorkspace('toolgate-mcp-run-')

  // The first answer waits until the server is connected, so the second request sees its tools.
  const connected = logLine(log, (e) => e.type === 'mcp/server' && e.state === 'connected')
  const model = await startScriptedServer(
    [
      { text: 'Looking around first.', calls: [{ name: 'ls', arguments: {} }] },
      { calls: [{ name: 'tool_search', arguments: { query: 'select:mcp__fault__crash' } }] },
      { calls: [{ name: 'mcp__fault__crash', arguments: {} }] },
      { text: 'The fault server crashed.' },
    ],
    { before: (n: number) => (n === 0 ? connected : undefined) },
  )
  const hold = model.requests
  try {
    const { code, stdout } = await runAsync(
      [
        '--provider',
        'openai-chat',
        '--base-url',
        model.baseUrl,
        '--model',
        'local',
        '--root',
        root,
        '--yes',
        // Small enough that the declarations pass 10% of it (MCP tools deferred), large enough
        // for the system prompt and the tools (context management keeps requests inside it).
        '--context-window',
        '20000',
        '--log',
        log,
        'crash the fault server',
      ],
      env,
    )
    expect(code).toBe(0)

    // Request 2: the MCP tools are not in tools[]; their names are in the note.
    const names = (n: number) =>
      (hold[n].tools ?? []).map((t: { function: { name: string } }) => t.function.name)
    expect(names(1).filter((n: string) => n.startsWith('mcp__'))).toEqual([])
    expect(names(1)).toContain('tool_search')
    const note = JSON.stringify(hold[1].messages)
    expect(note).toContain('These tools exist but are NOT loaded')
    expect(note).toContain('- mcp__fault__crash')
    // Request 3: the loaded tool is appended at the end of tools[]; the rest is unchanged.
    expect(names(2)).toEqual([...names(1), 'mcp__fault__crash'])
    // The crash: the call's result says the server stopped; the next turn prints the state line.
    const lines = stdout.split('\n')
    const crashCard = lines.findIndex((l) => l.startsWith('✗ ') && l.includes('crash'))
    const failedLine = lines.findIndex((l) => l.startsWith('mcp       fault: failed: the server stopped'))
    expect(crashCard).toBeGreaterThan(-1)
    expect(failedLine).toBeGreaterThan(crashCard)
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(events.filter((e) => e.type === 'mcp/server').map((e) => e.state)).toEqual(['connected', 'failed'])
    const result = events.find((e) => e.type === 'tool/result' && e.name === 'mcp__fault__crash')
    expect(result.error.code).toBe('TOOL_ERROR')
    expect(result.content[0].text).toMatch(/^The MCP server "fault" is not running \(the server stopped: /)
  } finally {
    await model.close()
  }
})

test('--tool-search native is refused on a wire without a native tool search', () => {
  const ran = spawnSync(
    process.execPath,
    [
      BIN,
      'run',
      '--provider',
      'openai-chat',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--model',
      'm',
      '--tool-search',
      'native',
      'task',
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() } },
  )
  expect(ran.status).toBe(2)
  expect(ran.stderr).toBe(
    'toolgate run: --tool-search native needs --provider anthropic (the openai-chat wire has no native tool search here); use --tool-search emulated\n',
  )
})

test('a cut MCP result is spilled into the workspace, named relative to it, and read can open it', {
  timeout: 180_000,
}, async () => {
  const { root, log, env } = faultWorkspace('toolgate-mcp-spill-')
  const connected = logLine(log, (e) => e.type === 'mcp/server' && e.state === 'connected')
  const spilled = '.toolgate/spill/mcp__fault__huge-1.txt'
  const model = await startScriptedServer(
    [
      { calls: [{ name: 'ls', arguments: {} }] },
      { calls: [{ name: 'mcp__fault__huge', arguments: { chars: 200_000 } }] },
      { calls: [{ name: 'read', arguments: { path: spilled, limit: 1 } }] },
      { text: 'Read the rest.' },
    ],
    { before: (n: number) => (n === 0 ? connected : undefined) },
  )
  try {
    const ran = await runAsync(
      ['--provider', 'openai-chat', '--base-url', model.baseUrl, '--model', 'local', '--root', root].concat([
        '--yes',
        '--no-code',
        '--context-window',
        '1000000',
        '--log',
        log,
        'read a huge result',
      ]),
      env,
    )
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' })
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const results = events.filter((e) => e.type === 'tool/result')
    const huge = results.find((e) => e.name === 'mcp__fault__huge')
    const notice = huge.content.at(-1).text
    expect(notice).toContain(`The full result is saved to ${spilled}; read it with the read tool`)
    expect(notice).not.toContain(tmpdir())
    expect(readFileSync(join(root, spilled), 'utf8')).toBe('a'.repeat(200_000))
    const read = results.find((e) => e.name === 'read')
    expect(read.isError).toBe(false)
    expect(read.content[0].text).toMatch(
      /^\.toolgate\/spill\/mcp__fault__huge-1\.txt: lines 1-1 of 1\n {5}1\ta{100}/,
    )
  } finally {
    await model.close()
  }
})
