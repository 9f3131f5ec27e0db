import type { JsonValue } from '@toolgate/core'
import type { SandboxFailureKind } from './outcome.js'

export type { SandboxFailureKind } from './outcome.js'

/** What the host dispatcher answers for one sub-call. `message` is model-facing: no internal codes. */
export type DispatchOutcome =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly message: string }

/**
 * The seam to the pipeline. `argsJson` is lossless JSON text produced inside the VM; `subIndex`
 * counts sub-calls of this run from 0 (phase 2 names them `${parent}:code:${subIndex}`); `signal`
 * aborts when the run ends for any reason (the program finished, failed, timed out or was
 * cancelled), so in-flight sub-calls can be cancelled; their late outcomes are ignored.
 *
 * A dispatcher answers either by returning a promise of the outcome, or by returning nothing and
 * calling `settle(subIndex, outcome)` once. The callback is the pipeline's way: one shared
 * function, where a promise per sub-call (and a `then` on it) was a measurable part of the
 * per-call cost. Only the first answer for a sub-call counts.
 */
export type SandboxDispatch = (
  name: string,
  argsJson: string,
  subIndex: number,
  signal: AbortSignal,
  settle: SettleSubCall,
  // biome-ignore lint/suspicious/noConfusingVoidType: a dispatcher that answers through settle returns nothing
) => Promise<DispatchOutcome> | void

export type SettleSubCall = (subIndex: number, outcome: DispatchOutcome) => void

export interface SandboxOptions {
  /** the model's program: erasable TypeScript, the body of an async function */
  readonly code: string
  /** names exposed on `tools` (already filtered to what this caller may see) */
  readonly tools: readonly string[]
  readonly dispatch: SandboxDispatch
  /** the outer call's signal: aborting it ends the run at once (kind 'abort') */
  readonly signal?: AbortSignal
  /** wall-clock budget for the whole run, including time spent awaiting sub-calls. Default 30 s */
  readonly timeoutMs?: number
  /** QuickJS heap limit. Default 64 MiB */
  readonly memoryBytes?: number
  /** console output + result, in UTF-8 bytes. Default 64 KiB */
  readonly maxOutputBytes?: number
  /**
   * QuickJS stack limit. Default 32 KiB (~150 frames of ordinary JS). Kept small on purpose:
   * QuickJS's natives recurse on the native stack of the thread it runs on, and with 64 KiB a
   * deeply nested JSON.stringify already overflowed Node's stack when less than half of it was free.
   */
  readonly maxStackBytes?: number
  /**
   * The longest JSON text (in UTF-16 code units) one sub-call's arguments may be; a longer call
   * rejects inside the VM with a TypeError and is not dispatched. Default 1 Mi. The host parses
   * every argument on its own thread (measured ~10-50 ms per MB on the shared machine), so this
   * bounds how long one call can hold the agent's event loop.
   */
  readonly maxArgsChars?: number
  /**
   * The most sub-calls one run may dispatch; later ones reject inside the program with a
   * ToolCallError and are not dispatched. Default 10,000. Each sub-call is a full pipeline call
   * with its session events: an endless fan-out of trivial calls logged 330,000 events (53 MB) in
   * 5 s, and a run may last 10 minutes.
   */
  readonly maxSubCalls?: number
}

export interface AbandonedSubCall {
  readonly subIndex: number
  readonly name: string
}

interface RunReport {
  readonly logs: readonly string[]
  /** how many sub-calls were dispatched to the host */
  readonly subCalls: number
  /** sub-calls still pending when the run ended; their promises were dropped with the context */
  readonly abandoned: readonly AbandonedSubCall[]
  readonly durationMs: number
}

export type SandboxResult =
  | (RunReport & { readonly ok: true; readonly result?: JsonValue })
  | (RunReport & { readonly ok: false; readonly kind: SandboxFailureKind; readonly message: string })

export const SANDBOX_DEFAULTS = {
  timeoutMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  maxOutputBytes: 64 * 1024,
  maxStackBytes: 32 * 1024,
  maxArgsChars: 1024 * 1024,
  maxSubCalls: 10_000,
} as const
