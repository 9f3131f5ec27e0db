// Prompt caching and protocol mismatches, on the wire against a loopback server: the request bytes
// each provider really receives, and what a server that does not stream gets back.
import {
  createModelClient,
  type Message,
  type ModelRequest,
  type Provider,
  ProviderProtocolError,
} from '@toolgate/providers'
import { afterEach, describe, expect, test } from 'vitest'
import { type Handler, type Loopback, loopback, sse, status } from './loopback.js'
import { anthropic, openaiChat, openaiResponses } from './transcripts.js'

let server: Loopback | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(provider: Provider, handlers: Handler[]) {
  server = await loopback(handlers)
  return createModelClient({
    provider,
    baseUrl: provider === 'anthropic' ? server.origin : server.baseUrl,
    apiKey: 'k',
    model: 'm',
    retries: 0,
    timeoutMs: 5000,
  })
}

async function drain(stream: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _ of stream) {
      // drained
    }
    return undefined
  } catch (error) {
    return error
  }
}

const tools = [
  {
    name: 'read',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
  {
    name: 'grep',
    description: 'Search.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } } },
  },
] as const

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] })
const history: Message[] = [
  { role: 'system', content: 'You are terse.' },
  user('read a'),
  {
    role: 'assistant',
    parts: [{ type: 'tool-call', callId: 'toolu_1', name: 'read', arguments: '{"path":"a"}' }],
  },
  { role: 'tool', callId: 'toolu_1', name: 'read', content: [{ type: 'text', text: 'A' }], isError: false },
]

describe('prompt caching on the wire', () => {
  test('anthropic: breakpoints on the last tool, the system prompt and the last block; none without cache', async () => {
    const client = await start('anthropic', [sse(anthropic.parallel), sse(anthropic.parallel)])
    await drain(client.stream({ messages: history, tools, cache: {} }))
    await drain(client.stream({ messages: history, tools }))
    const [cached, plain] = server!.requests.map((r) => r.body as Record<string, unknown>)
    expect(server!.requests[0]!.url).toBe('/v1/messages')
    expect((cached!.tools as { cache_control?: unknown }[]).map((t) => t.cache_control)).toEqual([
      undefined,
      { type: 'ephemeral' },
    ])
    expect(cached!.system).toEqual([
      { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
    ])
    expect(cached!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read a' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [{ type: 'text', text: 'A' }],
            is_error: false,
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ])
    expect(plain!.system).toBe('You are terse.')
    expect(JSON.stringify(plain)).not.toContain('cache_control')
    expect(JSON.stringify(plain)).not.toContain('prompt_cache_key')
  })

  test('anthropic with native tool search: the breakpoint is on the last tool sent in full, never on a deferred one or the search tool', async () => {
    server = await loopback([sse(anthropic.parallel), sse(anthropic.parallel)])
    const client = createModelClient({
      provider: 'anthropic',
      baseUrl: server.origin,
      apiKey: 'k',
      model: 'm',
      retries: 0,
      timeoutMs: 5000,
      nativeToolSearch: 'bm25',
    })
    const deferred = { ...tools[1], name: 'mcp__srv__find', deferLoading: true }
    await drain(client.stream({ messages: history, tools: [tools[0], deferred, tools[1]], cache: {} }))
    // The deferred tool last: the breakpoint moves back to the last tool that is not deferred.
    await drain(client.stream({ messages: history, tools: [tools[0], deferred], cache: {} }))
    const [body, last] = server.requests.map((r) => (r.body as { tools: Record<string, unknown>[] }).tools)
    expect(body!.map((t) => [t.name, t.defer_loading, t.cache_control])).toEqual([
      ['read', undefined, undefined],
      ['mcp__srv__find', true, undefined],
      ['grep', undefined, { type: 'ephemeral' }],
      ['tool_search_tool_bm25', undefined, undefined],
    ])
    expect(last!.map((t) => [t.name, t.defer_loading, t.cache_control])).toEqual([
      ['read', undefined, { type: 'ephemeral' }],
      ['mcp__srv__find', true, undefined],
      ['tool_search_tool_bm25', undefined, undefined],
    ])
  })

  test.each(['openai-chat', 'openai-responses'] as const)(
    '%s: prompt_cache_key only when a key is given',
    async (provider) => {
      const body = provider === 'openai-chat' ? openaiChat.parallel : openaiResponses.parallel
      const client = await start(provider, [sse(body), sse(body)])
      await drain(client.stream({ messages: history, tools, cache: { key: 'session-1' } }))
      await drain(client.stream({ messages: history, tools, cache: {} }))
      const [keyed, unkeyed] = server!.requests.map((r) => r.body as Record<string, unknown>)
      expect(keyed!.prompt_cache_key).toBe('session-1')
      expect('prompt_cache_key' in unkeyed!).toBe(false)
      expect(JSON.stringify(keyed)).not.toContain('cache_control')
    },
  )

  test('anthropic: tools and system are byte-identical across turns of a growing conversation', async () => {
    const client = await start('anthropic', [
      sse(anthropic.parallel),
      sse(anthropic.parallel),
      sse(anthropic.parallel),
    ])
    const requests: ModelRequest[] = [
      { messages: history.slice(0, 2), tools, cache: {} },
      { messages: history, tools, cache: {} },
      { messages: [...history, user('and b?')], tools, cache: {} },
    ]
    for (const r of requests) await drain(client.stream(r))
    const bodies = server!.requests.map((r) => r.body as Record<string, unknown>)
    const prefix = (b: Record<string, unknown>) =>
      JSON.stringify({ tools: b.tools, system: b.system, model: b.model })
    expect(new Set(bodies.map(prefix)).size).toBe(1)
  })
})

describe('a server that answers a streaming request with JSON', () => {
  test.each(['anthropic', 'openai-chat', 'openai-responses'] as const)(
    '%s: ProviderProtocolError (kind protocol) that quotes the server and names the base URL',
    async (provider) => {
      const client = await start(provider, [
        status(200, { error: { message: 'streaming is disabled here' } }),
      ])
      const error = await drain(client.stream({ messages: [user('hi')] }))
      expect(error).toBeInstanceOf(ProviderProtocolError)
      expect((error as ProviderProtocolError).kind).toBe('protocol')
      const path =
        provider === 'anthropic'
          ? '/v1/messages'
          : provider === 'openai-chat'
            ? '/v1/chat/completions'
            : '/v1/responses'
      expect((error as Error).message).toBe(
        `${provider} answered the streaming request at ${server!.origin}${path} with JSON, not an event stream (streaming is disabled here). The server does not stream, or the base URL points at something else: check the base URL.`,
      )
    },
  )
})

describe('cached tokens in usage', () => {
  test('anthropic: cached input is billed apart; promptTokens counts all of it (the window holds it all)', async () => {
    const { anthropicCodec, openaiChatCodec } = await import('@toolgate/providers')
    expect(
      anthropicCodec.decodeResponse({
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 5,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 20,
          output_tokens: 3,
        },
      }).usage,
    ).toEqual({
      inputTokens: 5,
      outputTokens: 3,
      cacheReadTokens: 100,
      cacheWriteTokens: 20,
      promptTokens: 125,
    })
    expect(
      openaiChatCodec.decodeResponse({
        choices: [{ message: { content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 120, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 100 } },
      }).usage,
    ).toEqual({ inputTokens: 120, outputTokens: 3, cacheReadTokens: 100, promptTokens: 120 })
  })
})
