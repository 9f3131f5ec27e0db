// Real servers, not mocks: @modelcontextprotocol/server-everything over stdio and Streamable HTTP,
// and @modelcontextprotocol/server-filesystem.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer, type IncomingHttpHeaders, request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EVERYTHING, entry, FILESYSTEM, managed, stdio, text } from './helpers.js'

const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

describe('server-everything over stdio', () => {
  it('lists, names and calls its tools; the environment is an allowlist plus what the config names', async () => {
    const s = managed(
      [stdio('everything', [EVERYTHING, 'stdio'], { env: { EXPLICIT_TOKEN: 'given-on-purpose' } })],
      {
        env: {
          PATH: process.env.PATH,
          HOME: '/home/someone',
          LC_ALL: 'C',
          GITHUB_TOKEN: 'ghp_secret',
          AWS_SECRET_ACCESS_KEY: 'aws-secret',
          OPENAI_API_KEY: 'sk-secret',
          FOO: 'bar',
          'BASH_FUNC_x%%': '() { echo pwned; }',
        },
      },
    )
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    s.manager.sync()
    const names = s.runtime.schemas().map((t) => t.name)
    expect(names).toContain('mcp__everything__echo')
    expect(names).toContain('mcp__everything__get-sum')
    expect(names).toEqual([...names].sort())
    const echo = await s.runtime.execute({
      callId: 'e1',
      name: 'mcp__everything__echo',
      arguments: { message: 'hi' },
    })
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: hi' }])
    const env = await s.runtime.execute({ callId: 'e2', name: 'mcp__everything__get-env', arguments: {} })
    const seen = JSON.parse(text(env)) as Record<string, string>
    expect(Object.keys(seen).sort()).toEqual(['EXPLICIT_TOKEN', 'HOME', 'LC_ALL', 'PATH'])
    expect(seen.EXPLICIT_TOKEN).toBe('given-on-purpose')
  })

  it('maps an image, structured content and long-running progress', async () => {
    const s = managed([stdio('everything', [EVERYTHING, 'stdio'])])
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    s.manager.sync()
    const image = await s.runtime.execute({
      callId: 'i1',
      name: 'mcp__everything__get-tiny-image',
      arguments: {},
    })
    expect(image.content.map((b) => (b.type === 'image' ? b.mediaType : 'text'))).toEqual([
      'text',
      'image/png',
      'text',
    ])
    const structured = await s.runtime.execute({
      callId: 's1',
      name: 'mcp__everything__get-structured-content',
      arguments: { location: 'New York' },
    })
    expect(structured.isError).toBe(false)
    expect(structured.value).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    })
    const long = await s.runtime.execute({
      callId: 'l1',
      name: 'mcp__everything__trigger-long-running-operation',
      arguments: { duration: 0.3, steps: 3 },
    })
    expect(long.isError).toBe(false)
    const progress = s.runtime.session.events().filter((e) => e.type === 'mcp/progress')
    expect(progress.map((e) => e.progress)).toEqual([1, 2, 3])
  })
})

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

/** Start server-everything's Streamable HTTP transport; resolves once it listens. */
function startHttp(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let err = ''
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (d: string) => {
      err += d
      if (err.includes('listening on port')) resolve(child)
    })
    child.once('exit', (code) => reject(new Error(`server-everything exited ${code}: ${err}`)))
  })
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

/**
 * A recording reverse proxy on loopback in front of the real server: every request's headers are
 * kept, the bodies (SSE included) are piped both ways unchanged.
 */
async function recordingProxy(target: number): Promise<{ port: number; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = []
  const proxy = createHttpServer((req, res) => {
    seen.push(req.headers)
    const upstream = request(
      { host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections()
        proxy.close(() => resolve())
      }),
  )
  return { port: (proxy.address() as { port: number }).port, seen }
}

// Each test starts server-everything's HTTP server; on a loaded machine that alone takes seconds.
describe('server-everything over Streamable HTTP', { timeout: 90_000 }, () => {
  it('sends the configured headers and the bearer token from the named environment variable on every request', async () => {
    const port = await freePort()
    const server = await startHttp(port)
    cleanup.push(() => stop(server))
    const proxy = await recordingProxy(port)
    const s = managed(
      [
        entry('remote', {
          type: 'http',
          url: `http://127.0.0.1:${proxy.port}/mcp`,
          headers: { 'X-Team': 'tools' },
          bearerTokenEnv: 'REMOTE_TOKEN',
        }),
      ],
      { env: { REMOTE_TOKEN: 'tok-4711' } },
    )
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    s.manager.sync()
    const sum = await s.runtime.execute({
      callId: 'b1',
      name: 'mcp__remote__get-sum',
      arguments: { a: 1, b: 2 },
    })
    expect(text(sum)).toBe('The sum of 1 and 2 is 3.')
    // initialize, initialized, tools/list, tools/call at least; each one carried both headers.
    expect(proxy.seen.length).toBeGreaterThanOrEqual(4)
    expect(proxy.seen.map((h) => [h.authorization, h['x-team']])).toEqual(
      proxy.seen.map(() => ['Bearer tok-4711', 'tools']),
    )
  })

  it('connects, calls, and reconnects with backoff after the server restarts', async () => {
    const port = await freePort()
    let server = await startHttp(port)
    cleanup.push(() => stop(server))
    const s = managed(
      [
        entry('remote', {
          type: 'http',
          url: `http://127.0.0.1:${port}/mcp`,
          headers: { 'X-Team': 'tools' },
        }),
      ],
      { reconnect: { baseDelayMs: 100, maxDelayMs: 1_000, maxAttempts: 12 } },
    )
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    s.manager.sync()
    expect(s.manager.report()[0]?.status).toEqual({ state: 'connected' })
    const sum = await s.runtime.execute({
      callId: 'h1',
      name: 'mcp__remote__get-sum',
      arguments: { a: 2, b: 3 },
    })
    expect(text(sum)).toBe('The sum of 2 and 3 is 5.')

    await stop(server)
    const broken = await s.runtime.execute({
      callId: 'h2',
      name: 'mcp__remote__get-sum',
      arguments: { a: 1, b: 1 },
    })
    expect(broken.error?.code).toBe('TOOL_ERROR')
    expect(broken.error?.message).toMatch(
      /^The connection to the MCP server "remote" broke \(.*\); toolgate is reconnecting\. Call mcp__remote__get-sum again in a moment; if the call changed something, check its effect first\.$/,
    )
    const reconnecting = await s.waitFor((l) => l.type === 'mcp/server' && l.payload.state === 'reconnecting')
    expect(reconnecting.payload.server).toBe('remote')
    server = await startHttp(port)
    const settled = await s.waitFor(
      (l) =>
        l.type === 'mcp/server' &&
        (l.payload.state === 'connected' || l.payload.state === 'failed') &&
        s.logged.indexOf(l) > s.logged.indexOf(reconnecting),
    )
    expect(settled.payload.state).toBe('connected')
    const again = await s.runtime.execute({
      callId: 'h3',
      name: 'mcp__remote__get-sum',
      arguments: { a: 4, b: 5 },
    })
    expect(text(again)).toBe('The sum of 4 and 5 is 9.')
  })

  it('gives up after the capped attempts and reports the server failed', async () => {
    const port = await freePort()
    const s = managed([entry('gone', { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} })], {
      reconnect: { baseDelayMs: 10, maxDelayMs: 40, maxAttempts: 3 },
    })
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    const status = s.manager.report()[0]?.status
    expect(status?.state).toBe('failed')
    expect(status && 'error' in status ? status.error : '').toMatch(/^failed to start: /)
    expect(s.logged.filter((l) => l.type === 'mcp/server').map((l) => l.payload.state)).toEqual(['failed'])
  })
})

describe('server-filesystem', () => {
  it('reads a file in its allowed directory and refuses one outside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-fs-'))
    mkdirSync(join(dir, 'allowed'))
    writeFileSync(join(dir, 'allowed', 'a.txt'), 'hello from a file')
    writeFileSync(join(dir, 'secret.txt'), 'not for you')
    const s = managed([stdio('fs', [FILESYSTEM, join(dir, 'allowed')])])
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    s.manager.sync()
    expect(s.runtime.schemas().map((t) => t.name)).toContain('mcp__fs__read_text_file')
    const ok = await s.runtime.execute({
      callId: 'f1',
      name: 'mcp__fs__read_text_file',
      arguments: { path: join(dir, 'allowed', 'a.txt') },
    })
    expect(text(ok)).toBe('hello from a file')
    const denied = await s.runtime.execute({
      callId: 'f2',
      name: 'mcp__fs__read_text_file',
      arguments: { path: join(dir, 'secret.txt') },
    })
    expect(denied.error?.kind).toBe('tool_error')
    expect(denied.error?.message).toMatch(
      /^The MCP tool "read_text_file" of the server "fs" reported an error: .*denied/i,
    )
  })
})
