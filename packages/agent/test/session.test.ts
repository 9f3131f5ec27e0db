// The conversation as a session log records it: rebuilt exactly (elisions, compactions, hints and
// cut replies included), calls that never got a result answered as interrupted; the ask_user and
// task tools.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApprovalService, defineTool, type JsonValue, textOutput } from '@toolgate/core'
import { type Message, type ModelRequest, type ScriptedTurn, scriptedModel } from '@toolgate/providers'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { COMPACTION_PROMPT } from '../src/context/compaction-prompts.js'
import {
  askUserTool,
  collectAgent,
  HEADLESS_ANSWER,
  INTERRUPTED_TEXT,
  rebuildHistory,
  SpillDirectory,
  taskTool,
} from '../src/index.js'
import { assertValidHistory, testRuntime } from './helpers.js'

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] })

describe('rebuildHistory', () => {
  it('rebuilds exactly the history two runs ended with: hints, a cut reply, elisions and a compaction', async () => {
    const { runtime } = testRuntime()
    const rows = Array.from({ length: 400 }, (_, i) => `row ${i} ${'q'.repeat(40)}`).join('\n')
    runtime.register(
      defineTool({
        name: 'dump',
        description: 'Rows.',
        parameters: z.object({ n: z.number() }),
        output: textOutput(),
        execute: (args) => `${args.n}\n${rows}`,
      }),
    )
    const root = mkdtempSync(join(tmpdir(), 'agent-rebuild-'))
    const reply = (turns: ScriptedTurn[]) => {
      let i = 0
      return (r: ModelRequest): ScriptedTurn => {
        const last = r.messages.at(-1)
        if (
          last?.role === 'user' &&
          last.content[0]?.type === 'text' &&
          last.content[0].text === COMPACTION_PROMPT
        )
          return { text: 'Summary: dumped rows.' }
        return turns[i++] ?? { text: 'done' }
      }
    }
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: 'echo', arguments: {} }] }, // empty arguments: a hint
      { toolCalls: [{ name: 'echo', arguments: { text: 'cut' } }], stopReason: 'max_tokens' }, // cut: not run
      // Big results (elided once old) and long texts (which only a compaction can shrink).
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({
        text: `Dump ${n}. ${'t'.repeat(8000)}`,
        toolCalls: [{ name: 'dump', arguments: { n } }],
      })),
      { text: 'First run done.' },
    ]
    const context = {
      window: 20_000,
      elideAt: 0.3,
      keepTurns: 1,
      spill: { dir: new SpillDirectory(join(root, 'spill'), root), root },
      afterCompaction: () => [user('<deferred-tools>x</deferred-tools>')],
    }
    const fn = reply(turns)
    const model = scriptedModel(Array.from({ length: 30 }, () => fn))
    // The host logs the user's messages; the runs log everything they append.
    const first = user('Dump the rows.')
    runtime.session.append('agent/message', { message: first as unknown as JsonValue })
    const a = await collectAgent({
      model,
      runtime,
      messages: [first],
      transcript: true,
      context,
      request: { maxTokens: 500 },
    })
    expect(a.reason).toBe('completed')
    const second = user('Now say hi.')
    runtime.session.append('agent/message', { message: second as unknown as JsonValue })
    const b = await collectAgent({
      model,
      runtime,
      messages: [...a.messages, second],
      transcript: true,
      context,
      request: { maxTokens: 500 },
    })
    expect(b.reason).toBe('completed')
    const types = runtime.session.events().map((e) => e.type)
    expect(types).toContain('agent/elided')
    expect(types).toContain('agent/compacted')
    expect(types).toContain('agent/empty-args-hint')
    expect(types).toContain('agent/truncated-calls')
    const rebuilt = rebuildHistory(runtime.session.events())
    expect(rebuilt.messages).toEqual(b.messages)
    expect(rebuilt.completed).toEqual([])
  })

  it('a call without a result gets its logged tool/result, else an interrupted one', () => {
    const calls: Message = {
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Two things.' },
        { type: 'tool-call', callId: 'c1', name: 'read', arguments: '{"path":"a"}' },
        { type: 'tool-call', callId: 'c2', name: 'bash', arguments: '{"command":"make"}' },
      ],
    }
    const events = [
      { type: 'session/start', provider: 'anthropic' },
      { type: 'agent/message', message: user('Build it.') },
      { type: 'agent/message', message: calls },
      { type: 'tool/call', callId: 'c1', name: 'read' },
      { type: 'tool/call', callId: 'c2', name: 'bash' },
      {
        type: 'tool/result',
        callId: 'c1',
        name: 'read',
        isError: false,
        content: [{ type: 'text', text: 'A' }],
      },
      // the process died while c2 ran
    ] as unknown as { type: string; [k: string]: JsonValue }[]
    const rebuilt = rebuildHistory(events)
    const results = [
      { role: 'tool', callId: 'c1', name: 'read', content: [{ type: 'text', text: 'A' }], isError: false },
      {
        role: 'tool',
        callId: 'c2',
        name: 'bash',
        content: [{ type: 'text', text: INTERRUPTED_TEXT }],
        isError: true,
      },
    ]
    expect(rebuilt.messages).toEqual([user('Build it.'), calls, ...results])
    expect(rebuilt.completed).toEqual(results)
    assertValidHistory(rebuilt.messages)
    expect(INTERRUPTED_TEXT).toBe(
      'This call was interrupted: the session ended while it was running, so whether it took effect is unknown. Check before you repeat it.',
    )
  })
})

describe('ask_user', () => {
  it('headless: says no one can answer; with an answerer: the answer', async () => {
    for (const [ask, expected] of [
      [undefined, HEADLESS_ANSWER],
      [async (q: { choices?: readonly string[] }) => q.choices?.[1], 'The user answered: B'],
    ] as const) {
      const { runtime } = testRuntime()
      runtime.use(askUserTool(ask ? { ask } : {}))
      const r = await runtime.execute({
        callId: 'q',
        name: 'ask_user',
        arguments: { question: 'A or B?', choices: ['A', 'B'] },
      })
      expect(r.content).toEqual([{ type: 'text', text: expected }])
    }
    expect(HEADLESS_ANSWER).toBe(
      'No one can answer: this session has no person at a terminal. Decide yourself, go on, and say in your final answer what you decided and why.',
    )
  })
})

describe('task (sub-agent)', () => {
  it('returns only the conclusion; child calls are logged under the task call, restricted, and go through approvals', async () => {
    const approval = createApprovalService()
    const asked: string[] = []
    approval.answer(async (request) => {
      asked.push(`${request.toolName}:${request.callId}`)
      return 'allowed-once' as const
    })
    const { runtime } = testRuntime({ approval })
    // Policy shared with the parent: every note asks.
    runtime.on('tools/pre-execute', (exec, next) =>
      exec.name === 'note' ? { kind: 'ask', reason: 'notes ask' } : next(),
    )
    const sub = scriptedModel([
      {
        text: 'Looking.',
        toolCalls: [
          { name: 'echo', arguments: { text: 'inside' }, callId: 's1' },
          { name: 'wait', arguments: {}, callId: 's2' },
        ],
      },
      { toolCalls: [{ name: 'note', arguments: { text: 'n' }, callId: 's3' }] },
      { text: 'The answer is 42.' },
    ])
    runtime.use(taskTool({ model: sub, allowTools: ['echo', 'note'], defaultTools: ['echo', 'note'] }))
    const parent = scriptedModel([
      {
        toolCalls: [
          { name: 'task', arguments: { description: 'find it', prompt: 'Find the answer.' }, callId: 't1' },
        ],
      },
      (r) => ({ text: `Got: ${JSON.stringify(r.messages.at(-1))}` }),
    ])
    const result = await collectAgent({ model: parent, runtime, messages: [user('Go.')] })
    expect(result.reason).toBe('completed')
    const tool = result.messages.find((m) => m.role === 'tool')
    expect(tool).toEqual({
      role: 'tool',
      callId: 't1',
      name: 'task',
      content: [{ type: 'text', text: 'The answer is 42.' }],
      isError: false,
    })
    // Nothing of the sub-agent's work entered the parent's history.
    expect(JSON.stringify(result.messages)).not.toContain('inside')
    const children = runtime.session.events().filter((e) => e.type === 'tool/call' && e.parentCallId === 't1')
    expect(children.map((e) => [e.callId, e.name, e.agent])).toEqual([
      ['s1', 'echo', 'task:t1'],
      ['s2', 'wait', 'task:t1'],
      ['s3', 'note', 'task:t1'],
    ])
    const results = runtime.session
      .events()
      .filter((e) => e.type === 'tool/result' && ['s1', 's2', 's3'].includes(String(e.callId)))
    // wait is not in the chosen tools: the sub-agent's scope does not see it.
    expect(
      results.map((e) => [e.callId, e.isError, (e.error as { code?: string } | undefined)?.code]),
    ).toEqual([
      ['s1', false, undefined],
      ['s2', true, 'UNKNOWN_TOOL'],
      ['s3', false, undefined],
    ])
    expect(asked).toEqual(['note:s3'])
    assertValidHistory(result.messages)
  })

  it('shares the task call’s cancellation: aborting the parent stops the sub-agent', async () => {
    const { runtime, log } = testRuntime({}, {})
    let started!: () => void
    const running = new Promise<void>((r) => {
      started = r
    })
    runtime.on('tools/execute', (exec, next) => {
      if (exec.name === 'wait') started()
      return next()
    })
    runtime.use(
      taskTool({
        model: scriptedModel([{ toolCalls: [{ name: 'wait', arguments: {}, callId: 'w' }] }]),
        allowTools: ['wait'],
      }),
    )
    const controller = new AbortController()
    const parent = scriptedModel([
      { toolCalls: [{ name: 'task', arguments: { description: 'wait', prompt: 'Wait.' }, callId: 't' }] },
    ])
    const done = collectAgent({ model: parent, runtime, messages: [user('Go.')], signal: controller.signal })
    await running
    controller.abort(new Error('user'))
    const result = await done
    expect(result.reason).toBe('aborted')
    expect(log.started).toEqual(['wait'])
    const waitResult = runtime.session.events().find((e) => e.type === 'tool/result' && e.callId === 'w')
    expect(waitResult?.error).toMatchObject({ kind: 'aborted' })
  })
})
