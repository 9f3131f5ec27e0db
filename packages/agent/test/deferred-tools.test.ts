import {
  createRuntime,
  defineTool,
  type JsonObject,
  type Runtime,
  type ToolSchema,
  textOutput,
} from '@toolgate/core'
import { anthropicCodec, type Message, scriptedModel } from '@toolgate/providers'
import { toolSearchTool } from '@toolgate/tools'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { knownContextWindow, UNKNOWN_CONTEXT_WINDOW } from '../src/context/context-window.js'
import { DeferredTools, deferredNote, notLoadedMessage } from '../src/context/deferred-tools.js'
import { collectAgent } from '../src/loop/run-agent.js'

const ran: string[] = []

function tool(name: string, description: string, deferLoading?: boolean) {
  return defineTool({
    name,
    description,
    parameters: z.object({ path: z.string().optional() }),
    output: textOutput(),
    ...(deferLoading ? { deferLoading } : {}),
    execute: () => {
      ran.push(name)
      return `${name} ran`
    },
  })
}

function setup(): { runtime: Runtime; deferred: DeferredTools } {
  const runtime = createRuntime()
  const deferred = new DeferredTools()
  runtime.register(tool('read', 'Read a file.'))
  runtime.register(tool('enter_plan_mode', 'Enter plan mode: write a plan file and stop editing.'))
  runtime.register(tool('enter_worktree', 'Create an isolated git worktree and enter it.', true))
  runtime.register(toolSearchTool({ catalog: deferred }))
  return { runtime, deferred }
}

const SYSTEM = 'You are a coding agent. Use the tools you are given.'

describe('seed 003 §10.5: the prefix-collapse incident cannot happen here', () => {
  it('a deferred tool is never listed like a loaded one, a direct call is refused, and loading appends it', async () => {
    ran.length = 0
    const { runtime, deferred } = setup()
    const model = scriptedModel([
      // The incident: the model "knows" enter_worktree and calls it without its schema.
      { toolCalls: [{ name: 'enter_worktree', arguments: {} }] },
      { toolCalls: [{ name: 'tool_search', arguments: { query: 'select:enter_worktree' } }] },
      { toolCalls: [{ name: 'enter_worktree', arguments: {} }] },
      { text: 'Done.' },
    ])
    const result = await collectAgent({
      model,
      runtime,
      system: SYSTEM,
      deferredTools: deferred,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Work in an isolated worktree.' }] }],
    })
    expect(result.reason).toBe('completed')
    // enter_plan_mode (the only tool sharing the enter_ prefix) never ran; the real one ran once, loaded.
    expect(ran).toEqual(['enter_worktree'])

    const names = (r: { tools?: readonly ToolSchema[] }) => (r.tools ?? []).map((t) => t.name)
    const [first, second, third] = model.requests
    expect(names(first!)).toEqual(['enter_plan_mode', 'read', 'tool_search'])
    expect(names(second!)).toEqual(['enter_plan_mode', 'read', 'tool_search'])
    expect(names(third!)).toEqual(['enter_plan_mode', 'read', 'tool_search', 'enter_worktree'])
    // The name reaches the model only in the dynamic note, marked as not loaded.
    const system = first!.messages[0]
    expect(system).toEqual({ role: 'system', content: SYSTEM })
    const texts = (m: Message) =>
      'content' in m && Array.isArray(m.content)
        ? m.content.map((b) => ('text' in b ? b.text : '')).join('')
        : ''
    expect(first!.messages.slice(1).map(texts)).toEqual([
      'Work in an isolated worktree.',
      deferredNote(['enter_worktree'], false),
    ])
    expect(deferredNote(['enter_worktree'], false)).toBe(
      '<deferred-tools>\nThese tools exist but are NOT loaded: you cannot call them yet. To use one, first call tool_search with "select:<name>"; it can be called from your next step on.\n- enter_worktree\n</deferred-tools>',
    )
    // The direct call was answered with what to do, not run.
    const refused = result.messages.find((m) => m.role === 'tool' && m.name === 'enter_worktree')
    expect(refused).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: notLoadedMessage('enter_worktree') }],
    })

    // The static prefix is byte-identical before and after the activation: the system prompt and
    // every tool declaration sent before stay; the loaded tool is appended at the end.
    const encode = (r: typeof first) =>
      anthropicCodec.encodeRequest(r!, { model: 'm', maxTokens: 100, stream: false }).body as JsonObject
    const before = encode(first)
    const after = encode(third)
    expect(after.system).toBe(before.system)
    const beforeTools = JSON.stringify(before.tools)
    expect(JSON.stringify(after.tools).startsWith(beforeTools.slice(0, -1))).toBe(true)
    expect(JSON.stringify(before)).not.toContain('enter_worktree"') // not in tools[] nor system
  })
})

describe('announcements are incremental, and complete again after compaction', () => {
  it('announces new names only; a history without the earlier notes gets everything again', () => {
    const d = new DeferredTools()
    const schema = (name: string, deferLoading = true): ToolSchema => ({
      name,
      description: name,
      parameters: { type: 'object' },
      deferLoading,
    })
    const history: Message[] = []
    d.plan([schema('a'), schema('b')])
    const n1 = d.announce(history)!
    history.push(n1)
    expect(n1.content[0]).toEqual({ type: 'text', text: deferredNote(['a', 'b'], false) })
    d.plan([schema('a'), schema('b')])
    expect(d.announce(history)).toBeUndefined()
    d.plan([schema('a'), schema('b'), schema('c')])
    const n2 = d.announce(history)!
    history.push(n2)
    expect(n2.content[0]).toEqual({ type: 'text', text: deferredNote(['c'], false) })
    // b was loaded, d's server left: both silently gone from later notes.
    d.activate(['b'])
    // Compaction: the earlier notes are no longer in the history.
    const compacted: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'summary of the conversation' }] },
    ]
    d.plan([schema('a'), schema('b'), schema('c')])
    const n3 = d.announce(compacted)!
    expect(n3.content[0]).toEqual({ type: 'text', text: deferredNote(['a', 'c'], false) })
  })

  it('defers MCP tools only once the declarations pass the threshold; a tool once sent stays', () => {
    const mcp = (i: number): ToolSchema => ({
      name: `mcp__srv__op_${i}`,
      description: 'x'.repeat(100),
      parameters: { type: 'object' },
    })
    const d = new DeferredTools({ thresholdBytes: 2_000 })
    const few = [mcp(1), mcp(2)]
    expect(d.plan(few).tools.map((t) => t.name)).toEqual(['mcp__srv__op_1', 'mcp__srv__op_2'])
    const many = Array.from({ length: 30 }, (_, i) => mcp(i + 1))
    const planned = d.plan(many)
    expect(planned.tools.map((t) => t.name)).toEqual(['mcp__srv__op_1', 'mcp__srv__op_2'])
    expect(planned.deferred).toHaveLength(28)
  })

  it("the threshold is 10% of the model's context window at ~4 bytes per token", () => {
    expect([
      knownContextWindow('claude-sonnet-4-5'),
      knownContextWindow('anthropic/claude-opus-4-1'),
      knownContextWindow('gpt-4o-mini'),
      knownContextWindow('gpt-4.1'),
      knownContextWindow('my-local-model'),
    ]).toEqual([200_000, 200_000, 128_000, 1_047_576, undefined])
    // 32,768 tokens -> 13,107 bytes of declarations before MCP tools are deferred.
    const tools = (n: number): ToolSchema[] =>
      Array.from({ length: n }, (_, i) => ({
        name: `mcp__srv__op_${String(i).padStart(3, '0')}`,
        description: 'x'.repeat(71),
        parameters: {},
      }))
    expect(JSON.stringify(tools(1)[0]).length).toBe(131)
    expect(
      new DeferredTools({ contextWindowTokens: UNKNOWN_CONTEXT_WINDOW }).plan(tools(100)).deferred,
    ).toEqual([])
    expect(
      new DeferredTools({ contextWindowTokens: UNKNOWN_CONTEXT_WINDOW }).plan(tools(101)).deferred,
    ).toHaveLength(101)
    expect(new DeferredTools({ contextWindowTokens: 200_000 }).plan(tools(101)).deferred).toEqual([])
  })
})

describe('tool_search', () => {
  function catalog(names: string[], pending: string[] = []) {
    const runtime = createRuntime()
    const d = new DeferredTools()
    d.plan(
      names.map((name) => ({
        name,
        description: name === 'mcp__notes__sync' ? 'Sync notes that are already stored.' : `Does ${name}.`,
        parameters: { type: 'object' },
        deferLoading: true,
      })),
    )
    runtime.register(toolSearchTool({ catalog: d, pendingServers: () => pending }))
    const search = async (query: string) => {
      const r = await runtime.execute({ callId: 'q', name: 'tool_search', arguments: { query } })
      return r.content.map((b) => ('text' in b ? b.text : '')).join('')
    }
    return { d, search }
  }

  it('splits names, matches on word boundaries, weights the server name, honours +required', async () => {
    const { search } = catalog([
      'mcp__github__create_issue',
      'mcp__github__list_pull_requests',
      'mcp__jira__createIssue',
      'mcp__notes__sync',
      'cron_create',
    ])
    expect(await search('create issue')).toBe(
      [
        'Deferred tools matching "create issue" (not loaded yet):',
        '- mcp__github__create_issue: Does mcp__github__create_issue.',
        '- mcp__jira__createIssue: Does mcp__jira__createIssue.',
        '- cron_create: Does cron_create.',
        'Load one with tool_search "select:<name>" (several: "select:a,b"); it can be called from your next step on.',
      ].join('\n'),
    )
    expect(await search('+github issue')).toContain('- mcp__github__create_issue')
    expect(await search('+github issue')).not.toContain('jira')
    expect(await search('read')).toBe(
      'No deferred tool matches "read". Try other words, or do the task with the tools you have.',
    )
  })

  it('says which servers are still connecting when nothing matches', async () => {
    const { search } = catalog(['cron_create'], ['slack', 'github'])
    expect(await search('send message')).toBe(
      'No deferred tool matches "send message". Tool servers still connecting: github, slack. Their tools are not listed yet; search again in a moment.',
    )
  })

  it('select: loads exact names and says what it could not load', async () => {
    const { d, search } = catalog(['cron_create', 'cron_list'])
    expect(await search('select:cron_create,nope')).toBe(
      'Loaded cron_create. It can be called from your next step on.\nNo deferred tool is named "nope". Search with keywords to find the exact name.',
    )
    expect(d.isDeferred('cron_create')).toBe(false)
    expect(d.isDeferred('cron_list')).toBe(true)
  })
})
