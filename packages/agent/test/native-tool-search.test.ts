// Anthropic's native tool search (issue 16 §2) through the REAL HTTP stack: a loopback server
// speaks the Messages wire as the API documents it ("Tool search tool": server_tool_use, then
// tool_search_tool_result with tool_reference blocks, then the client tool_use). The deferred
// tools are sent with defer_loading, the search tool and beta header are added, the emulated
// tool_search and its note stay out, and the server blocks are replayed verbatim next turn.
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRuntime, defineTool, textOutput } from '@toolgate/core'
import { type AssistantMessage, CODECS, createModelClient, type Message } from '@toolgate/providers'
import { toolSearchTool } from '@toolgate/tools'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { DeferredTools } from '../src/context/deferred-tools.js'
import { collectAgent } from '../src/loop/run-agent.js'

const sse = (events: object[]) =>
  events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join('')

const SEARCH_RESULT = {
  type: 'tool_search_tool_result',
  tool_use_id: 'srvtoolu_01',
  content: {
    type: 'tool_search_tool_search_result',
    tool_references: [{ type: 'tool_reference', tool_name: 'mcp__github__create_issue' }],
  },
}

const searchTurn = sse([
  { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 100 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'I will look for a tool.' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'server_tool_use', id: 'srvtoolu_01', name: 'tool_search_tool_bm25' },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query":' } },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '"create issue"}' },
  },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: SEARCH_RESULT },
  { type: 'content_block_stop', index: 2 },
  {
    type: 'content_block_start',
    index: 3,
    content_block: { type: 'tool_use', id: 'toolu_01', name: 'mcp__github__create_issue', input: {} },
  },
  {
    type: 'content_block_delta',
    index: 3,
    delta: { type: 'input_json_delta', partial_json: '{"title":"Bug"}' },
  },
  { type: 'content_block_stop', index: 3 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 40 } },
  { type: 'message_stop' },
])

const finalTurn = sse([
  { type: 'message_start', message: { id: 'msg_2', usage: { input_tokens: 200 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Created the issue.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } },
  { type: 'message_stop' },
])

const closers: (() => void)[] = []
afterEach(() => {
  for (const c of closers.splice(0)) c()
})

async function anthropicServer(bodies: string[]) {
  const received: { headers: IncomingHttpHeaders; body: { tools: object[]; messages: Message[] } }[] = []
  const server = createServer(async (req, res) => {
    let raw = ''
    for await (const piece of req) raw += piece
    received.push({ headers: req.headers, body: JSON.parse(raw) })
    const body = bodies.shift()
    if (body === undefined) {
      res.writeHead(500).end('{"type":"error","error":{"type":"api_error","message":"no more turns"}}')
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => server.close())
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received }
}

function setup() {
  const runtime = createRuntime()
  const ran: string[] = []
  const tool = (name: string) =>
    defineTool({
      name,
      description: `The ${name} tool.`,
      parameters: z.object({ title: z.string().optional() }),
      output: textOutput(),
      execute: (args) => {
        ran.push(`${name} ${JSON.stringify(args)}`)
        return `${name} done`
      },
    })
  runtime.register(tool('read'))
  runtime.register(tool('mcp__github__create_issue'))
  runtime.register(tool('mcp__github__list_prs'))
  const deferred = new DeferredTools({ native: true, thresholdBytes: 0 })
  runtime.register(toolSearchTool({ catalog: deferred }))
  return { runtime, deferred, ran }
}

const task: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'File a bug.' }] }]

describe("Anthropic's native tool search", () => {
  it('sends deferred tools with defer_loading and the search tool, and replays the server blocks verbatim', async () => {
    const { runtime, deferred, ran } = setup()
    const api = await anthropicServer([searchTurn, finalTurn])
    const model = createModelClient({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: 'test-key',
      baseUrl: api.baseUrl,
      nativeToolSearch: 'bm25',
    })
    const result = await collectAgent({ model, runtime, messages: task, deferredTools: deferred })
    expect(result.reason).toBe('completed')
    expect(ran).toEqual(['mcp__github__create_issue {"title":"Bug"}'])

    const [first, second] = api.received
    expect(first!.headers['anthropic-beta']).toBe('advanced-tool-use-2025-11-20')
    const declared = (first!.body.tools as { name: string; type?: string; defer_loading?: boolean }[]).map(
      (t) => [t.name, t.type ?? 'custom', t.defer_loading === true],
    )
    expect(declared).toEqual([
      ['mcp__github__create_issue', 'custom', true],
      ['mcp__github__list_prs', 'custom', true],
      ['read', 'custom', false],
      ['tool_search_tool_bm25', 'tool_search_tool_bm25_20251119', false],
    ])
    // No emulated note: the first request carries the task only; tools[] is byte-identical next turn.
    expect(first!.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'File a bug.' }] }])
    expect(JSON.stringify(second!.body.tools)).toBe(JSON.stringify(first!.body.tools))

    expect(second!.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'I will look for a tool.' },
          {
            type: 'server_tool_use',
            id: 'srvtoolu_01',
            name: 'tool_search_tool_bm25',
            input: { query: 'create issue' },
          },
          SEARCH_RESULT,
          { type: 'tool_use', id: 'toolu_01', name: 'mcp__github__create_issue', input: { title: 'Bug' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01',
            content: [{ type: 'text', text: 'mcp__github__create_issue done' }],
            is_error: false,
          },
        ],
      },
    ])
  })

  it('without nativeToolSearch the codec ignores deferLoading; a request whose every tool is deferred falls back to the emulation', () => {
    const encode = (tools: { name: string; deferLoading?: boolean }[], native?: 'bm25') =>
      CODECS.anthropic.encodeRequest(
        {
          messages: task,
          tools: tools.map((t) => ({ ...t, description: t.name, parameters: { type: 'object' } })),
        },
        { model: 'm', maxTokens: 10, stream: false, ...(native ? { nativeToolSearch: native } : {}) },
      )
    const plain = encode([{ name: 'a' }, { name: 'b', deferLoading: true }])
    expect(JSON.stringify(plain.body.tools)).not.toContain('defer_loading')
    expect(plain.headers).toBeUndefined()
    const allDeferred = encode([{ name: 'b', deferLoading: true }], 'bm25')
    expect(JSON.stringify(allDeferred.body.tools)).not.toContain('tool_search_tool')
    // DeferredTools in native mode with only deferrable tools: the emulated plan (tool_search stays).
    const d = new DeferredTools({ native: true, thresholdBytes: 0 })
    const planned = d.plan([
      { name: 'mcp__s__a', description: 'a', parameters: {} },
      { name: 'tool_search', description: 's', parameters: {} },
    ])
    expect(planned.tools.map((t) => t.name)).toEqual(['tool_search'])
    expect(planned.deferred.map((t) => t.name)).toEqual(['mcp__s__a'])
  })

  it('server blocks survive a non-streamed reply, are dropped on other wires, and a use without its result is not replayed', () => {
    const decoded = CODECS.anthropic.decodeResponse({
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_01', name: 'tool_search_tool_bm25', input: { query: 'x' } },
        SEARCH_RESULT,
        { type: 'text', text: 'ok' },
      ],
      stop_reason: 'end_turn',
    })
    expect(decoded.message.parts.map((p) => p.type)).toEqual(['server-block', 'server-block', 'text'])
    const history = (message: AssistantMessage): Message[] => [...task, message]
    for (const provider of ['openai-chat', 'openai-responses'] as const) {
      const body = JSON.stringify(
        CODECS[provider].encodeRequest(
          { messages: history(decoded.message) },
          { model: 'm', maxTokens: 10, stream: false },
        ).body,
      )
      expect(body).not.toContain('srvtoolu_01')
      expect(body).toContain('ok')
    }
    // A reply cut after the server's tool use but before its result.
    const cut: AssistantMessage = {
      role: 'assistant',
      parts: [decoded.message.parts[0]!, { type: 'text', text: 'ok' }],
    }
    const replay = CODECS.anthropic.encodeRequest(
      { messages: history(cut) },
      { model: 'm', maxTokens: 10, stream: false },
    )
    expect((replay.body.messages as { content: object[] }[])[1]!.content).toEqual([
      { type: 'text', text: 'ok' },
    ])
  })
})
