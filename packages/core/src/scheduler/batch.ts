import { SiblingFailed } from '../errors/tool-error.js'
import type { SettledCall } from '../pipeline/call.js'
import { isThenable } from '../pipeline/execute.js'
import type { Prepared } from '../pipeline/prepare.js'
import type { CallOptions } from '../pipeline/state.js'
import type { ToolCall, ToolExecutionMode, ToolResult } from '../types.js'

// One model reply, many calls (seed 001 §6.8, seed 003 §6). Consecutive parallel-safe calls
// share a rolling pool (a finished slot is refilled at once); an exclusive call is a barrier:
// it waits for everything before it and nothing after it starts until it is done. Calls start
// in model order, pre-execute (and approval prompts) run one at a time in model order, results
// are committed (observers, `tool/result`) in model order however they finish, and every call
// gets exactly one result — also the ones an abort kept from starting.

export interface BatchOptions {
  readonly signal?: AbortSignal
  readonly maxParallel?: number
  /** Fires once per call as soon as its result is final (before it is committed), for UIs. */
  readonly onSettled?: (result: ToolResult) => void
}

export interface BatchHost {
  prepare(call: ToolCall): Prepared
  mode(prepared: Prepared): ToolExecutionMode
  run(call: ToolCall, options: CallOptions): Promise<SettledCall>
  commit(settled: SettledCall): void
  /** When the call's tool declares a cascade: does this settled result skip its later siblings? */
  cascadePolicy(prepared: Prepared): ((result: ToolResult) => boolean) | undefined
  reportListenerError(stage: string, callId: string, error: unknown): void
}

export async function runBatch(
  host: BatchHost,
  calls: readonly ToolCall[],
  options: BatchOptions,
  defaultParallel: number,
): Promise<ToolResult[]> {
  const n = calls.length
  // Checked by the runtime (options/check.ts): a positive integer, or absent.
  const maxParallel = options.maxParallel ?? defaultParallel
  const settled: (SettledCall | undefined)[] = new Array(n)
  // Every call shares the caller's signal; the pipeline watches a shared signal with one listener
  // (signal/watch.ts) and gives each body its own signal only if the body reads it.
  const signal = options.signal
  const prepared = calls.map((call) => host.prepare(call))
  const modes = prepared.map((p) => host.mode(p).kind)
  let committed = 0

  // Sibling cascade: one controller per call whose tool declares it (aborted with SiblingFailed).
  const policies = prepared.map((p) => host.cascadePolicy(p))
  const cascade = new Map<number, AbortController>()
  for (let i = 0; i < n; i++) if (policies[i]) cascade.set(i, new AbortController())

  // The pre-execute lane: call i's pre-execute starts after call i-1's ended. A call hands the
  // lane on only after its own turn came, whenever it releases it (a call with nothing to do in
  // pre-execute releases at once), so the order holds across calls that skip the wait.
  let laneTail: Promise<void> = Promise.resolve()
  const lane = (): NonNullable<CallOptions['preLane']> => {
    const turn = laneTail
    let handOn!: () => void
    laneTail = new Promise<void>((resolve) => {
      handOn = resolve
    })
    let released = false
    return {
      turn,
      release() {
        if (released) return
        released = true
        turn.then(handOn)
      },
    }
  }

  const commitReady = () => {
    while (committed < n && settled[committed]) host.commit(settled[committed++]!)
  }

  const runOne = async (index: number): Promise<void> => {
    const call = calls[index]!
    const preLane = lane()
    let done: SettledCall
    try {
      done = await host.run(call, {
        prepared: prepared[index]!,
        signal,
        cascade: cascade.get(index)?.signal,
        preLane,
      })
    } finally {
      preLane.release()
    }
    settled[index] = done
    try {
      const returned: unknown = options.onSettled?.(done.result)
      if (isThenable(returned))
        Promise.resolve(returned).catch((error: unknown) =>
          host.reportListenerError('onSettled', call.callId, error),
        )
    } catch (error) {
      host.reportListenerError('onSettled', call.callId, error)
    }
    if (policies[index]?.(done.result)) {
      for (let j = index + 1; j < n; j++) {
        if (calls[j]!.name === call.name) cascade.get(j)?.abort(new SiblingFailed(call.callId))
      }
    }
    commitReady()
  }

  const runGroup = async (from: number, to: number): Promise<void> => {
    let next = from
    const worker = async () => {
      while (next < to) await runOne(next++)
    }
    await Promise.all(Array.from({ length: Math.min(maxParallel, to - from) }, worker))
  }

  let i = 0
  while (i < n) {
    if (modes[i] === 'exclusive') {
      await runOne(i++)
      continue
    }
    let end = i
    while (end < n && modes[end] === 'parallel') end++
    await runGroup(i, end)
    i = end
  }
  commitReady()
  return settled.map((s) => s!.result)
}

/** `additionalContexts` of a settled batch, FIFO in model order (delivered after all results). */
export function batchContexts(results: readonly ToolResult[]) {
  return results.flatMap((r) => r.additionalContexts ?? [])
}
