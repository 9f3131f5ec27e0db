// Prompt caching and compaction on the wire: the agent, the real Anthropic codec and HTTP transport,
// and a loopback server that records every request body. The static prefix (tools, system) must be
// byte-identical on every request — the summary request included — and the moving breakpoint must
// sit on the last block; after a compaction the history is still valid Anthropic (every tool_use
// answered in the next message).
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createModelClient } from '@toolgate/providers'
import { afterEach, expect, it } from 'vitest'
import { COMPACTION_PROMPT } from '../src/context/compaction-prompts.js'
import { collectAgent } from '../src/index.js'
import { assertValidHistory, testRuntime } from './helpers.js'

type Block = { type: string; text?: string; id?: string; tool_use_id?: string; cache_control?: unknown }
type Body = {
  system: Block[]
  tools: { name: string; cache_control?: unknown }[]
  messages: { role: string; content: Block[] }[]
  tool_choice?: unknown
}

const servers: { close(): void }[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

const sse = (events: { type: string; [k: string]: unknown }[]) =>
  events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')

function reply(
  blocks: ({ text: string } | { call: string; args: object })[],
  stop: string,
  promptTokens: number,
): string {
  const events: { type: string; [k: string]: unknown }[] = [
    {
      type: 'message_start',
      message: { usage: { input_tokens: 10, cache_read_input_tokens: promptTokens - 10, output_tokens: 1 } },
    },
  ]
  for (const [index, b] of blocks.entries()) {
    if ('text' in b) {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } })
    } else {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: b.call, name: 'echo', input: {} },
      })
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.args) },
      })
    }
    events.push({ type: 'content_block_stop', index })
  }
  events.push({ type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 20 } })
  events.push({ type: 'message_stop' })
  return sse(events)
}

it('Anthropic: tools and system byte-identical on every request, the breakpoint on the last block, valid history after a compaction', async () => {
  const bodies: Body[] = []
  let turn = 0
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = ''
    for await (const piece of req) raw += piece
    const body = JSON.parse(raw) as Body
    bodies.push(body)
    const last = body.messages.at(-1)!.content.at(-1)!
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    // Usage as a provider would count it (about 3.5 bytes per token of the request).
    const prompt = Math.ceil(raw.length / 3.5)
    if (last.type === 'text' && last.text === COMPACTION_PROMPT) {
      res.end(reply([{ text: 'Summary: echoed three times.' }], 'end_turn', prompt))
      return
    }
    turn++
    // Each turn echoes ~7,000 characters (in the call and in its result: ~4,000 tokens a turn).
    const big = { text: `${turn} ${'z'.repeat(7000)}` }
    res.end(
      turn <= 4
        ? reply([{ text: `Turn ${turn}.` }, { call: `toolu_${turn}`, args: big }], 'tool_use', prompt)
        : reply([{ text: 'Done.' }], 'end_turn', prompt),
    )
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { runtime } = testRuntime()
  const model = createModelClient({
    provider: 'anthropic',
    baseUrl: origin,
    apiKey: 'k',
    model: 'claude-test',
    retries: 0,
  })
  const result = await collectAgent({
    model,
    runtime,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Echo a few things.' }] }],
    system: 'You echo.',
    request: { maxTokens: 1000 },
    promptCache: {},
    context: { window: 11_000 },
  })
  expect(result.reason).toBe('completed')
  assertValidHistory(result.messages)

  // One summary request, right after turn 3, with tool_choice none and the compaction prompt last.
  const summaryAt = bodies.findIndex((b) => b.messages.at(-1)!.content.at(-1)!.text === COMPACTION_PROMPT)
  expect(summaryAt).toBe(3)
  expect(bodies[summaryAt]!.tool_choice).toEqual({ type: 'none' })
  expect(bodies.length).toBe(6)

  // The static prefix: identical bytes on every request.
  const prefix = (b: Body) => JSON.stringify({ system: b.system, tools: b.tools })
  expect(new Set(bodies.map(prefix)).size).toBe(1)
  expect(bodies[0]!.system).toEqual([
    { type: 'text', text: 'You echo.', cache_control: { type: 'ephemeral' } },
  ])
  expect(bodies[0]!.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' })
  for (const b of bodies) {
    // The moving breakpoint: on the last block only.
    const marked = b.messages.flatMap((m, i) =>
      m.content.flatMap((c, j) => (c.cache_control ? [`${i}.${j}`] : [])),
    )
    expect(marked).toEqual([`${b.messages.length - 1}.${b.messages.at(-1)!.content.length - 1}`])
    // Every tool_use is answered by a tool_result in the next message.
    for (const [i, m] of b.messages.entries()) {
      if (m.role !== 'assistant') continue
      const ids = m.content.filter((c) => c.type === 'tool_use').map((c) => c.id)
      const answered = (b.messages[i + 1]?.content ?? [])
        .filter((c) => c.type === 'tool_result')
        .map((c) => c.tool_use_id)
      expect(answered.slice(0, ids.length)).toEqual(ids)
    }
  }
  // Before the compaction each request extends the previous one (cache markers aside).
  const plain = (b: Body) =>
    b.messages.map((m) => JSON.stringify({ ...m, content: m.content.map(({ cache_control: _, ...c }) => c) }))
  for (const n of [1, 2])
    expect(plain(bodies[n]!).slice(0, plain(bodies[n - 1]!).length)).toEqual(plain(bodies[n - 1]!))
  // After it, the conversation starts with the summary.
  const after = bodies[summaryAt + 1]!
  expect(after.messages[0]!.content[0]!.text).toMatch(
    /^<conversation-summary>\n.*\n\nSummary: echoed three times\.\n<\/conversation-summary>$/s,
  )
})
