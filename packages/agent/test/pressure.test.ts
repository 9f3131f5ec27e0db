// Context management and the termination set, on scripted sessions: every request is checked as
// it is sent (fits the window, pairs every call with its result), and every stop has its reason.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineTool, textOutput } from '@toolgate/core'
import {
  type Message,
  type ModelClient,
  type ModelRequest,
  ProviderTimeoutError,
  type ScriptedTurn,
  scriptedModel,
} from '@toolgate/providers'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { COMPACTION_PROMPT } from '../src/context/compaction-prompts.js'
import { estimateTokens, messagesTokens } from '../src/context/tokens.js'
import { collectAgent, runAgent } from '../src/index.js'
import { assertValidHistory, drain, testRuntime } from './helpers.js'

const task: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Work through the data.' }] }]

/** What a request would cost by the loop's own estimate (system, tools, messages). */
function requestTokens(r: ModelRequest): number {
  const system = r.messages.find((m) => m.role === 'system')
  return (
    (system?.role === 'system' ? estimateTokens(system.content) + 4 : 0) +
    estimateTokens(JSON.stringify(r.tools ?? [])) +
    messagesTokens(r.messages.filter((m) => m.role !== 'system'))
  )
}

const isSummaryRequest = (r: ModelRequest) => {
  const last = r.messages.at(-1)
  return (
    last?.role === 'user' && last.content[0]?.type === 'text' && last.content[0].text === COMPACTION_PROMPT
  )
}

describe('context pressure (seed 003 §4.3, §9)', () => {
  it('a scripted 300-turn session with large outputs never exceeds the window and never sends an unpaired call or result', async () => {
    const WINDOW = 24_000
    const MAX_OUTPUT = 1_000
    const { runtime } = testRuntime()
    runtime.register(
      defineTool({
        name: 'dump',
        description: 'Print a chunk of the data set.',
        parameters: z.object({ chunk: z.number() }),
        output: textOutput(),
        isConcurrencySafe: () => true,
        execute: (args) =>
          Array.from({ length: 800 }, (_, i) => `chunk ${args.chunk} row ${i} ${'v'.repeat(30)}`).join('\n'),
      }),
    )
    const root = mkdtempSync(join(tmpdir(), 'agent-pressure-'))
    let turns = 0
    let summaries = 0
    const seen: ModelRequest[] = []
    const reply = (request: ModelRequest): ScriptedTurn => {
      seen.push(request)
      // Checked as it is sent: inside the usable window, and every call paired with its result.
      expect(requestTokens(request) + MAX_OUTPUT).toBeLessThanOrEqual(WINDOW)
      assertValidHistory(request.messages.filter((m) => m.role !== 'system'))
      const usage = {
        inputTokens: requestTokens(request),
        promptTokens: requestTokens(request),
        outputTokens: 40,
      }
      if (isSummaryRequest(request)) {
        summaries++
        expect(request.toolChoice).toBe('none')
        return { text: `Summary ${summaries}: dumped chunks up to ${turns}; keep going.`, usage }
      }
      turns++
      if (turns > 300) return { text: 'All chunks dumped.', usage }
      return {
        text: `Chunk ${turns}.`,
        toolCalls: [
          { name: 'dump', arguments: { chunk: turns }, callId: `d${turns}a` },
          { name: 'dump', arguments: { chunk: turns + 0.5 }, callId: `d${turns}b` },
        ],
        usage,
      }
    }
    const model = scriptedModel(Array.from({ length: 400 }, () => reply))
    const announcement: Message = {
      role: 'user',
      content: [{ type: 'text', text: '<deferred-tools>\nsearch_docs\n</deferred-tools>' }],
    }
    const run = runAgent({
      model,
      runtime,
      messages: task,
      system: 'You dump data.',
      maxTurns: 400,
      request: { maxTokens: MAX_OUTPUT },
      resultBudget: { spillDir: join(root, '.toolgate', 'spill'), root, maxTokens: 1500 },
      context: {
        window: WINDOW,
        spill: {
          dir: new (await import('../src/index.js')).SpillDirectory(join(root, '.toolgate', 'spill'), root),
          root,
        },
        afterCompaction: () => [announcement],
      },
    })
    const events = await drain(run)
    const result = await run.result
    expect(result.reason).toBe('completed')
    expect(turns).toBe(301)
    assertValidHistory(result.messages)
    const context = events.filter((e) => e.type === 'context')
    expect(context.filter((e) => e.action === 'elided').length).toBeGreaterThan(0)
    expect(context.filter((e) => e.action === 'compacted').length).toBe(summaries)
    expect(summaries).toBeGreaterThan(0)
    // Every compaction is logged with the summary that replaced the turns, and the announcement is
    // replayed right after each summary.
    const logged = runtime.session.events().filter((e) => e.type === 'agent/compacted')
    expect(logged.length).toBe(summaries)
    for (const r of seen.filter((q) => !isSummaryRequest(q))) {
      const at = r.messages.findIndex(
        (m) =>
          m.role === 'user' &&
          m.content[0]?.type === 'text' &&
          m.content[0].text.startsWith('<conversation-summary>'),
      )
      if (at >= 0) expect(r.messages[at + 1]).toEqual(announcement)
    }
    const last = result.messages[0]!
    expect(last.role === 'user' && last.content[0]?.type === 'text' && last.content[0].text).toMatch(
      /^<conversation-summary>\nThe \d+ earliest messages of this conversation were replaced by this summary, which you wrote when the context grew too large\.\n\nSummary \d+: dumped chunks up to \d+; keep going\.\n<\/conversation-summary>$/,
    )
  }, 120_000)

  it('elided results keep a stub that names the saved file and the read call', async () => {
    const { runtime } = testRuntime()
    const body = Array.from({ length: 300 }, (_, i) => `row ${i} ${'w'.repeat(40)}`).join('\n')
    runtime.register(
      defineTool({
        name: 'dump',
        description: 'Print rows.',
        parameters: z.object({ n: z.number() }),
        output: textOutput(),
        execute: (args) => `${args.n}\n${body}`,
      }),
    )
    const root = mkdtempSync(join(tmpdir(), 'agent-elide-'))
    const { SpillDirectory } = await import('../src/index.js')
    const spill = new SpillDirectory(join(root, '.toolgate', 'spill'), root)
    const model = scriptedModel([
      ...[1, 2, 3, 4].map((n) => ({ toolCalls: [{ name: 'dump', arguments: { n }, callId: `c${n}` }] })),
      { text: 'done' },
    ])
    const result = await collectAgent({
      model,
      runtime,
      messages: task,
      request: { maxTokens: 500 },
      context: { window: 12_000, spill: { dir: spill, root }, keepTurns: 1 },
    })
    expect(result.reason).toBe('completed')
    const stubs = result.messages.filter(
      (m) =>
        m.role === 'tool' &&
        m.content[0]?.type === 'text' &&
        m.content[0].text.startsWith('[This dump result'),
    )
    expect(stubs.length).toBeGreaterThan(0)
    const first = stubs[0]!
    // 14,591 bytes of text -> ceil(14591 / 3.5) = 4169 tokens, + 11 for the message, block and call id.
    expect(first.role === 'tool' && first.content).toEqual([
      {
        type: 'text',
        text: `[This dump result (301 lines, ~4180 tokens) was removed from the conversation to save context. It is saved at .toolgate/spill/elided-dump-c1-1.txt; to see it again: read {"path": ".toolgate/spill/elided-dump-c1-1.txt", "offset": 1, "limit": 301}.]`,
      },
    ])
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(join(root, '.toolgate/spill/elided-dump-c1-1.txt'), 'utf8')).toBe(`1\n${body}`)
    const logged = runtime.session.events().find((e) => e.type === 'agent/elided')
    expect(logged).toMatchObject({ results: [{ callId: 'c1', name: 'dump', tokens: 4180 }] })
  })

  it('a task that cannot fit the window stops before any request: context_overflow', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([{ text: 'never' }])
    const huge: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(40_000) }] }]
    const result = await collectAgent({ model, runtime, messages: huge, context: { window: 4000 } })
    expect(result.reason).toBe('context_overflow')
    expect(result.message).toMatch(
      /^stopped before request 1: it would hold about \d+ tokens and the context window leaves 3000 for input \(window 4000, 8192 reserved for the reply\), even after eliding every tool result and compacting$/,
    )
    expect(model.requests).toEqual([])
  })
})

describe('termination set (seed 003 §4.4)', () => {
  it('loop detection: the same call with the same result — a reminder at 3, a stop at 5', async () => {
    const { runtime } = testRuntime()
    const same = { toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] }
    const model = scriptedModel(Array.from({ length: 8 }, () => same))
    const run = runAgent({ model, runtime, messages: task })
    const events = await drain(run)
    const result = await run.result
    expect(result.reason).toBe('loop_detected')
    expect(result.message).toBe(
      'stopped: echo was called 5 times in a row with the same arguments and got the same result each time (loop detection)',
    )
    expect(model.requests.length).toBe(5)
    const reminders = events.filter((e) => e.type === 'reminder')
    expect(reminders.map((e) => e.type === 'reminder' && e.text)).toEqual([
      '<system-reminder source="loop-detection">\nYou called echo 3 times in a row with the same arguments and got the same result each time; calling it again will not change it. Use the result you have, try a different approach, or stop and say what is blocking you.\n</system-reminder>',
    ])
    assertValidHistory(result.messages)
  })

  it('no progress: calls that only fail, with arguments tweaked each time — a reminder at 6, a stop at 10', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel(
      Array.from({ length: 12 }, (_, i) => ({ toolCalls: [{ name: 'nope', arguments: { attempt: i } }] })),
    )
    const run = runAgent({ model, runtime, messages: task })
    const events = await drain(run)
    const result = await run.result
    expect(result.reason).toBe('no_progress')
    expect(result.message).toBe(
      'stopped: 10 turns in a row brought no successful result that had not been seen before (no-progress detection)',
    )
    expect(model.requests.length).toBe(10)
    expect(events.filter((e) => e.type === 'reminder').map((e) => e.type === 'reminder' && e.keys)).toEqual([
      ['idle:6'],
    ])
  })

  it('a first-byte or idle timeout stops with timeout — also when the abort signal fired at the same moment', async () => {
    for (const abortToo of [false, true]) {
      const { runtime } = testRuntime()
      const controller = new AbortController()
      const model: ModelClient = {
        provider: 'scripted',
        model: 'slow',
        // biome-ignore lint/correctness/useYield: the stream fails before its first event
        async *stream() {
          if (abortToo) controller.abort(new Error('user'))
          throw new ProviderTimeoutError(5000, 'response')
        },
      }
      const result = await collectAgent({ model, runtime, messages: task, signal: controller.signal })
      expect(result.reason).toBe('timeout')
      expect(result.failure).toEqual({ source: 'provider', kind: 'timeout' })
      expect(result.message).toBe(
        'the model did not answer in time: no response within 5000 ms (timeoutMs). The server may be overloaded; try again or raise timeoutMs.',
      )
    }
  })

  it('the abort signal outranks max turns', async () => {
    const { runtime } = testRuntime()
    const controller = new AbortController()
    const model = scriptedModel([
      (r) => {
        controller.abort(new Error('user'))
        return { toolCalls: [{ name: 'echo', arguments: { text: String(r.messages.length) } }] }
      },
    ])
    const result = await collectAgent({
      model,
      runtime,
      messages: task,
      maxTurns: 1,
      signal: controller.signal,
    })
    expect(result.reason).toBe('aborted')
  })
})
