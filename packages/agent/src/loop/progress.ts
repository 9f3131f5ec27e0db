// Two of the termination conditions of seed 003 §4.4 that watch what the calls return:
//
// - loop detection: the same call (tool + arguments) with the same result, N times in a row — the
//   model walking in circles, e.g. reading the same file again and again. Copies of one call in the
//   same turn (one parallel batch) count once: that is one request made several times at once, not
//   a model that keeps asking after seeing the answer;
// - no progress: N turns in a row in which no call succeeded with a result not seen before in the
//   run — the model tweaking arguments every step while nothing new comes back.
//
// Each first nudges the model once with a reminder (capped and deduplicated by the reminder queue),
// then stops the run with its own reason. A check that injects a hint must itself be bounded
// (seed 003 §13.5): the stop is that bound.
import { createHash } from 'node:crypto'
import type { ToolResult } from '@toolgate/core'
import type { ToolCallPart } from '@toolgate/providers'
import type { Reminder } from '../context/reminders.js'

export interface ProgressOptions {
  /** Identical call + result in a row: remind at this count. Default 3. */
  readonly loopWarnAt?: number
  /** ...and stop the run at this count. Default 5. */
  readonly loopStopAt?: number
  /** Turns in a row without a new successful result: remind at this count. Default 6. */
  readonly idleWarnAt?: number
  /** ...and stop the run at this count. Default 10. */
  readonly idleStopAt?: number
}

export type ProgressVerdict =
  | { readonly kind: 'ok'; readonly reminders: readonly Reminder[] }
  | { readonly kind: 'stop'; readonly reason: 'loop_detected' | 'no_progress'; readonly message: string }

/** Results remembered for novelty; older ones are forgotten first (bounded memory). */
const SEEN_CAP = 20_000

export class ProgressWatch {
  /** The previous call: tool, result key, raw arguments (canonical form computed on demand). */
  private last:
    | { name: string; resultKey: string; args: string; turn: number; canonical?: string }
    | undefined
  private streak = 0
  private turn = 0
  private idle = 0
  private readonly seen = new Set<string>()
  private readonly o: Required<ProgressOptions>

  constructor(options: ProgressOptions = {}) {
    this.o = {
      loopWarnAt: options.loopWarnAt ?? 3,
      loopStopAt: options.loopStopAt ?? 5,
      idleWarnAt: options.idleWarnAt ?? 6,
      idleStopAt: options.idleStopAt ?? 10,
    }
  }

  /** One turn's calls and their results, in model order. */
  observe(calls: readonly ToolCallPart[], results: readonly ToolResult[]): ProgressVerdict {
    const reminders: Reminder[] = []
    let progressed = false
    this.turn++
    for (const [i, call] of calls.entries()) {
      const result = results[i]
      if (result === undefined) continue
      const resultKey = contentKey(`${result.isError ? 'E' : 'O'}\u0000${textOf(result)}`)
      const sameTurn = this.last?.turn === this.turn
      if (!this.repeats(call, resultKey)) this.streak = 1
      else if (!sameTurn) this.streak++
      else continue // a copy in the same batch: counted once, and nothing new for novelty either
      if (this.streak >= this.o.loopStopAt)
        return {
          kind: 'stop',
          reason: 'loop_detected',
          message: `stopped: ${call.name} was called ${this.streak} times in a row with the same arguments and got the same result each time (loop detection)`,
        }
      if (this.streak === this.o.loopWarnAt)
        reminders.push({
          key: `loop:${digest(`${call.name}\u0000${this.canonicalLast()}\u0000${resultKey}`)}`,
          source: 'loop-detection',
          text: `You called ${call.name} ${this.streak} times in a row with the same arguments and got the same result each time; calling it again will not change it. Use the result you have, try a different approach, or stop and say what is blocking you.`,
        })
      const novel = !this.seen.has(`${call.name}\u0000${resultKey}`)
      if (novel) {
        this.seen.add(`${call.name}\u0000${resultKey}`)
        if (this.seen.size > SEEN_CAP) this.seen.delete(this.seen.values().next().value!)
      }
      if (!result.isError && novel) progressed = true
    }
    if (calls.length === 0) return { kind: 'ok', reminders }
    this.idle = progressed ? 0 : this.idle + 1
    if (this.idle >= this.o.idleStopAt)
      return {
        kind: 'stop',
        reason: 'no_progress',
        message: `stopped: ${this.idle} turns in a row brought no successful result that had not been seen before (no-progress detection)`,
      }
    if (this.idle === this.o.idleWarnAt)
      reminders.push({
        key: `idle:${this.idle}`,
        source: 'progress',
        text: `The last ${this.idle} turns brought no new successful result: the calls either failed or returned what you had already seen. Step back: reread the task, change the approach, or finish and say what is blocking you.`,
      })
    return { kind: 'ok', reminders }
  }

  /**
   * Whether this call repeats the previous one (same tool, same result, arguments equal by value),
   * and remember it as the previous one. The cheap comparisons go first: arguments are parsed and
   * canonicalized only when tool and result already match and the raw texts differ (issue 14 §3:
   * parsing every call's arguments was a tenth of the loop's time at 100 calls per step).
   */
  private repeats(call: ToolCallPart, resultKey: string): boolean {
    const prev = this.last
    this.last = { name: call.name, resultKey, args: call.arguments, turn: this.turn }
    if (prev === undefined || prev.name !== call.name || prev.resultKey !== resultKey) return false
    if (prev.args === call.arguments) {
      if (prev.canonical !== undefined) this.last.canonical = prev.canonical
      return true
    }
    const canonical = canonicalArgs(call.arguments)
    this.last.canonical = canonical
    return (prev.canonical ?? canonicalArgs(prev.args)) === canonical
  }

  private canonicalLast(): string {
    const last = this.last!
    last.canonical ??= canonicalArgs(last.args)
    return last.canonical
  }
}

/**
 * A bounded key for a result's content: short texts as they are, longer ones by digest, so the
 * novelty set holds at most ~24 characters a result and most calls hash nothing.
 */
function contentKey(text: string): string {
  return text.length <= 24 ? `=${text}` : `#${digest(text)}`
}

function textOf(result: ToolResult): string {
  return result.content
    .map((b) => (b.type === 'text' ? b.text : `[${b.mediaType} ${b.data.length}]`))
    .join('\n')
}

/** Arguments compared by value: key order and whitespace do not make two calls different. */
function canonicalArgs(raw: string): string {
  try {
    return stable(JSON.parse(raw) as unknown)
  } catch {
    return raw
  }
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  return JSON.stringify(value)
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22)
}
