// The agent through the REAL HTTP stack: a loopback OpenAI Chat Completions server streams SSE with
// two interleaved parallel tool calls, then a final answer.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createModelClient, type Message } from '@toolgate/providers'
import { afterEach, describe, expect, it } from 'vitest'
import { runAgent } from '../src/index.js'
import { assertValidHistory, drain, testRuntime } from './helpers.js'

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

const parallelTurn = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Echoing twice.' }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'echo', arguments: '' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"text":' } }] }),
  chunk({
    tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'echo', arguments: '{"te' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"alpha"}' } }] }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: 'xt":"beta"}' } }] }),
  chunk({}, 'tool_calls'),
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 50, completion_tokens: 20 } })}\n\n`,
  'data: [DONE]\n\n',
].join('')

const finalTurn = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Both echoed.' }),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 90, completion_tokens: 4 } })}\n\n`,
  'data: [DONE]\n\n',
].join('')

const servers: { close(): void }[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

async function serve(bodies: string[]) {
  const received: unknown[] = []
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = ''
    for await (const piece of req) raw += piece
    received.push(JSON.parse(raw))
    const body = bodies.shift()
    if (body === undefined) {
      res.writeHead(500).end('{"error":"no more turns"}')
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    // Split mid-event so the SSE parser has to reassemble.
    const cut = Math.floor(body.length / 3)
    res.write(body.slice(0, cut))
    setImmediate(() => res.end(body.slice(cut)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  const port = (server.address() as AddressInfo).port
  return { received, baseUrl: `http://127.0.0.1:${port}/v1` }
}

describe('runAgent over HTTP (OpenAI Chat SSE)', () => {
  it('runs interleaved parallel calls through the pipeline and sends one tool message per call', async () => {
    const { received, baseUrl } = await serve([parallelTurn, finalTurn])
    const { runtime, log } = testRuntime()
    const model = createModelClient({
      provider: 'openai-chat',
      baseUrl,
      apiKey: 'test-key',
      model: 'test-model',
    })
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'echo alpha and beta' }] }]
    const run = runAgent({ model, runtime, messages })
    const events = await drain(run)
    const result = await run.result

    expect(result.reason).toBe('completed')
    expect(result.usage).toEqual({ inputTokens: 140, outputTokens: 24, promptTokens: 140 })
    expect(log.started.sort()).toEqual(['echo:alpha', 'echo:beta'])
    expect(
      events
        .filter((e) => e.type === 'tool-call')
        .map((e) => e.type === 'tool-call' && [e.callId, e.arguments]),
    ).toEqual([
      ['call_a', '{"text":"alpha"}'],
      ['call_b', '{"text":"beta"}'],
    ])
    expect(result.appended).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Echoing twice.' },
          { type: 'tool-call', callId: 'call_a', name: 'echo', arguments: '{"text":"alpha"}' },
          { type: 'tool-call', callId: 'call_b', name: 'echo', arguments: '{"text":"beta"}' },
        ],
      },
      {
        role: 'tool',
        callId: 'call_a',
        name: 'echo',
        content: [{ type: 'text', text: 'alpha' }],
        isError: false,
      },
      {
        role: 'tool',
        callId: 'call_b',
        name: 'echo',
        content: [{ type: 'text', text: 'beta' }],
        isError: false,
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'Both echoed.' }] },
    ])
    assertValidHistory(result.messages)

    // What went over the wire on the second request: the assistant's calls, then one tool message each.
    const second = received[1] as {
      messages: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[]
    }
    const wire = second.messages.map((m) => [
      m.role,
      m.tool_call_id ?? m.tool_calls?.map((c) => c.id).join(',') ?? '',
    ])
    expect(wire).toEqual([
      ['user', ''],
      ['assistant', 'call_a,call_b'],
      ['tool', 'call_a'],
      ['tool', 'call_b'],
    ])
    const tools = (received[0] as { tools: { function: { name: string } }[] }).tools
    expect(tools.map((t) => t.function.name)).toEqual(['echo', 'note', 'wait'])
    // Both calls were logged by the pipeline before they ran, and settled in model order.
    expect(runtime.session.events().map((e) => `${e.type}:${e.callId}`)).toEqual([
      'tool/call:call_a',
      'tool/call:call_b',
      'tool/result:call_a',
      'tool/result:call_b',
    ])
  })

  it('the same transcript with streaming execution gives the same history', async () => {
    const { baseUrl } = await serve([parallelTurn, finalTurn])
    const { runtime } = testRuntime()
    const model = createModelClient({ provider: 'openai-chat', baseUrl, apiKey: 'k', model: 'm' })
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'echo alpha and beta' }] }]
    const result = await runAgent({ model, runtime, messages, streamingExecution: true }).result
    expect(result.reason).toBe('completed')
    expect(
      result.appended.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && m.content),
    ).toEqual([[{ type: 'text', text: 'alpha' }], [{ type: 'text', text: 'beta' }]])
  })
})
