import type { FailureKind, ToolResult } from '../types.js'

// Per-tool counters, recorded once per finalized result (the one exit point), so
// calls === successes + failures whenever no call is in flight (DESIGN.md §5 inv. 8).
// Each call's own duration is recorded: a bounded window of recent durations plus exact
// count/total/min/max, so a million calls cost constant memory.
// Names are the model's to invent: a call that resolved to no tool (UNKNOWN_TOOL) is counted in
// one shared entry, UNKNOWN_TOOLS, never under its name. Every other result names a tool that was
// registered when it ran, so the table holds one entry per registered name plus that one.

const WINDOW = 1024

/** The metrics entry for calls whose name resolved to no tool (no tool name can spell it). */
export const UNKNOWN_TOOLS = '(unknown tools)'

export interface ToolMetrics {
  readonly calls: number
  readonly successes: number
  readonly failures: number
  readonly failuresByKind: Readonly<Partial<Record<FailureKind, number>>>
  readonly durationMs: {
    readonly total: number
    readonly min: number
    readonly max: number
    readonly mean: number
    /** Durations of the most recent calls (up to 1,024), oldest first. */
    readonly recent: readonly number[]
  }
}

type Counter = {
  calls: number
  successes: number
  failures: number
  byKind: Partial<Record<FailureKind, number>>
  total: number
  min: number
  max: number
  ring: Float64Array
  ringCount: number
}

export class MetricsRecorder {
  private readonly tools = new Map<string, Counter>()

  record(result: ToolResult): void {
    const key = result.error?.kind === 'unknown_tool' ? UNKNOWN_TOOLS : result.name
    let counter = this.tools.get(key)
    if (!counter) {
      counter = {
        calls: 0,
        successes: 0,
        failures: 0,
        byKind: {},
        total: 0,
        min: Number.POSITIVE_INFINITY,
        max: 0,
        ring: new Float64Array(WINDOW),
        ringCount: 0,
      }
      this.tools.set(key, counter)
    }
    counter.calls++
    if (result.isError) {
      counter.failures++
      const kind = result.error?.kind ?? 'exception'
      counter.byKind[kind] = (counter.byKind[kind] ?? 0) + 1
    } else counter.successes++
    const d = result.timing.durationMs
    counter.total += d
    if (d < counter.min) counter.min = d
    if (d > counter.max) counter.max = d
    counter.ring[counter.ringCount % WINDOW] = d
    counter.ringCount++
  }

  snapshot(): Readonly<Record<string, ToolMetrics>> {
    const out: Record<string, ToolMetrics> = {}
    for (const name of [...this.tools.keys()].sort()) {
      const c = this.tools.get(name)!
      const n = Math.min(c.ringCount, WINDOW)
      const start = c.ringCount > WINDOW ? c.ringCount % WINDOW : 0
      const recent: number[] = []
      for (let i = 0; i < n; i++) recent.push(c.ring[(start + i) % WINDOW]!)
      out[name] = Object.freeze({
        calls: c.calls,
        successes: c.successes,
        failures: c.failures,
        failuresByKind: Object.freeze({ ...c.byKind }),
        durationMs: Object.freeze({
          total: c.total,
          min: c.calls > 0 ? c.min : 0,
          max: c.max,
          mean: c.calls > 0 ? c.total / c.calls : 0,
          recent: Object.freeze(recent),
        }),
      })
    }
    return Object.freeze(out)
  }
}
