// The early first request of `run` (README "Start-up"): the generated snapshot is what a real
// session sends; the request the early path builds is the one the session builds, byte for byte
// on the wire; and the adoption mechanism hands the loop that very stream, or aborts it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createModelClient,
  type ModelClient,
  type ModelRequest,
  type ModelStreamEvent,
} from '@toolgate/providers'
import { beforeAll, describe, expect, test } from 'vitest'
import { DeadlineError, withDeadline } from '../src/session/deadline.js'
import { startEarlyRequest } from '../src/session/early-request.js'
import { FIRST_REQUEST } from '../src/session/first-request.generated.js'
import { liveFirstRequestParts } from '../src/session/first-request-live.js'
import { renderFirstRequestModule } from '../src/session/first-request-render.js'
import { buildBinary, call, ENV, finish, localRun, run, scriptServer, text } from './binary-helpers.js'

describe('the generated snapshot', () => {
  test('is what a real session sends (run npm run build:first-request when this fails)', async () => {
    const live = { code: await liveFirstRequestParts(true), noCode: await liveFirstRequestParts(false) }
    expect(live).toEqual(FIRST_REQUEST)
    const file = readFileSync(new URL('../src/session/first-request.generated.ts', import.meta.url), 'utf8')
    expect(file).toBe(renderFirstRequestModule(live))
  }, 120_000)

  test('has the run_code declaration only with Code Mode', () => {
    expect(FIRST_REQUEST.code.tools.map((t) => t.name)).toContain('run_code')
    expect(FIRST_REQUEST.noCode.tools.map((t) => t.name)).not.toContain('run_code')
    expect(FIRST_REQUEST.code.codePrompt).toMatch(
      /^You can call tools from TypeScript with the run_code tool/,
    )
    expect(FIRST_REQUEST.noCode.codePrompt).toBe('')
  })
})

const REQUEST: ModelRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }
const EVENTS: ModelStreamEvent[] = [
  { type: 'text-delta', text: 'Hello.' },
  { type: 'finish', stopReason: 'done', rawStopReason: 'stop' },
]

/** A model that records each stream() and its signal, and gates its events on `release`. */
function gatedModel() {
  const streams: { request: ModelRequest; signal: AbortSignal | undefined }[] = []
  let release!: () => void
  const gate = new Promise<void>((r) => {
    release = r
  })
  const model: ModelClient = {
    provider: 'scripted',
    model: 'gated',
    async *stream(request, signal) {
      streams.push({ request, signal })
      await gate
      for (const event of EVENTS) {
        signal?.throwIfAborted()
        yield event
      }
    },
  }
  return { model, streams, release }
}

async function drain(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = []
  for await (const event of stream) out.push(event)
  return out
}

describe('startEarlyRequest', () => {
  test('the same request is adopted: one stream, started at once, its events in order', async () => {
    const { model, streams, release } = gatedModel()
    const firsts: string[] = []
    const early = startEarlyRequest(model, REQUEST, { onFirstStream: () => firsts.push('first') })
    // Started before anyone asked for it.
    await Promise.resolve()
    expect(streams).toHaveLength(1)
    const adopted = early.model.stream(JSON.parse(JSON.stringify(REQUEST)), new AbortController().signal)
    release()
    expect(await drain(adopted)).toEqual(EVENTS)
    expect(streams).toHaveLength(1)
    expect(early.outcome()).toBe('adopted')
    expect(firsts).toEqual(['first'])
    // Later requests go straight through.
    expect(await drain(early.model.stream(REQUEST))).toEqual(EVENTS)
    expect(streams).toHaveLength(2)
  })

  test('another request: the early one is aborted, the new one sent, the difference reported', async () => {
    const { model, streams, release } = gatedModel()
    const mismatches: string[] = []
    const early = startEarlyRequest(model, REQUEST, { onMismatch: (d) => mismatches.push(d) })
    const other: ModelRequest = { ...REQUEST, maxTokens: 5 }
    const stream = early.model.stream(other)
    release()
    expect(await drain(stream)).toEqual(EVENTS)
    expect(streams.map((s) => s.request)).toEqual([REQUEST, other])
    expect(streams[0]!.signal?.aborted).toBe(true)
    expect(early.outcome()).toBe('resent')
    expect(mismatches).toEqual(['the request options differ'])
  })

  test('discard aborts a request nobody adopted; after adoption it does nothing', async () => {
    const a = gatedModel()
    const early = startEarlyRequest(a.model, REQUEST)
    early.discard('the run ended')
    expect(a.streams[0]!.signal?.aborted).toBe(true)
    expect(String(a.streams[0]!.signal?.reason)).toBe(
      'Error: the early first request was not used: the run ended',
    )
    expect(early.outcome()).toBe('discarded')

    const b = gatedModel()
    const kept = startEarlyRequest(b.model, REQUEST)
    const stream = kept.model.stream(REQUEST)
    kept.discard('too late')
    b.release()
    expect(await drain(stream)).toEqual(EVENTS)
    expect(b.streams[0]!.signal?.aborted).toBe(false)
  })

  test("the loop's abort reaches the adopted request with its reason", async () => {
    const { model, streams, release } = gatedModel()
    const early = startEarlyRequest(model, REQUEST)
    const controller = new AbortController()
    const stream = early.model.stream(REQUEST, controller.signal)
    controller.abort(new Error('stop now'))
    release()
    await expect(drain(stream)).rejects.toThrow('stop now')
    expect(streams[0]!.signal?.reason).toEqual(new Error('stop now'))
  })

  test('a request that failed before adoption fails in the loop, as it would have', async () => {
    const failing: ModelClient = {
      provider: 'scripted',
      model: 'failing',
      // biome-ignore lint/correctness/useYield: it fails before its first event
      async *stream() {
        throw new Error('connection refused')
      },
    }
    const early = startEarlyRequest(failing, REQUEST)
    await early.onWire
    await expect(drain(early.model.stream(REQUEST))).rejects.toThrow('connection refused')
  })

  test('onWire: settles when the body is on the socket of a real request (fetch, loopback)', async () => {
    // Never answers: onWire must not wait for the reply.
    const server = createServer((req) => req.resume())
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    try {
      const client = createModelClient({
        provider: 'openai-chat',
        model: 'm',
        baseUrl: `http://127.0.0.1:${port}/v1`,
      })
      // A wait longer than any test: only the body being sent can settle it.
      const early = startEarlyRequest(client, REQUEST, { wireWaitMs: 600_000 })
      await early.onWire
      early.discard('test over')
      expect(early.outcome()).toBe('discarded')
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

describe('on the wire: the early start sends exactly what the eager start sends', () => {
  beforeAll(async () => {
    expect(await buildBinary()).toEqual([])
  }, 600_000)

  test.for<[string, string[]]>([
    ['--no-code', ['--no-code']],
    ['(run_code offered)', []],
    ['--max-tokens 300', ['--max-tokens', '300']],
  ])(
    'run %s: the same requests (bytes and headers), the same output and log events',
    { timeout: 300_000 },
    async ([, extra]) => {
      const root = mkdtempSync(join(tmpdir(), 'toolgate-early-wire-'))
      const home = mkdtempSync(join(tmpdir(), 'toolgate-early-home-'))
      writeFileSync(join(root, 'notes.txt'), 'remember the milk\n')
      // One server for both runs (the Host header names its port).
      const server = await scriptServer(
        [0, 1].flatMap(() => [
          () => [call('c1', 'read', { path: 'notes.txt' }), finish('tool_calls')],
          () => [text('It says to remember the milk.'), finish('stop')],
        ]),
      )
      const runOnce = async (eager: boolean) => {
        const log = join(root, `${eager ? 'eager' : 'early'}.jsonl`)
        const before = server.requests.length
        const ran = await run(
          [...localRun(server.baseUrl, root), '--log', log, ...extra, 'what do my notes say?'],
          { ...ENV, TOOLGATE_HOME: home, ...(eager ? { TOOLGATE_EAGER_START: '1' } : {}) },
        )
        const events = readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { type: string }).type)
        const requests = server.requests.slice(before).map((r) => ({ raw: r.raw, headers: r.headers }))
        return { ran, requests, events }
      }
      const early = await runOnce(false)
      const eager = await runOnce(true)
      expect(early.ran.code).toBe(0)
      expect(early.ran.stderr).toBe('')
      expect(early.requests).toHaveLength(2)
      expect(early.requests).toEqual(eager.requests)
      // Durations differ from run to run, and so do the log names.
      const normal = (out: string) =>
        out.replace(/\d+(\.\d+)?m?s\b/g, 'N').replace(/(early|eager)\.jsonl/, 'X.jsonl')
      expect(normal(early.ran.stdout)).toBe(normal(eager.ran.stdout))
      expect(early.events).toEqual(eager.events)
      await server.close()
    },
  )
})

describe('no early request before a configuration error', () => {
  beforeAll(async () => {
    expect(await buildBinary()).toEqual([])
  }, 600_000)

  test.for<[string, (root: string) => string[]]>([
    ['a directory as --log', (root) => ['--log', root]],
    [
      'a broken settings file',
      (root) => {
        writeFileSync(join(root, '.toolgate', 'settings.json'), '{')
        return []
      },
    ],
  ])('%s: exit 3 and the server never saw a request', { timeout: 300_000 }, async ([, setup]) => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-early-config-'))
    mkdirSync(join(root, '.toolgate'))
    const server = await scriptServer([() => [text('unexpected'), finish('stop')]])
    const home = mkdtempSync(join(tmpdir(), 'toolgate-early-home-'))
    try {
      const start = (eager: boolean) =>
        run([...localRun(server.baseUrl, root), ...setup(root), 'hi'], {
          ...ENV,
          TOOLGATE_HOME: home,
          ...(eager ? { TOOLGATE_EAGER_START: '1' } : {}),
        })
      const ran = await start(false)
      expect(ran.code).toBe(3)
      expect(ran.stderr).toMatch(/^toolgate: /)
      // The same error as when the session is built first, and no request at all.
      expect(ran.stderr).toBe((await start(true)).stderr)
      expect(server.requests).toEqual([])
    } finally {
      await server.close()
    }
  })
})

describe('withDeadline', () => {
  test('a wait that never ends becomes a clear error', async () => {
    const never = new Promise<never>(() => {})
    await expect(withDeadline(1, 'loading the parts', never)).rejects.toEqual(
      new DeadlineError(
        'loading the parts did not finish within 0.001 s; the machine may be overloaded or a part hangs (try again, or run with --no-code)',
      ),
    )
  })

  test('a wait that ends gives its value', async () => {
    await expect(withDeadline(60_000, 'x', Promise.resolve(7))).resolves.toBe(7)
  })
})
