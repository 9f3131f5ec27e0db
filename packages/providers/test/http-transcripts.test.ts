import {
  collectTurn,
  createModelClient,
  type ModelStreamEvent,
  type Provider,
  ProviderAbortedError,
  ProviderHttpError,
  ProviderStreamError,
  type RetryInfo,
  truncatedCallResults,
} from '@toolgate/providers'
import { afterEach, describe, expect, test } from 'vitest'
import { type Handler, type Loopback, loopback, sse, sseCut, status } from './loopback.js'
import { anthropic, openaiChat, openaiResponses } from './transcripts.js'

let server: Loopback | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(
  provider: Provider,
  handlers: Handler[],
  extra: { onRetry?: (i: RetryInfo) => void } = {},
) {
  server = await loopback(handlers)
  return createModelClient({
    provider,
    baseUrl: provider === 'anthropic' ? server.origin : server.baseUrl,
    apiKey: 'test-key',
    model: 'test-model',
    retries: 2,
    retryBaseDelayMs: 1,
    timeoutMs: 5000,
    ...extra,
  })
}

async function drain(
  events: AsyncIterable<ModelStreamEvent>,
): Promise<{ events: ModelStreamEvent[]; error?: unknown }> {
  const out: ModelStreamEvent[] = []
  try {
    for await (const e of events) out.push(e)
    return { events: out }
  } catch (error) {
    return { events: out, error }
  }
}

const request = {
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'read a and b' }] }],
}
const completes = (events: ModelStreamEvent[]) => events.filter((e) => e.type === 'tool-call-complete')

describe('parallel tool calls', () => {
  test('anthropic: two tool_use blocks, each complete at its content_block_stop', async () => {
    const client = await start('anthropic', [sse(anthropic.parallel)])
    const { events, error } = await drain(client.stream(request))
    expect(error).toBeUndefined()
    expect(events).toEqual([
      { type: 'text-delta', text: '我来读两个' },
      { type: 'text-delta', text: ' files.' },
      { type: 'tool-call-start', callId: 'toolu_01', name: 'read' },
      { type: 'tool-call-delta', callId: 'toolu_01', argumentsDelta: '{"path": "a.ts"}' },
      {
        type: 'tool-call-complete',
        callId: 'toolu_01',
        name: 'read',
        arguments: '{"path": "a.ts"}',
        strict: false,
      },
      { type: 'tool-call-start', callId: 'toolu_02', name: 'read' },
      { type: 'tool-call-delta', callId: 'toolu_02', argumentsDelta: '{"pa' },
      { type: 'tool-call-delta', callId: 'toolu_02', argumentsDelta: 'th": "b.ts"}' },
      {
        type: 'tool-call-complete',
        callId: 'toolu_02',
        name: 'read',
        arguments: '{"path": "b.ts"}',
        strict: false,
      },
      {
        type: 'finish',
        stopReason: 'tool_use',
        rawStopReason: 'tool_use',
        usage: { inputTokens: 120, outputTokens: 42, promptTokens: 120 },
      },
    ])
    const req = server!.requests[0]!
    expect(req.url).toBe('/v1/messages')
    expect(req.headers['x-api-key']).toBe('test-key')
    expect(req.headers['anthropic-version']).toBe('2023-06-01')
  })

  test('openai-chat: deltas interleaved by index; calls complete at finish_reason, malformed JSON kept raw', async () => {
    const client = await start('openai-chat', [sse(openaiChat.parallel)])
    const turn = await collectTurn(client.stream(request))
    expect(turn).toEqual({
      message: {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Reading 两个 files.' },
          { type: 'tool-call', callId: 'call_a', name: 'read', arguments: '{"path":"a.ts"}' },
          { type: 'tool-call', callId: 'call_b', name: 'grep', arguments: '{"pattern":"TODO", }' },
        ],
      },
      stopReason: 'tool_use',
      rawStopReason: 'tool_calls',
      usage: { inputTokens: 50, outputTokens: 20, cacheReadTokens: 10, promptTokens: 50 },
      decision: { kind: 'run-tools' },
      strictCalls: new Set(),
    })
    expect(server!.requests[0]!.url).toBe('/v1/chat/completions')
    expect(server!.requests[0]!.headers.authorization).toBe('Bearer test-key')
  })

  test('openai-chat: no call is complete before finish_reason (a later index does not end an earlier one)', async () => {
    const client = await start('openai-chat', [sse(openaiChat.parallel)])
    const { events } = await drain(client.stream(request))
    const firstComplete = events.findIndex((e) => e.type === 'tool-call-complete')
    const lastDelta = events.findLastIndex((e) => e.type === 'tool-call-delta')
    expect(firstComplete).toBeGreaterThan(lastDelta)
    expect(events.map((e) => e.type)).toEqual([
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-complete',
      'tool-call-complete',
      'finish',
    ])
  })

  test('openai-responses: items interleaved by item_id; complete at function_call_arguments.done', async () => {
    const client = await start('openai-responses', [sse(openaiResponses.parallel)])
    const { events, error } = await drain(client.stream(request))
    expect(error).toBeUndefined()
    expect(completes(events)).toEqual([
      {
        type: 'tool-call-complete',
        callId: 'call_1',
        name: 'read',
        arguments: '{"path":"a.ts"}',
        strict: false,
      },
      {
        type: 'tool-call-complete',
        callId: 'call_2',
        name: 'grep',
        arguments: '{"pattern":"TODO"}',
        strict: false,
      },
    ])
    // call_1 completes before call_2's last delta has even arrived? No: after its own done event.
    const types = events.map((e) =>
      e.type === 'tool-call-delta' || e.type === 'tool-call-complete' ? `${e.type}:${e.callId}` : e.type,
    )
    expect(types).toEqual([
      'text-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-start',
      'tool-call-delta:call_1',
      'tool-call-delta:call_2',
      'tool-call-delta:call_1',
      'tool-call-delta:call_2',
      'tool-call-complete:call_1',
      'tool-call-complete:call_2',
      'finish',
    ])
    expect(events.at(-1)).toEqual({
      type: 'finish',
      stopReason: 'tool_use',
      rawStopReason: 'completed',
      usage: { inputTokens: 70, outputTokens: 30, promptTokens: 70 },
    })
  })
})

describe.each([
  ['anthropic', anthropic.cutPrefix, 'toolu_A', 'toolu_B'],
  ['openai-chat', openaiChat.cutPrefix, undefined, 'call_b'],
  ['openai-responses', openaiResponses.cutPrefix, 'call_1', 'call_2'],
] as const)('%s: stream cut mid tool call', (provider, prefix, completedId, cutId) => {
  test('connection closed -> ProviderStreamError, the open call is never complete', async () => {
    const client = await start(provider, [sseCut(prefix)])
    const { events, error } = await drain(client.stream(request))
    expect(error).toBeInstanceOf(ProviderStreamError)
    expect((error as Error).message).toMatch(/incomplete, send the request again/)
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool-call-start', callId: cutId }))
    expect(completes(events).map((e) => e.callId)).toEqual(completedId ? [completedId] : [])
    expect(events.some((e) => e.type === 'finish')).toBe(false)
  })

  test('body ended cleanly but without the terminal event -> ProviderStreamError', async () => {
    const client = await start(provider, [sse(prefix)])
    const { error } = await drain(client.stream(request))
    expect(error).toBeInstanceOf(ProviderStreamError)
  })
})

describe.each([
  ['anthropic', anthropic.maxTokens, 'toolu_W', 'max_tokens'],
  ['openai-chat', openaiChat.maxTokens, 'call_w', 'length'],
  ['openai-responses', openaiResponses.maxTokens, 'call_w', 'max_output_tokens'],
] as const)('%s: max_tokens inside a tool call', (provider, transcript, callId, raw) => {
  test('the decision is truncated; each call gets a re-issue error result', async () => {
    const client = await start(provider, [sse(transcript)])
    const turn = await collectTurn(client.stream(request))
    expect(turn.stopReason).toBe('max_tokens')
    expect(turn.rawStopReason).toBe(raw)
    expect(turn.decision).toEqual({ kind: 'truncated', hasCalls: true })
    const calls = turn.message.parts.filter((p) => p.type === 'tool-call')
    expect(calls).toEqual([
      { type: 'tool-call', callId, name: 'write', arguments: '{"path":"big.txt","content":"lorem ips' },
    ])
    expect(truncatedCallResults(calls)).toEqual([
      {
        role: 'tool',
        callId,
        name: 'write',
        isError: true,
        content: [
          {
            type: 'text',
            text: 'This write call was not run: your reply hit the output token limit before it ended, so its arguments may be cut off. Re-issue the call with its complete arguments; if they are long, split the work into several smaller calls.',
          },
        ],
      },
    ])
  })
})

describe.each([
  ['anthropic', anthropic.text('hi')],
  ['openai-chat', openaiChat.text('hi')],
  ['openai-responses', openaiResponses.text('hi')],
] as const)('%s: retries', (provider, ok) => {
  test('429 with retry-after, then success', async () => {
    const retries: RetryInfo[] = []
    const client = await start(
      provider,
      [
        status(429, { error: { type: 'rate_limit_error', message: 'slow down' } }, { 'retry-after': '1' }),
        sse(ok),
      ],
      { onRetry: (i) => retries.push(i) },
    )
    const started = performance.now()
    const turn = await collectTurn(client.stream(request))
    expect(performance.now() - started).toBeGreaterThanOrEqual(990)
    expect(turn.message).toEqual({ role: 'assistant', parts: [{ type: 'text', text: 'hi' }] })
    expect(turn.decision).toEqual({ kind: 'done' })
    expect(retries).toEqual([{ attempt: 1, delayMs: 1000, status: 429, reason: 'slow down' }])
    expect(server!.requests).toHaveLength(2)
  })

  test('500 then success; a persistent 500 ends with a ProviderHttpError saying what to do', async () => {
    const retries: RetryInfo[] = []
    const client = await start(provider, [status(500, { error: { message: 'boom' } }), sse(ok)], {
      onRetry: (i) => retries.push(i),
    })
    const turn = await collectTurn(client.stream(request))
    expect(turn.decision).toEqual({ kind: 'done' })
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([[1, 500]])
    await server!.close()

    const failing = await start(provider, [
      status(503, 'x'),
      status(503, 'x'),
      status(503, { error: { message: 'overloaded' } }),
    ])
    const { error } = await drain(failing.stream(request))
    expect(error).toBeInstanceOf(ProviderHttpError)
    expect((error as ProviderHttpError).status).toBe(503)
    expect((error as Error).message).toBe(
      `${provider} returned HTTP 503: overloaded. The provider failed (gave up after 3 attempts); try again later.`,
    )
  })

  test('401 is not retried and names the key to check', async () => {
    const client = await start(provider, [status(401, { error: { message: 'invalid x-api-key' } })])
    const { error } = await drain(client.stream(request))
    expect((error as Error).message).toBe(
      `${provider} returned HTTP 401: invalid x-api-key. Check the API key (ANTHROPIC_API_KEY / OPENAI_API_KEY) and its permissions.`,
    )
    expect(server!.requests).toHaveLength(1)
  })
})

describe('stop reasons', () => {
  test('missing or unknown stop reason is an error, never done', async () => {
    const client = await start('anthropic', [
      sse(anthropic.text('x', null)),
      sse(anthropic.text('x', 'weird_new_reason')),
    ])
    const a = await collectTurn(client.stream(request))
    expect([a.stopReason, a.rawStopReason, a.decision]).toEqual([
      'error',
      null,
      { kind: 'error', message: 'the provider sent no stop reason; the reply may be incomplete' },
    ])
    const b = await collectTurn(client.stream(request))
    expect(b.decision).toEqual({
      kind: 'error',
      message: 'unknown stop reason "weird_new_reason"; not treated as done',
    })
  })

  test('openai-chat: [DONE] without finish_reason (a gateway dropped it) is an error', async () => {
    const client = await start('openai-chat', [sse(openaiChat.text('x', null))])
    const turn = await collectTurn(client.stream(request))
    expect(turn.stopReason).toBe('error')
    expect(turn.rawStopReason).toBeNull()
  })
})

describe('abort', () => {
  test.each(['anthropic', 'openai-chat', 'openai-responses'] as const)(
    '%s: abort mid-stream closes the connection',
    async (provider) => {
      const prefix = {
        anthropic: anthropic.cutPrefix,
        'openai-chat': openaiChat.cutPrefix,
        'openai-responses': openaiResponses.cutPrefix,
      }[provider]
      const client = await start(provider, [
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write(prefix) // and never ends
        },
      ])
      const controller = new AbortController()
      const seen: ModelStreamEvent[] = []
      let error: unknown
      try {
        for await (const e of client.stream(request, controller.signal)) {
          seen.push(e)
          if (e.type === 'tool-call-start') controller.abort() // gate: abort once the stream is flowing
        }
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ProviderAbortedError)
      expect(seen.some((e) => e.type === 'finish')).toBe(false)
      await server!.closed(0) // the server saw the connection go away
    },
  )
})
