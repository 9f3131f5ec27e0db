import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApprovalService, defineTool, textOutput } from '@toolgate/core'
import { type Message, scriptedModel } from '@toolgate/providers'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  collectAgent,
  ReminderQueue,
  renderReminders,
  resultBudget,
  runAgent,
  sessionTap,
} from '../src/index.js'
import { drain, testRuntime } from './helpers.js'

const task: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'do it' }] }]

describe('ReminderQueue (seed 003 §13.10)', () => {
  it('deduplicates by key, caps per turn and in total', () => {
    const q = new ReminderQueue({ maxPerTurn: 2, maxTotal: 3 })
    expect(q.push({ key: 'a', source: 'policy', text: 'A' })).toBe('queued')
    expect(q.push({ key: 'a', source: 'policy', text: 'A again' })).toBe('duplicate')
    expect(q.push({ key: 'b', source: 'policy', text: 'B' })).toBe('queued')
    expect(q.push({ key: 'c', source: 'jobs', text: 'C' })).toBe('queued')
    expect(q.push({ key: 'd', source: 'jobs', text: 'D' })).toBe('capped')
    expect(q.dropped).toBe(1)
    expect(q.take().map((r) => r.key)).toEqual(['a', 'b'])
    expect(q.take().map((r) => r.key)).toEqual(['c'])
    expect(q.take()).toEqual([])
    // Delivered keys stay deduplicated.
    expect(q.push({ key: 'a', source: 'policy', text: 'A' })).toBe('duplicate')
  })

  it('renders one labelled user message', () => {
    expect(renderReminders([{ key: 'k', source: 'policy', text: 'Stop retrying rm -rf.' }])).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: '<system-reminder source="policy">\nStop retrying rm -rf.\n</system-reminder>',
        },
      ],
    })
    expect(renderReminders([])).toBeUndefined()
  })

  it('the loop injects queued reminders before requests, at most maxPerTurn each turn', async () => {
    const { runtime } = testRuntime()
    const reminders = new ReminderQueue({ maxPerTurn: 1 })
    reminders.push({ key: 'deny:rm', source: 'policy', text: 'rm was denied twice.' })
    reminders.push({ key: 'deny:rm', source: 'policy', text: 'rm was denied twice.' })
    reminders.push({ key: 'deny:curl', source: 'policy', text: 'curl was denied.' })
    const model = scriptedModel([{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'ok' }])
    const run = runAgent({ model, runtime, messages: task, reminders })
    const events = await drain(run)
    const lastOf = (i: number) => model.requests[i]!.messages.at(-1)
    expect(lastOf(0)).toEqual(
      renderReminders([{ key: 'deny:rm', source: 'policy', text: 'rm was denied twice.' }]),
    )
    expect(lastOf(1)).toEqual(
      renderReminders([{ key: 'deny:curl', source: 'policy', text: 'curl was denied.' }]),
    )
    expect(events.filter((e) => e.type === 'reminder').map((e) => e.type === 'reminder' && e.keys)).toEqual([
      ['deny:rm'],
      ['deny:curl'],
    ])
  })

  it('delivers background job notices once, labelled as jobs', async () => {
    const { runtime } = testRuntime()
    const handle = runtime.jobs.start({ kind: 'test', label: 'sleep 0', run: async () => ({ exitCode: 0 }) })
    // Not through jobs.wait: a job whose end the model saw through a wait gets no notice.
    for (let i = 0; i < 100 && runtime.jobs.get(handle.jobId)?.status !== 'completed'; i++) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    const model = scriptedModel([{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'ok' }])
    await collectAgent({ model, runtime, messages: task })
    const first = model.requests[0]!.messages.at(-1)
    expect(first).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text:
            '<system-reminder source="jobs">\nBackground jobs finished since your last step:\n' +
            `- ${handle.jobId} (sleep 0) completed with {"exitCode":0}; read its output with job_output {"job_id":"${handle.jobId}"}.\n</system-reminder>`,
        },
      ],
    })
    // Not repeated on the next turn.
    expect(model.requests[1]!.messages.filter((m) => m.role === 'user')).toHaveLength(2)
  })
})

describe('resultBudget (seed 003 §9.2)', () => {
  const bigText = Array.from(
    { length: 2000 },
    (_, i) => `line ${String(i + 1).padStart(4, '0')} ${'x'.repeat(40)}`,
  ).join('\n')

  function budgetRuntime(spillDir: string) {
    const { runtime } = testRuntime()
    for (const name of ['dump', 'read']) {
      runtime.register(
        defineTool({
          name,
          description: 'Big output.',
          parameters: z.object({}),
          output: textOutput(),
          execute: () => bigText,
        }),
      )
    }
    runtime.use(resultBudget({ spillDir, defaultLimit: 4000 }))
    return runtime
  }

  it('keeps ~70% head and ~30% tail, says what was omitted, spills the full text and says how to read it', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agent-budget-')), 'spill')
    const runtime = budgetRuntime(dir)
    const result = await runtime.execute({ callId: 'big/1', name: 'dump', arguments: {} })
    const files = readdirSync(dir)
    expect(files).toEqual(['dump-big_1-1.txt'])
    const file = join(dir, files[0]!)
    expect(readFileSync(file, 'utf8')).toBe(bigText)
    // The value (and the session log's copy) stays complete; only the model-facing content changed.
    expect(result.value).toBe(bigText)
    expect(result.content).toHaveLength(1)
    const text = (result.content[0] as { text: string }).text
    expect(text.length).toBeLessThanOrEqual(4000 + 100)
    const room = 4000 - 400
    const head = bigText.slice(0, Math.floor(room * 0.7))
    const tail = bigText.slice(bigText.length - (room - Math.floor(room * 0.7)))
    const omitted = bigText.length - head.length - tail.length
    // Lines are 51 characters with their newline: the cut is inside line 50 and inside line 1979.
    expect([
      Math.floor(head.length / 51) + 1,
      Math.floor((bigText.length - tail.length - 1) / 51) + 1,
    ]).toEqual([50, 1979])
    expect(text).toBe(
      `${head}\n\n[... ${omitted} characters omitted (lines 50-1979 of 2000) ...]\n\n${tail}\n\n` +
        `[Output truncated: it has ${bigText.length} characters in 2000 lines. The full output is saved to ${file}. ` +
        `Read the omitted lines with read {"path": ${JSON.stringify(file)}, "offset": <line>, "limit": <lines>}.]`,
    )
  })

  it('exempts read and leaves small results alone', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agent-budget-')), 'spill')
    const runtime = budgetRuntime(dir)
    const read = await runtime.execute({ callId: 'r', name: 'read', arguments: {} })
    expect(read.content).toEqual([{ type: 'text', text: bigText }])
    const small = await runtime.execute({ callId: 's', name: 'echo', arguments: { text: 'hi' } })
    expect(small.content).toEqual([{ type: 'text', text: 'hi' }])
  })

  it('never cuts an MCP tool: its own token limit runs after post-execute, which sees the whole output', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agent-budget-')), 'spill')
    const { runtime } = testRuntime()
    // Stands for the MCP bridge: its finalizeContent applies the token limit (mcp/src/tools/bridge.ts).
    const own = '[the MCP tool limited its own output]'
    runtime.register(
      defineTool({
        name: 'mcp__srv__dump',
        description: 'Big output.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => bigText,
        finalizeContent: () => [{ type: 'text', text: own }],
      }),
    )
    const seen: number[] = []
    runtime.on('tools/post-execute', async (_exec, result, next) => {
      const decision = await next()
      const content = decision.kind === 'accept' && decision.content ? decision.content : result.content
      seen.push((content[0] as { text: string }).text.length)
      return decision
    })
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__srv__dump', arguments: {}, callId: 'm1' }] },
      { text: 'ok' },
    ])
    const result = await collectAgent({
      model,
      runtime,
      messages: task,
      resultBudget: { spillDir: dir, defaultLimit: 2000 },
    })
    const tool = result.appended[1]!
    expect(tool.role === 'tool' ? tool.content : []).toEqual([{ type: 'text', text: own }])
    expect(seen).toEqual([bigText.length])
    expect(existsSync(dir)).toBe(false)
  })

  it('runAgent installs it for the run with spillDir and removes it afterwards', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agent-budget-')), 'spill')
    const { runtime } = testRuntime()
    runtime.register(
      defineTool({
        name: 'dump',
        description: 'Big output.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => bigText,
      }),
    )
    const model = scriptedModel([
      { toolCalls: [{ name: 'dump', arguments: {}, callId: 'd1' }] },
      { text: 'ok' },
    ])
    const result = await collectAgent({
      model,
      runtime,
      messages: task,
      resultBudget: { spillDir: dir, limits: { dump: 2000 } },
    })
    const content = result.appended[1]!.role === 'tool' ? result.appended[1]!.content : []
    expect((content[0] as { text: string }).text.length).toBeLessThan(2100)
    expect(readdirSync(dir)).toEqual(['dump-d1-1.txt'])
    const after = await runtime.execute({ callId: 'later', name: 'dump', arguments: {} })
    expect(after.content).toEqual([{ type: 'text', text: bigText }])
    // A second run with the same call id in the same directory does not overwrite the first spill.
    const again = scriptedModel([
      { toolCalls: [{ name: 'dump', arguments: {}, callId: 'd1' }] },
      { text: 'ok' },
    ])
    await collectAgent({ model: again, runtime, messages: task, spillDir: dir })
    expect(readdirSync(dir).sort()).toEqual(['dump-d1-1.txt', 'dump-d1-2.txt'])
  })
})

describe('approval events', () => {
  it('streams approval/asked and approval/decided for the run’s calls through a session tap', async () => {
    const tap = sessionTap()
    const approval = createApprovalService()
    const answered: string[] = []
    approval.answer((request) => {
      answered.push(request.callId)
      return 'allowed-once'
    })
    const { runtime } = testRuntime({ session: tap, approval })
    runtime.on('tools/pre-execute', (exec, next) =>
      exec.name === 'note'
        ? { kind: 'ask', reason: 'writes a note', displayReason: 'Write a note?' }
        : next(),
    )
    const model = scriptedModel([
      { toolCalls: [{ name: 'note', arguments: { text: 'x' }, callId: 'n1' }] },
      { text: 'ok' },
    ])
    const events = await drain(runAgent({ model, runtime, messages: task, sessionTap: tap }))
    const relevant = events.filter(
      (e) => e.type === 'tool-call' || e.type === 'approval' || e.type === 'tool-result',
    )
    expect(relevant.map((e) => (e.type === 'approval' ? `approval:${e.phase}` : e.type))).toEqual([
      'tool-call',
      'approval:asked',
      'approval:decided',
      'tool-result',
    ])
    expect(relevant[1]).toEqual({
      type: 'approval',
      turn: 1,
      phase: 'asked',
      callId: 'n1',
      toolName: 'note',
      reason: 'writes a note',
      displayReason: 'Write a note?',
    })
    expect(relevant[2]).toEqual({
      type: 'approval',
      turn: 1,
      phase: 'decided',
      callId: 'n1',
      outcome: 'allowed-once',
    })
    expect(answered).toEqual(['n1'])
  })

  it('without a tap, reads them from the session log as calls settle', async () => {
    const approval = createApprovalService()
    approval.answer(() => 'rejected')
    const { runtime } = testRuntime({ approval })
    runtime.on('tools/pre-execute', (exec, next) => (exec.name === 'note' ? { kind: 'ask' } : next()))
    const model = scriptedModel([
      { toolCalls: [{ name: 'note', arguments: { text: 'x' }, callId: 'n1' }] },
      { text: 'ok' },
    ])
    const events = await drain(runAgent({ model, runtime, messages: task }))
    expect(
      events.filter((e) => e.type === 'approval').map((e) => e.type === 'approval' && [e.phase, e.outcome]),
    ).toEqual([
      ['asked', undefined],
      ['decided', 'rejected'],
    ])
  })

  it('without a tap, reports each approval once across turns and calls (only new log events are read)', async () => {
    const approval = createApprovalService()
    approval.answer((request) => (request.callId === 'n2' ? 'rejected' : 'allowed-once'))
    const { runtime } = testRuntime({ approval })
    runtime.on('tools/pre-execute', (exec, next) => (exec.name === 'note' ? { kind: 'ask' } : next()))
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'note', arguments: { text: 'x' }, callId: 'n1' },
          { name: 'echo', arguments: { text: 'y' }, callId: 'e1' },
        ],
      },
      { toolCalls: [{ name: 'note', arguments: { text: 'z' }, callId: 'n2' }] },
      { text: 'ok' },
    ])
    const events = await drain(runAgent({ model, runtime, messages: task }))
    expect(
      events.flatMap((e) => (e.type === 'approval' ? [[e.turn, e.callId, e.phase, e.outcome ?? null]] : [])),
    ).toEqual([
      [1, 'n1', 'asked', null],
      [1, 'n1', 'decided', 'allowed-once'],
      [2, 'n2', 'asked', null],
      [2, 'n2', 'decided', 'rejected'],
    ])
  })
})
