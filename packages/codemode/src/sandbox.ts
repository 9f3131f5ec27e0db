import { endOf, failed, type Limits, messages, type RunEnd } from './outcome.js'
import type { SandboxOptions, SandboxResult } from './sandbox-options.js'
import { SANDBOX_DEFAULTS } from './sandbox-options.js'
import { formatStripIssues, stripTypes } from './strip.js'
import { errorText, subCallBridge, subCallLimits } from './sub-calls.js'
import { sharedVmPool, type VmLease, type VmPool } from './vm-pool.js'
import { journalBytes, type RunDone, readJournal, type WorkerMessage } from './vm-protocol.js'

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

/** Node's timers hold at most 2^31 - 1 ms; past it (or Infinity) a timer fired after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647

/** A deadline a timer can keep: longer ones are the longest it can, NaN and negatives are 0. */
function timerMs(ms: number): number {
  // NaN fails every comparison: it is 0 here, not NaN as Math.max would give
  if (!(ms >= 0)) return 0
  return Math.min(ms, MAX_TIMER_MS)
}

/** `runSandboxed` on a given pool (the plugin and the tests pass theirs). */
export async function runInPool(options: SandboxOptions, pool: VmPool): Promise<SandboxResult> {
  const started = performance.now()
  const limits: Limits = {
    timeoutMs: timerMs(options.timeoutMs ?? SANDBOX_DEFAULTS.timeoutMs),
    memoryBytes: options.memoryBytes ?? SANDBOX_DEFAULTS.memoryBytes,
    maxOutputBytes: options.maxOutputBytes ?? SANDBOX_DEFAULTS.maxOutputBytes,
  }
  const journal = new SharedArrayBuffer(journalBytes(limits.maxOutputBytes))
  const runId = nextRunId++
  const runEnded = new AbortController()
  let lease: VmLease | undefined
  let ended = false
  const subCalls = subCallBridge({
    tools: options.tools,
    dispatch: options.dispatch,
    maxSubCalls: options.maxSubCalls ?? SANDBOX_DEFAULTS.maxSubCalls,
    signal: runEnded.signal,
    ended: () => ended,
    send: (codes, texts) => lease?.send({ type: 'settle', runId, codes, texts }),
  })
  const report = (end: RunEnd): SandboxResult => ({
    ...end,
    logs: readJournal(journal),
    subCalls: subCalls.count(),
    abandoned: subCalls.abandoned(),
    durationMs: performance.now() - started,
  })

  const stripped = stripTypes(options.code)
  if (!stripped.ok) return report(failed('syntax', formatStripIssues(stripped.issues)))
  if (options.signal?.aborted) return report(failed('abort', messages.abort()))

  const acquiring = new AbortController()
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
    subCalls.close()
    if (done) lease?.release(done)
    else lease?.stop(runId)
    runEnded.abort(outcome.ok ? 'run-ended' : outcome.kind)
    resolveRun(final)
  }
  const onAbort = (): void => end(failed('abort', messages.abort()))
  options.signal?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(
    () => end(failed('timeout', lease ? messages.timeout(limits) : messages.notStarted(limits))),
    limits.timeoutMs,
  )

  const onMessage = (message: WorkerMessage): void => {
    if (ended || !('runId' in message) || message.runId !== runId) return
    if (message.type === 'calls') subCalls.dispatchFrames(message.frames)
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
        subCallLimits: subCallLimits(options.maxSubCalls ?? SANDBOX_DEFAULTS.maxSubCalls),
        journal,
      })
    },
    (error: unknown) => {
      if (!ended) end(failed('exception', messages.engineUnavailable(errorText(error))))
    },
  )
  return result
}
