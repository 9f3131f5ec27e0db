// Observes real concurrency: a tools/execute wrapper counts bodies in flight. A call "ran in
// parallel" when another call's body was running at the same time as its own — measured, not
// inferred from the tool's isConcurrencySafe declaration. Sub-calls of a run_code program (calls
// with a parent) are left out: a program naturally overlaps its own sub-calls.
import type { Plugin } from '@toolgate/core'

export interface OverlapProbe {
  readonly plugin: Plugin
  overlapped(callId: string): boolean
  /** Most bodies seen running at once. */
  peak(): number
}

export function overlapProbe(): OverlapProbe {
  const running = new Set<string>()
  const overlapped = new Set<string>()
  let peak = 0
  return {
    plugin: (ctx) => {
      ctx.on('tools/execute', async (exec, next) => {
        if (exec.parent !== undefined) return next()
        running.add(exec.callId)
        peak = Math.max(peak, running.size)
        if (running.size > 1) for (const id of running) overlapped.add(id)
        try {
          return await next()
        } finally {
          running.delete(exec.callId)
        }
      })
    },
    overlapped: (callId) => overlapped.has(callId),
    peak: () => peak,
  }
}
