// Shared by the tests that spawn the REAL built binary: one build per test run (a lock directory
// serializes `tsc -b` across test files running in parallel; an up-to-date build is a quick check),
// spawning with a clean environment, and a scripted OpenAI-compatible SSE server per test (so tests
// can run concurrently without sharing request state).
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'

export const REPO = resolve(import.meta.dirname, '../../..')
export const BIN = join(REPO, 'packages/cli/dist/bin.js')
/** A clean environment: no keys, no endpoint, no colour forcing. */
export const ENV: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  LANG: 'C.UTF-8',
}

export interface Ran {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface Built {
  /** `tsc -b`'s exit code: 0 when every package compiled. */
  readonly code: number | null
  /** Its output lines (errors start with the file's path from the repository root). */
  readonly lines: readonly string[]
}

/**
 * Build every package (`tsc -b packages/cli`: the CLI references all of them) once per test run:
 * a lock directory serializes the test files that need the build, and `npm test` builds before
 * vitest starts, so here the build is usually an up-to-date check. `tsc -b` type errors in a
 * package still being written do not stop the emit; each caller decides which errors fail it.
 */
export async function build(): Promise<Built> {
  const lock = join(REPO, 'packages/cli/.build-lock')
  const end = Date.now() + 600_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > end) throw new Error(`timed out waiting for the build lock ${lock}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  try {
    const built = await new Promise<Built>((done) => {
      // tsc itself, not through npx: one process less for every file that needs the build
      const child = spawn(
        process.execPath,
        [join(REPO, 'node_modules/typescript/bin/tsc'), '-b', 'packages/cli'],
        {
          cwd: REPO,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let text = ''
      child.stdout.on('data', (c: Buffer) => {
        text += c.toString('utf8')
      })
      child.stderr.on('data', (c: Buffer) => {
        text += c.toString('utf8')
      })
      child.on('close', (code) => done({ code, lines: text.split('\n') }))
    })
    if (!existsSync(BIN)) throw new Error(`the build did not produce ${BIN}:\n${built.lines.join('\n')}`)
    return built
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/** Build (see `build`); the CLI's own errors, which are what the binary tests cannot run with. */
export async function buildBinary(): Promise<string[]> {
  return (await build()).lines.filter((l) => l.startsWith('packages/cli/'))
}

export function run(args: string[], env: Record<string, string> = {}, cwd = REPO): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    collect(child, done)
  })
}

export function collect(child: ChildProcess, done: (r: Ran) => void) {
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString('utf8')
  })
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8')
  })
  child.on('close', (code, signal) => done({ code, signal, stdout, stderr }))
}

/** Poll a condition (bounded); never a fixed sleep standing in for an event. */
export async function until(check: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** One scripted reply: SSE data payloads, or 'hang' (headers, then nothing until the client leaves). */
export type Reply = readonly string[] | 'hang' | { readonly json: unknown }

export interface ScriptServer {
  /** OpenAI-style base URL (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string
  readonly origin: string
  readonly requests: {
    url: string
    body: { messages: { role: string; content?: unknown; tool_call_id?: string }[] }
    /** The body's bytes as received, and the request headers (wire comparisons). */
    raw: string
    headers: Record<string, string | string[] | undefined>
  }[]
  close(): Promise<void>
}

/** An OpenAI-compatible server on 127.0.0.1 answering request n with `replies[n]` (which may read the request). */
export async function scriptServer(
  replies: readonly ((n: number, body: ScriptServer['requests'][number]['body']) => Reply)[],
): Promise<ScriptServer> {
  const requests: ScriptServer['requests'] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8')
    })
    req.on('end', () => {
      const n = requests.length
      requests.push({ url: req.url ?? '', body: JSON.parse(body), raw: body, headers: { ...req.headers } })
      const reply = replies[n]?.(n, requests[n]!.body) ?? [text('unexpected request'), finish('stop')]
      if (typeof reply === 'object' && 'json' in reply) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(reply.json))
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if (reply === 'hang') return // keep the stream open until the client goes away
      for (const c of reply) res.write(`data: ${c}\n\n`)
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    baseUrl: `${origin}/v1`,
    origin,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

const chunk = (delta: object, finishReason: string | null = null) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })
export const text = (t: string) => chunk({ role: 'assistant', content: t })
export const call = (id: string, name: string, args: object) =>
  chunk({
    tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  })
export const finish = (reason: string) => chunk({}, reason)
/** The usage chunk a server sends last when asked for `stream_options.include_usage`. */
export const usage = (prompt: number, completion: number) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  })

/** `toolgate run` against a local OpenAI-compatible server, in `root`. */
export function localRun(baseUrl: string, root: string): string[] {
  return ['run', '--provider', 'openai-chat', '--base-url', baseUrl, '--model', 'local', '--root', root]
}
