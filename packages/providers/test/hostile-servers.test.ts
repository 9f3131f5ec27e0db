// Servers that misbehave, on real loopback HTTP (issue 13 §4): endless bodies, keep-alives forever,
// a slow drip, events without end. Each request must end with the error that names the limit, and
// memory must stay flat. The old transport read error bodies whole, let a comment reset its idle
// timer and concatenated text without a cap: every test here hung (or grew to gigabytes) on it.
import {
  collectTurn,
  createModelClient,
  type ModelStreamEvent,
  type Provider,
  ProviderHttpError,
  ProviderLimitError,
  ProviderTimeoutError,
  type RetryInfo,
  TRANSPORT_DEFAULTS,
  type TransportOptions,
} from '@toolgate/providers'
import fc from 'fast-check'
import { afterEach, describe, expect, test } from 'vitest'
import { drip, endless, type Handler, type Loopback, loopback, type Sent, sse, sseText } from './loopback.js'
import { anthropic, openaiChat, openaiResponses } from './transcripts.js'

let server: Loopback | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(provider: Provider, handlers: Handler[], extra: TransportOptions = {}) {
  server = await loopback(handlers)
  return createModelClient({
    provider,
    baseUrl: provider === 'anthropic' ? server.origin : server.baseUrl,
    apiKey: 'test-key',
    model: 'test-model',
    retries: 0,
    retryBaseDelayMs: 1,
    timeoutMs: 5000,
    ...extra,
  })
}

const request = { messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }] }

async function drain(events: AsyncIterable<ModelStreamEvent>) {
  const out: ModelStreamEvent[] = []
  try {
    for await (const e of events) out.push(e)
    return { events: out, error: undefined as unknown }
  } catch (error) {
    return { events: out, error }
  }
}

/** Run `work` while sampling this process's RSS; returns its result and the largest growth seen. */
async function rssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  try {
    const result = await work()
    peak = Math.max(peak, process.memoryUsage().rss)
    return { result, growthMb: (peak - before) / 2 ** 20 }
  } finally {
    clearInterval(sampler)
  }
}

const TEXT = 'a'.repeat(1000)
const event = (name: string, data: unknown) => sseText([{ event: name, data }])
const chatChunk = (delta: unknown) =>
  sseText([
    {
      data: { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] },
    },
  ])

const anthropicHead =
  event('message_start', { type: 'message_start', message: { id: 'm', usage: { input_tokens: 1 } } }) +
  event('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  })
const anthropicText = (text: string) =>
  event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })
const responsesHead = event('response.created', {
  type: 'response.created',
  response: { id: 'r', status: 'in_progress', output: [] },
})
const responsesText = (delta: string) =>
  event('response.output_text.delta', {
    type: 'response.output_text.delta',
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    delta,
  })

/** Per wire: the opening of a stream and one text delta. */
const WIRES = {
  anthropic: { head: anthropicHead, text: anthropicText },
  'openai-chat': {
    head: chatChunk({ role: 'assistant', content: '' }),
    text: (t: string) => chatChunk({ content: t }),
  },
  'openai-responses': { head: responsesHead, text: responsesText },
} as const satisfies Record<Provider, { head: string; text: (t: string) => string }>

const PROVIDERS = Object.keys(WIRES) as Provider[]

describe('an endless error body', () => {
  test.each(PROVIDERS)(
    '%s: 500 that never ends -> read 64 KiB, cancel, the HTTP error says the body was cut; memory stays flat',
    async (provider) => {
      const sent: Sent = { bytes: 0 }
      const retries: RetryInfo[] = []
      const client = await start(
        provider,
        [0, 1, 2].map(() => endless(500, 'text/plain', '', () => 'x'.repeat(16_384), sent)),
        { retries: 2, onRetry: (r) => retries.push(r) },
      )
      const { result, growthMb } = await rssGrowth(() => drain(client.stream(request)))
      expect(result.events).toEqual([])
      expect(result.error).toBeInstanceOf(ProviderHttpError)
      expect((result.error as ProviderHttpError).bodyCut).toEqual({
        limit: 'maxErrorBodyBytes',
        bytes: 65_536,
      })
      expect((result.error as Error).message).toBe(
        `${provider} returned HTTP 500: ${'x'.repeat(299)}… (error body cut at 65536 bytes, maxErrorBodyBytes). The provider failed (gave up after 3 attempts); try again later.`,
      )
      expect(retries.map((r) => r.attempt)).toEqual([1, 2])
      // Every attempt's connection was closed: the server stopped writing.
      await Promise.all([server!.closed(0), server!.closed(1), server!.closed(2)])
      // What the server pushed before it saw the close is bounded by socket buffers, not by time.
      expect(sent.bytes).toBeLessThan(3 * 32 * 2 ** 20)
      expect(growthMb).toBeLessThan(200)
    },
    10_000,
  )

  test('a 500 whose body drips forever: the message is what arrived within timeoutMs', async () => {
    const client = await start('anthropic', [drip(500, 'text/plain', 'x', () => 'x', 10)], { timeoutMs: 300 })
    const { error } = await drain(client.stream(request))
    expect(error).toBeInstanceOf(ProviderHttpError)
    expect((error as ProviderHttpError).bodyCut).toEqual({ limit: 'timeoutMs', ms: 300 })
    expect((error as Error).message).toMatch(
      /^anthropic returned HTTP 500: x+ \(error body cut after 300 ms, timeoutMs\)\. The provider failed; try again later\.$/,
    )
    await server!.closed(0)
  })

  test('a long JSON error message is cut to 300 characters', async () => {
    const client = await start('openai-chat', [
      (_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `bad ${'y'.repeat(5000)}` } }))
      },
    ])
    const { error } = await drain(client.stream(request))
    expect((error as Error).message).toBe(
      `openai-chat returned HTTP 400: bad ${'y'.repeat(295)}…. The request was rejected; the message above names the field.`,
    )
  })
})

/** Keep-alives of every kind a server can send: none of them is output. */
const KEEP_ALIVES = [
  ['anthropic', 'SSE comments', anthropicHead, () => ': keep-alive\n\n'],
  ['anthropic', 'blank lines', anthropicHead, () => '\n'],
  ['anthropic', 'ping events', anthropicHead, () => event('ping', { type: 'ping' })],
  ['anthropic', 'id and retry fields', anthropicHead, () => 'id: 7\nretry: 1000\n\n'],
  ['anthropic', 'empty text deltas', anthropicHead, () => anthropicText('')],
  ['openai-chat', 'empty content deltas', WIRES['openai-chat'].head, () => chatChunk({ content: '' })],
  [
    'openai-responses',
    'in_progress events',
    responsesHead,
    () => event('response.in_progress', { type: 'response.in_progress', response: { id: 'r' } }),
  ],
] as const

describe('keep-alives are not progress', () => {
  test.each(KEEP_ALIVES)('%s: %s forever -> the idle timeout fires', async (provider, _kind, head, piece) => {
    const client = await start(provider, [drip(200, 'text/event-stream', head, piece, 5)], { timeoutMs: 300 })
    const { events, error } = await drain(client.stream(request))
    expect(events).toEqual([])
    expect(error).toBeInstanceOf(ProviderTimeoutError)
    expect(error).toMatchObject({ phase: 'stream', timeoutMs: 300 })
    expect((error as Error).message).toBe(
      'no new output for 300 ms (timeoutMs; keep-alive comments and pings do not count); the reply is incomplete. The server may be overloaded; try again or raise timeoutMs.',
    )
    await server!.closed(0)
  })

  test('output resets the idle timer: deltas 0.4 s apart outlive a 1.5 s timeout (2 s in all)', async () => {
    // Each gap is well inside timeoutMs; their sum is not. Only a timer reset by output passes.
    let sent = 0
    const handler: Handler = (_req, res) =>
      new Promise<void>((resolve) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(anthropicHead)
        const timer = setInterval(() => {
          sent++
          if (sent <= 5) res.write(`: ping\n\n${anthropicText(`${sent}`)}`)
          else {
            clearInterval(timer)
            res.end(
              sseText([
                { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
                {
                  event: 'message_delta',
                  data: { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
                },
                { event: 'message_stop', data: { type: 'message_stop' } },
              ]),
            )
            resolve()
          }
        }, 400)
      })
    const client = await start('anthropic', [handler], { timeoutMs: 1500 })
    const turn = await collectTurn(client.stream(request))
    expect(turn.message).toEqual({ role: 'assistant', parts: [{ type: 'text', text: '12345' }] })
  })
})

describe('a slow drip of real output', () => {
  test.each(PROVIDERS)(
    '%s: one delta every 20 ms forever -> the total deadline ends it',
    async (provider) => {
      const wire = WIRES[provider]
      const client = await start(
        provider,
        [drip(200, 'text/event-stream', wire.head, () => wire.text('.'), 20)],
        {
          timeoutMs: 5000,
          totalTimeoutMs: 400,
        },
      )
      const { events, error } = await drain(client.stream(request))
      expect(events.length).toBeGreaterThan(0)
      expect(events.every((e) => e.type === 'text-delta')).toBe(true)
      expect(error).toBeInstanceOf(ProviderTimeoutError)
      expect(error).toMatchObject({ phase: 'total', timeoutMs: 400 })
      expect((error as Error).message).toBe(
        'the request took longer than 400 ms in total (totalTimeoutMs, retries included); the reply is incomplete. Try again, ask for a shorter reply (lower maxTokens), or raise totalTimeoutMs.',
      )
      await server!.closed(0)
    },
  )

  test('headers that never come: the total deadline also bounds the first byte', async () => {
    const client = await start('anthropic', [() => new Promise<void>(() => {})], {
      timeoutMs: 60_000,
      totalTimeoutMs: 200,
    })
    const { error } = await drain(client.stream(request))
    expect(error).toMatchObject({ phase: 'total', timeoutMs: 200 })
  })

  test('a retry that would pass the total deadline is not waited for: the HTTP error is the answer', async () => {
    const retries: RetryInfo[] = []
    const client = await start(
      'anthropic',
      [
        (_req, res) => {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' })
          res.end(JSON.stringify({ error: { message: 'overloaded' } }))
        },
      ],
      { retries: 2, retryMaxDelayMs: 10_000, totalTimeoutMs: 1000, onRetry: (r) => retries.push(r) },
    )
    const { error } = await drain(client.stream(request))
    expect((error as Error).message).toBe(
      'anthropic returned HTTP 503: overloaded. The provider failed; try again later.',
    )
    expect(retries).toEqual([])
    expect(server!.requests).toHaveLength(1)
  })
})

describe('endless output', () => {
  test.each(PROVIDERS)(
    '%s: text deltas without end -> maxOutputChars (default) ends the reply; memory stays flat',
    async (provider) => {
      const wire = WIRES[provider]
      const client = await start(provider, [
        endless(200, 'text/event-stream', wire.head, () => wire.text(TEXT)),
      ])
      let chars = 0
      const { result, growthMb } = await rssGrowth(async () => {
        try {
          await collectTurn(client.stream(request), (e) => {
            if (e.type === 'text-delta') chars += e.text.length
          })
          return undefined
        } catch (error) {
          return error
        }
      })
      expect(result).toBeInstanceOf(ProviderLimitError)
      expect(result).toMatchObject({ limit: 'maxOutputChars', max: TRANSPORT_DEFAULTS.maxOutputChars })
      expect((result as Error).message).toBe(
        'the reply passed 4194304 characters of text, reasoning and tool arguments (maxOutputChars); it was cut off and must not be used. Ask for a shorter reply (lower maxTokens), or raise maxOutputChars.',
      )
      // Everything delivered fits the cap; the delta that would pass it was never delivered.
      expect(chars).toBe(Math.floor(TRANSPORT_DEFAULTS.maxOutputChars / TEXT.length) * TEXT.length)
      await server!.closed(0)
      expect(growthMb).toBeLessThan(200)
    },
    15_000,
  )

  test('tool calls without end count too (64 characters each, plus name and id)', async () => {
    let n = 0
    const piece = () => {
      n++
      return event('response.output_item.added', {
        type: 'response.output_item.added',
        output_index: n,
        item: { type: 'function_call', id: `fc_${n}`, call_id: '', name: '', arguments: '' },
      })
    }
    const client = await start(
      'openai-responses',
      [endless(200, 'text/event-stream', responsesHead, piece)],
      {
        maxOutputChars: 64 * 1000,
      },
    )
    const { events, error } = await drain(client.stream(request))
    expect(error).toMatchObject({ limit: 'maxOutputChars', max: 64_000 })
    // Empty call ids and names: each call costs exactly 64, so 1000 calls fit and the 1001st does not.
    expect(events.length).toBe(1000)
    expect(events.every((e) => e.type === 'tool-call-start')).toBe(true)
  })

  test('one event that never ends -> maxEventChars (default)', async () => {
    const client = await start('openai-chat', [
      endless(200, 'text/event-stream', 'data: "', () => 'z'.repeat(65_536)),
    ])
    const { result, growthMb } = await rssGrowth(() => drain(client.stream(request)))
    expect(result.error).toBeInstanceOf(ProviderLimitError)
    expect(result.error).toMatchObject({ limit: 'maxEventChars', max: 16_777_216 })
    expect((result.error as Error).message).toBe(
      'one server-sent event passed 16777216 characters (maxEventChars); the reply is incomplete and was not used. If the server is sound and its events really are that large, raise maxEventChars.',
    )
    await server!.closed(0)
    expect(growthMb).toBeLessThan(300)
  })

  test('comments as fast as the socket allows -> maxResponseBytes, before any idle timeout', async () => {
    const client = await start(
      'anthropic',
      [endless(200, 'text/event-stream', anthropicHead, () => `: ${'k'.repeat(4096)}\n\n`)],
      { maxResponseBytes: 8 * 2 ** 20, timeoutMs: 60_000 },
    )
    const { error } = await drain(client.stream(request))
    expect(error).toMatchObject({ limit: 'maxResponseBytes', max: 8_388_608 })
    expect((error as Error).message).toBe(
      'the response body passed 8388608 bytes (maxResponseBytes); the reply is incomplete and was not used. If the server is sound and its replies really are that large, raise maxResponseBytes.',
    )
    await server!.closed(0)
  })

  test('complete(): a JSON body without end -> maxResponseBytes', async () => {
    const client = await start(
      'anthropic',
      [endless(200, 'application/json', '{"content":[', () => ' '.repeat(65_536))],
      {
        maxResponseBytes: 4 * 2 ** 20,
      },
    )
    await expect(client.complete(request)).rejects.toMatchObject({
      limit: 'maxResponseBytes',
      max: 4_194_304,
    })
    await server!.closed(0)
  })

  test('complete(): a whole reply over maxOutputChars is refused', async () => {
    const client = await start(
      'anthropic',
      [
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(
            JSON.stringify({ content: [{ type: 'text', text: 'w'.repeat(2000) }], stop_reason: 'end_turn' }),
          )
        },
      ],
      { maxOutputChars: 1000 },
    )
    await expect(client.complete(request)).rejects.toMatchObject({ limit: 'maxOutputChars', max: 1000 })
  })
})

describe('a normal server still works', () => {
  test.each([
    ['anthropic', anthropic.parallel],
    ['openai-chat', openaiChat.parallel],
    ['openai-responses', openaiResponses.parallel],
  ] as const)(
    '%s: the same events with keep-alives between them, under tight limits',
    async (provider, text) => {
      const plain = await start(provider, [sse(text)])
      const expected = await drain(plain.stream(request))
      expect(expected.error).toBeUndefined()
      await server!.close()
      const withComments = text.replaceAll('\n\n', '\n\n: keep-alive\n\n')
      const client = await start(provider, [sse(withComments)], {
        timeoutMs: 2000,
        totalTimeoutMs: 4000,
        maxResponseBytes: withComments.length * 2,
        maxEventChars: 1024,
        maxOutputChars: 1024,
      })
      expect(await drain(client.stream(request))).toEqual(expected)
    },
  )
})

describe('a fetch that ignores its signal cannot hold a wait', () => {
  test('headers never come and the fetch ignores abort -> the response timeout still ends it', async () => {
    const client = createModelClient({
      provider: 'anthropic',
      model: 'm',
      retries: 0,
      timeoutMs: 100,
      fetch: () => new Promise<Response>(() => {}),
    })
    const { error } = await drain(client.stream(request))
    expect(error).toMatchObject({ phase: 'response', timeoutMs: 100 })
  })

  test('a body that never delivers and ignores cancel -> the idle timeout still ends it', async () => {
    const body = new ReadableStream<Uint8Array>({
      pull: () => new Promise<void>(() => {}),
      cancel: () => new Promise<void>(() => {}),
    })
    const client = createModelClient({
      provider: 'anthropic',
      model: 'm',
      retries: 0,
      timeoutMs: 100,
      fetch: async () =>
        new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    })
    const { error } = await drain(client.stream(request))
    expect(error).toMatchObject({ phase: 'stream', timeoutMs: 100 })
  })
})

describe('limits are checked when the client is made', () => {
  const NUMERIC = [
    'timeoutMs',
    'totalTimeoutMs',
    'maxErrorBodyBytes',
    'maxResponseBytes',
    'maxEventChars',
    'maxOutputChars',
    'retries',
    'retryBaseDelayMs',
    'retryMaxDelayMs',
  ] as const

  test('exact messages', () => {
    const make = (extra: TransportOptions) => () =>
      createModelClient({ provider: 'anthropic', model: 'm', ...extra })
    expect(make({ timeoutMs: Number.NaN })).toThrow(
      new RangeError('timeoutMs must be a whole number from 1 to 2147483647 (default 120000); got NaN.'),
    )
    expect(make({ retries: 1.5 })).toThrow(
      new RangeError('retries must be a whole number from 0 to 100 (default 2); got 1.5.'),
    )
    expect(make({ totalTimeoutMs: Number.POSITIVE_INFINITY })).toThrow(
      new RangeError(
        'totalTimeoutMs must be a whole number from 1 to 2147483647 (default 900000); got Infinity.',
      ),
    )
    expect(make({ maxOutputChars: 0 })).toThrow(
      new RangeError('maxOutputChars must be a whole number from 1 to 268435456 (default 4194304); got 0.'),
    )
  })

  test('property: any value is accepted exactly when it is a whole number inside its range', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NUMERIC),
        fc.oneof(
          fc.double(),
          fc.integer({ min: -10, max: 2 ** 31 + 10 }),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 0, 1, 2 ** 31 - 1, 2 ** 31),
        ),
        (key, value) => {
          let threw = false
          try {
            createModelClient({ provider: 'anthropic', model: 'm', [key]: value })
          } catch (error) {
            expect(error).toBeInstanceOf(RangeError)
            threw = true
          }
          const min = key === 'retries' || key.startsWith('retry') ? 0 : 1
          const maxes: Partial<Record<string, number>> = {
            retries: 100,
            maxErrorBodyBytes: 2 ** 30,
            maxResponseBytes: 2 ** 32,
            maxEventChars: 2 ** 28,
            maxOutputChars: 2 ** 28,
          }
          const max = maxes[key] ?? 2 ** 31 - 1
          expect(threw).toBe(!(Number.isInteger(value) && value >= min && value <= max))
        },
      ),
      { numRuns: 500 },
    )
  })
})
