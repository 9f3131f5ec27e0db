import type { ToolResult } from '@toolgate/core'
import type { ToolCallPart } from '@toolgate/providers'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ProgressWatch } from '../src/loop/progress.js'

// The specification of ProgressWatch's verdicts, written the plain way: a call repeats the one
// before it when tool, arguments by value (key order and whitespace aside) and result (error flag
// and text) are all equal, and a repeat within the same turn counts once; a turn progresses when some call succeeds with a result (per tool) not
// seen before. The watch compares lazily and keys short results verbatim; it must answer exactly
// what this answers, turn after turn.
function reference(turns: readonly { calls: ToolCallPart[]; results: ToolResult[] }[]) {
  let lastKey: string | undefined
  let lastTurn = -1
  let streak = 0
  let idle = 0
  const seen = new Set<string>()
  const verdicts: string[] = []
  for (const [t, { calls, results }] of turns.entries()) {
    let verdict: string | undefined
    let progressed = false
    const reminders: string[] = []
    for (const [i, call] of calls.entries()) {
      const r = results[i]!
      const resultKey = `${r.isError ? 'E' : 'O'}\u0000${text(r)}`
      const key = `${call.name}\u0000${canonical(call.arguments)}\u0000${resultKey}`
      if (key === lastKey && lastTurn === t) continue
      streak = key === lastKey ? streak + 1 : 1
      lastKey = key
      lastTurn = t
      if (streak >= 5) {
        verdict = `stop loop_detected ${call.name} ${streak}`
        break
      }
      if (streak === 3) reminders.push('loop-detection')
      const novel = !seen.has(`${call.name}\u0000${resultKey}`)
      seen.add(`${call.name}\u0000${resultKey}`)
      if (!r.isError && novel) progressed = true
    }
    if (verdict === undefined && calls.length > 0) {
      idle = progressed ? 0 : idle + 1
      if (idle >= 10) verdict = `stop no_progress ${idle}`
      else if (idle === 6) reminders.push('progress')
    }
    verdicts.push(verdict ?? `ok ${reminders.join(',')}`)
    if (verdict !== undefined) break
  }
  return verdicts
}

function canonical(raw: string): string {
  const stable = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(stable).join(',')}]`
      : v !== null && typeof v === 'object'
        ? `{${Object.keys(v)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
            .join(',')}}`
        : JSON.stringify(v)
  try {
    return stable(JSON.parse(raw))
  } catch {
    return raw
  }
}

function text(r: ToolResult): string {
  return r.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
}

function observeAll(turns: readonly { calls: ToolCallPart[]; results: ToolResult[] }[]) {
  const watch = new ProgressWatch()
  const verdicts: string[] = []
  for (const { calls, results } of turns) {
    const v = watch.observe(calls, results)
    if (v.kind === 'stop') {
      const n = /(\d+) (?:times|turns)/.exec(v.message)?.[1]
      verdicts.push(`stop ${v.reason} ${v.reason === 'loop_detected' ? `${calls[0]!.name} ` : ''}${n}`)
      break
    }
    verdicts.push(`ok ${v.reminders.map((r) => r.source).join(',')}`)
  }
  return verdicts
}

// Few distinct values, so repeats (and key-order variants of the same arguments) are common; one
// long text so the digest path is taken too.
const argsText = fc.constantFrom(
  '{"a":1,"b":2}',
  '{"b":2,"a":1}',
  '{ "a": 1, "b": 2 }',
  '{"a":1}',
  'not json',
  '',
)
const resultText = fc.constantFrom('same', 'other', 'x'.repeat(100), `${'x'.repeat(99)}y`)
const call = fc.record({
  name: fc.constantFrom('read', 'grep'),
  args: argsText,
  text: resultText,
  isError: fc.boolean(),
})
const turns = fc.array(fc.array(call, { maxLength: 8 }), { maxLength: 16 }).map((ts) =>
  ts.map((cs, t) => ({
    calls: cs.map(
      (c, i): ToolCallPart => ({ type: 'tool-call', callId: `c${t}_${i}`, name: c.name, arguments: c.args }),
    ),
    results: cs.map(
      (c, i): ToolResult => ({
        callId: `c${t}_${i}`,
        name: c.name,
        isError: c.isError,
        content: [{ type: 'text', text: c.text }],
        timing: { startedAt: 0, durationMs: 0 },
      }),
    ),
  })),
)

describe('ProgressWatch', () => {
  it('answers every turn exactly what the plain comparison of whole keys answers', () => {
    fc.assert(
      fc.property(turns, (ts) => {
        expect(observeAll(ts)).toEqual(reference(ts))
      }),
      { numRuns: 1000 },
    )
  })

  it('counts arguments that differ only in key order and whitespace as the same call', () => {
    const watch = new ProgressWatch()
    const args = ['{"a":1,"b":2}', '{"b":2,"a":1}', '{ "a": 1, "b": 2 }', '{"b": 2, "a": 1}', '{"a":1,"b":2}']
    const result = (i: number): ToolResult => ({
      callId: `c${i}`,
      name: 'read',
      isError: false,
      content: [{ type: 'text', text: 'same' }],
      timing: { startedAt: 0, durationMs: 0 },
    })
    const verdicts = args.map((a, i) =>
      watch.observe([{ type: 'tool-call', callId: `c${i}`, name: 'read', arguments: a }], [result(i)]),
    )
    expect(verdicts.slice(0, 4).map((v) => v.kind)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(verdicts[4]).toEqual({
      kind: 'stop',
      reason: 'loop_detected',
      message:
        'stopped: read was called 5 times in a row with the same arguments and got the same result each time (loop detection)',
    })
  })

  it('counts copies of one call in the same turn (a parallel batch) once', () => {
    const watch = new ProgressWatch()
    const batch = (turn: number) => {
      const calls = Array.from(
        { length: 6 },
        (_, i): ToolCallPart => ({
          type: 'tool-call',
          callId: `t${turn}c${i}`,
          name: 'read',
          arguments: '{"path":"a"}',
        }),
      )
      return watch.observe(
        calls,
        calls.map((c) => ({
          callId: c.callId,
          name: 'read',
          isError: false,
          content: [{ type: 'text', text: 'same' }],
          timing: { startedAt: 0, durationMs: 0 },
        })),
      )
    }
    expect(batch(1)).toEqual({ kind: 'ok', reminders: [] })
    expect(batch(2)).toEqual({ kind: 'ok', reminders: [] })
    expect(batch(3)).toMatchObject({ kind: 'ok', reminders: [{ source: 'loop-detection' }] })
    expect(batch(4)).toEqual({ kind: 'ok', reminders: [] })
    expect(batch(5)).toMatchObject({ kind: 'stop', reason: 'loop_detected' })
  })
})
