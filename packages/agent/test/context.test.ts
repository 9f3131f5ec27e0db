import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApprovalService, defineTool, textOutput } from '@toolgate/core'
import { type Message, scriptedModel } from '@toolgate/providers'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  collectAgent,
  estimateTokens,
  ReminderQueue,
  renderReminders,
  resultBudget,
  runAgent,
  SpillDirectory,
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
  // 2,000 lines of 50 ASCII characters: ceil(50 / 3.5) + 1 (the newline) = 16 estimated tokens each.
  const lines = Array.from(
    { length: 2000 },
    (_, i) => `line ${String(i + 1).padStart(4, '0')} ${'x'.repeat(40)}`,
  )
  const bigText = lines.join('\n')

  function budgetRuntime(root: string, output = bigText) {
    const { runtime } = testRuntime()
    for (const name of ['dump', 'read']) {
      runtime.register(
        defineTool({
          name,
          description: 'Big output.',
          parameters: z.object({}),
          output: textOutput(),
          execute: () => output,
        }),
      )
    }
    runtime.use(resultBudget({ spillDir: join(root, '.toolgate', 'spill'), root, maxTokens: 1000 }))
    return runtime
  }

  it('keeps whole lines: ~70% of the budget from the head, ~30% from the tail; spills the rest with an exact read call', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-budget-'))
    const runtime = budgetRuntime(root)
    const result = await runtime.execute({ callId: 'big/1', name: 'dump', arguments: {} })
    const dir = join(root, '.toolgate', 'spill')
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', 'dump-big_1-1.txt'])
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('*\n')
    expect(readFileSync(join(dir, 'dump-big_1-1.txt'), 'utf8')).toBe(bigText)
    // The value (and the session log's copy) stays complete; only the model-facing content changed.
    expect(result.value).toBe(bigText)
    // Budget 1000 - 150 for the notices = 850: head 595 tokens = 37 lines, tail 255 = 15 lines.
    const path = '.toolgate/spill/dump-big_1-1.txt'
    expect(result.content).toEqual([
      {
        type: 'text',
        text:
          `${lines.slice(0, 37).join('\n')}\n\n[... lines 38-1985 of 2000 omitted (~31168 tokens) ...]\n\n${lines.slice(1985).join('\n')}\n\n` +
          `[Output truncated: it has 2000 lines (~32000 tokens). The full output is saved to ${path}. ` +
          `Read the omitted lines with read {"path": "${path}", "offset": 38, "limit": 1948}.]`,
      },
    ])
    // What the read call names is exactly what was left out.
    expect(
      readFileSync(join(root, path), 'utf8')
        .split('\n')
        .slice(37, 37 + 1948),
    ).toEqual(lines.slice(37, 1985))
  })

  it('more omitted lines than one read returns: the call asks for 2,000 and says where to continue', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-budget-'))
    const many = Array.from({ length: 5000 }, (_, i) => `l${i + 1}`)
    const runtime = budgetRuntime(root, many.join('\n'))
    const result = await runtime.execute({ callId: 'm', name: 'dump', arguments: {} })
    const text = (result.content[0] as { text: string }).text
    expect(text).toMatch(
      /read \{"path": "\.toolgate\/spill\/dump-m-1\.txt", "offset": (\d+), "limit": 2000\} \(read returns at most 2000 lines per call; continue with offset (\d+)\)\.\]$/,
    )
    const [, offset, next] = /"offset": (\d+).*offset (\d+)\)/.exec(text)!
    expect(Number(next)).toBe(Number(offset) + 2000)
  })

  it('a single line longer than the budget is cut inside, and says so', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-budget-'))
    const runtime = budgetRuntime(root, `{"a":"${'y'.repeat(20_000)}"}`)
    const result = await runtime.execute({ callId: 'one', name: 'dump', arguments: {} })
    const text = (result.content[0] as { text: string }).text
    expect(text.startsWith('{"a":"yyy')).toBe(true)
    expect(text).toContain(' [line 1 cut]\n\n[... lines 1-1 of 1 omitted')
    expect(estimateTokens(text)).toBeLessThanOrEqual(1000)
  })

  it('never writes through a symbolic link planted in the workspace; the notice says the output was not saved', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-budget-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'agent-budget-target-'))
    symlinkSync(elsewhere, join(root, '.toolgate'))
    const runtime = budgetRuntime(root)
    const result = await runtime.execute({ callId: 'l', name: 'dump', arguments: {} })
    expect(readdirSync(elsewhere)).toEqual([])
    expect((result.content[0] as { text: string }).text).toContain(
      `[Output truncated to about 1000 tokens: it has 2000 lines (~32000 tokens). The full output could not be saved (${join(root, '.toolgate')} is a symbolic link; spill files go only into a real directory); re-run the command with narrower output if you need lines 38-1985.]`,
    )
  })

  it('SpillDirectory.copy: a fresh file each time, never over an existing one, never through a link', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-spill-copy-'))
    const source = join(mkdtempSync(join(tmpdir(), 'agent-spill-src-')), 'bash-stdout-1.log')
    writeFileSync(source, 'full output\n')
    const dir = join(root, '.toolgate', 'spill')
    const spill = new SpillDirectory(dir, root)
    // A file already under the first name (written by anyone): skipped, never overwritten.
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'bash-stdout-1-1.txt'), 'theirs')
    expect(await spill.copy('bash-stdout-1', source)).toBe(join(dir, 'bash-stdout-1-2.txt'))
    expect(readFileSync(join(dir, 'bash-stdout-1-1.txt'), 'utf8')).toBe('theirs')
    expect(readFileSync(join(dir, 'bash-stdout-1-2.txt'), 'utf8')).toBe('full output\n')
    const linked = mkdtempSync(join(tmpdir(), 'agent-spill-linked-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'agent-spill-target-'))
    symlinkSync(elsewhere, join(linked, '.toolgate'))
    await expect(
      new SpillDirectory(join(linked, '.toolgate', 'spill'), linked).copy('x', source),
    ).rejects.toThrow(
      `${join(linked, '.toolgate')} is a symbolic link; spill files go only into a real directory`,
    )
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it('exempts read and leaves small results alone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agent-budget-'))
    const runtime = budgetRuntime(root)
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
      resultBudget: { spillDir: dir, maxTokens: 500 },
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
      resultBudget: { spillDir: dir, limits: { dump: 500 } },
    })
    const content = result.appended[1]!.role === 'tool' ? result.appended[1]!.content : []
    expect(estimateTokens((content[0] as { text: string }).text)).toBeLessThanOrEqual(500)
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', 'dump-d1-1.txt'])
    const after = await runtime.execute({ callId: 'later', name: 'dump', arguments: {} })
    expect(after.content).toEqual([{ type: 'text', text: bigText }])
    // A second run with the same call id in the same directory does not overwrite the first spill.
    const again = scriptedModel([
      { toolCalls: [{ name: 'dump', arguments: {}, callId: 'd1' }] },
      { text: 'ok' },
    ])
    await collectAgent({ model: again, runtime, messages: task, spillDir: dir })
    expect(readdirSync(dir).sort()).toEqual(['.gitignore', 'dump-d1-1.txt', 'dump-d1-2.txt'])
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
