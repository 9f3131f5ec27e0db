import type { JsonValue } from '@toolgate/core'
import { endOf, failed, type Limits, messages, type RunEnd, type SandboxFailureKind } from './outcome.js'
import { formatStripIssues, stripTypes } from './strip.js'
import { sharedVmPool, type VmLease, type VmPool } from './vm-pool.js'
import { journalBytes, type RunDone, readJournal, type WorkerMessage } from './vm-protocol.js'

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
} as const

let nextRunId = 0

/**
 * Run one program in a sandbox worker (vm-worker.ts): a fresh QuickJS runtime + context on a warm
 * thread of the process's pool (vm-pool.ts). Never rejects: every outcome, including engine
 * failures, is a SandboxResult.
 *
 * This thread owns time and cancellation. At the deadline or when `signal` aborts, the run ends
 * here at once with what the program had logged so far (the journal is shared memory); the worker
 * is then stopped, or terminated if it does not stop (vm-pool.ts): nothing the program does inside
 * the VM can delay the result. The deadline counts from this call, so it includes waiting for a
 * worker (none, with a warm pool). Sub-calls arrive as one message per VM turn and go to
 * `dispatch` in program order; their settlements cross back in batches (every one made before the
 * next microtask checkpoint).
 */
export function runSandboxed(options: SandboxOptions): Promise<SandboxResult> {
  return runInPool(options, sharedVmPool())
}

/** `runSandboxed` on a given pool (the plugin and the tests pass theirs). */
export async function runInPool(options: SandboxOptions, pool: VmPool): Promise<SandboxResult> {
  const started = performance.now()
  const limits: Limits = {
    timeoutMs: options.timeoutMs ?? SANDBOX_DEFAULTS.timeoutMs,
    memoryBytes: options.memoryBytes ?? SANDBOX_DEFAULTS.memoryBytes,
    maxOutputBytes: options.maxOutputBytes ?? SANDBOX_DEFAULTS.maxOutputBytes,
  }
  const journal = new SharedArrayBuffer(journalBytes(limits.maxOutputBytes))
  let subCalls = 0
  /** sub-calls dispatched and not yet answered: subIndex -> tool name */
  const pending = new Map<number, string>()
  const report = (end: RunEnd): SandboxResult => {
    const abandoned = [...pending].map(([subIndex, name]) => ({ subIndex, name }))
    return {
      ...end,
      logs: readJournal(journal),
      subCalls,
      abandoned,
      durationMs: performance.now() - started,
    }
  }

  const stripped = stripTypes(options.code)
  if (!stripped.ok) return report(failed('syntax', formatStripIssues(stripped.issues)))
  if (options.signal?.aborted) return report(failed('abort', messages.abort()))

  const runId = nextRunId++
  const toolSet = new Set(options.tools)
  const runEnded = new AbortController()
  const acquiring = new AbortController()
  let lease: VmLease | undefined
  let ended = false
  let resolveRun!: (result: SandboxResult) => void
  const result = new Promise<SandboxResult>((resolve) => {
    resolveRun = resolve
  })

  /** The one place a run ends: `done` is the worker's own report; without it the worker is asked to stop. */
  const end = (outcome: RunEnd, done?: RunDone): void => {
    if (ended) return
    ended = true
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
    acquiring.abort()
    const final = report(outcome)
    pending.clear()
    if (done) lease?.release(done)
    else lease?.stop(runId)
    runEnded.abort(outcome.ok ? 'run-ended' : outcome.kind)
    resolveRun(final)
  }
  const onAbort = (): void => end(failed('abort', messages.abort()))
  options.signal?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(
    () => end(failed('timeout', lease ? messages.timeout(limits) : messages.notStarted(limits))),
    Math.max(0, limits.timeoutMs),
  )

  // ---- settlements: collected, then sent in one message per microtask checkpoint ----
  let codes: number[] = []
  let texts: string[] = []
  const flush = (): void => {
    if (ended || codes.length === 0) return
    lease?.send({ type: 'settle', runId, codes, texts })
    codes = []
    texts = []
  }
  const settle: SettleSubCall = (subIndex, outcome) => {
    const name = pending.get(subIndex)
    if (ended || name === undefined) return
    pending.delete(subIndex)
    const text = outcome.ok ? jsonText(outcome.value) : undefined
    if (codes.length === 0) queueMicrotask(flush)
    if (text !== undefined) {
      codes.push(subIndex)
      texts.push(text)
    } else {
      codes.push(-subIndex - 1)
      texts.push(JSON.stringify([outcome.ok ? NOT_JSON : outcome.message, name]))
    }
  }

  /** The sub-calls of one VM turn, `<tool index>\n<args JSON>\n` each, dispatched in order. */
  const dispatchFrames = (frames: string): void => {
    let at = 0
    // a dispatch whose synchronous part ended the run (it cancelled the outer call) ends the batch
    while (at < frames.length && !ended) {
      const nl = frames.indexOf('\n', at)
      const close = nl < 0 ? -1 : frames.indexOf('\n', nl + 1)
      if (close < 0) break
      const name = options.tools[Number(frames.slice(at, nl))]
      const argsJson = frames.slice(nl + 1, close)
      at = close + 1
      const subIndex = subCalls++
      pending.set(subIndex, String(name))
      if (name === undefined || !toolSet.has(name)) {
        // unreachable: the prelude only frames listed tools; answered without dispatching
        settle(subIndex, { ok: false, message: `Tool '${String(name)}' is not available.` })
        continue
      }
      let answer: ReturnType<SandboxDispatch>
      try {
        answer = options.dispatch(name, argsJson, subIndex, runEnded.signal, settle)
      } catch (error) {
        answer = Promise.reject(error)
      }
      if (answer) {
        Promise.resolve(answer).then(
          (outcome) => settle(subIndex, outcome),
          (error: unknown) => settle(subIndex, unexpected(error)),
        )
      }
    }
  }

  const onMessage = (message: WorkerMessage): void => {
    if (ended || !('runId' in message) || message.runId !== runId) return
    if (message.type === 'calls') dispatchFrames(message.frames)
    else if (message.type === 'done') end(endOf(message.outcome, limits), message)
  }

  pool.acquire(acquiring.signal).then(
    (acquired) => {
      if (ended) return acquired.release()
      lease = acquired
      acquired.listen(onMessage, (detail) => end(failed('exception', messages.engineFailed(detail))))
      acquired.send({
        type: 'run',
        runId,
        js: stripped.js,
        tools: options.tools,
        memoryBytes: limits.memoryBytes,
        maxStackBytes: options.maxStackBytes ?? SANDBOX_DEFAULTS.maxStackBytes,
        maxOutputBytes: limits.maxOutputBytes,
        maxArgsChars: options.maxArgsChars ?? SANDBOX_DEFAULTS.maxArgsChars,
        journal,
      })
    },
    (error: unknown) => {
      if (!ended) end(failed('exception', messages.engineUnavailable(errorText(error))))
    },
  )
  return result
}

const NOT_JSON = 'The tool returned a value that is not JSON.'

/** A value's JSON text, or undefined when it has none (it cannot cross). */
function jsonText(value: JsonValue): string | undefined {
  try {
    const text = JSON.stringify(value)
    return typeof text === 'string' ? text : undefined
  } catch {
    return undefined
  }
}

function unexpected(error: unknown): DispatchOutcome {
  return { ok: false, message: `The tool call failed unexpectedly: ${errorText(error)}` }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
