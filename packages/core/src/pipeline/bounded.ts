import { failures } from '../errors/failures.js'
import { DeadlineExceeded } from '../errors/tool-error.js'
import type { Deadline } from '../signal/deadlines.js'
import { neverAborted } from '../signal/link.js'
import { unwatchAbort, watchAbort } from '../signal/watch.js'
import type { ToolFailure } from '../types.js'
import { ABANDONED, type CallState } from './state.js'

// Every stage that awaits host code waits through this one helper: an async parameters
// validator, the tools/pre-execute listeners, the approval prompt, the tools/execute wrappers, the
// body, an async output validator, the tools/post-execute listeners. It is made only when a stage
// really returned a pending promise: the synchronous path creates no wait, timer or promise.
//
// A wait ends when the host code settles, or gives up (DESIGN.md §3, "a body that ignores its
// signal cannot hang the agent", for every stage):
// - once the call is stopped (the caller aborted, the call's deadline passed), the code gets
//   `graceMs` more to notice its signal; then the call settles without it;
// - while nothing stops the call, listeners, wrappers and validators get `listenerTimeoutMs` (a
//   wrapper's budget pauses while a body it started runs). Bodies and approval prompts have no
//   budget: a tool may run as long as its declared timeoutMs, a person may take their time.
// Code given up on is tracked as an orphan: its late outcome is logged (`tool/late-settle`) and
// never applied; a late `next()` from it finds the stage closed (ABANDONED).

/** The stages that await host code, as named in `tool/late-settle` events. */
export type HostStage =
  | 'validation'
  | 'tools/pre-execute'
  | 'approval'
  | 'tools/execute'
  | 'body'
  | 'output'
  | 'tools/post-execute'

/** What the model reads for each stage ("<where> did not answer"). */
const WHERE = {
  validation: 'the parameters validation',
  'tools/pre-execute': 'a tools/pre-execute listener',
  approval: 'the approval prompt',
  'tools/execute': 'a tools/execute wrapper',
  body: 'the tool',
  output: 'the output validation',
  'tools/post-execute': 'a tools/post-execute listener',
} as const satisfies Record<HostStage, string>

const CLOSES = {
  validation: 0,
  'tools/pre-execute': ABANDONED.pre,
  approval: ABANDONED.pre,
  'tools/execute': ABANDONED.execute,
  body: 0,
  output: 0,
  'tools/post-execute': ABANDONED.post,
} as const satisfies Record<HostStage, number>

/** The wait stopped waiting: a stop outlasted the grace, or (stalled) the budget ran out. */
export class GaveUp {
  constructor(
    readonly stalled: boolean,
    readonly reason: unknown,
  ) {}
}

/** How a wait ended. A failure carries whether the call had been stopped (and why) by then. */
export type Waited<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown; readonly stopped: boolean; readonly reason: unknown }
  | GaveUp

/** What body runs tell the execute stage's wait (state.waiting). */
export interface HostWaitEvents {
  bodyStarted(): void
  bodyEnded(): void
  deadlinePassed(reason: DeadlineExceeded): void
}

export interface WaitOptions {
  /** Signals that stop the wait; one already aborted stops it at once. */
  readonly signals: readonly AbortSignal[]
  /** The body's deadline (the call's timeoutMs), from now. */
  readonly deadlineMs?: number | undefined
  /** Give up after `listenerTimeoutMs` while nothing stops the call. */
  readonly budget?: boolean
  /** Already stopped when the wait begins (the call's deadline passed in an earlier stage). */
  readonly stoppedBy?: unknown
}

const NO_SIGNALS: readonly AbortSignal[] = Object.freeze([])

/**
 * The signal a stage stops on: the caller's (with the batch's). Only what the host code can
 * observe (listeners see it as `exec.signal`, answerers as `request.signal`): a stop it cannot
 * see would only cut it off. The sibling cascade aborts the body; before it, calls are skipped
 * between stages (notStarted).
 */
export function callerStop(state: CallState): readonly AbortSignal[] {
  const signal = state.callerSignal
  return signal === neverAborted() ? NO_SIGNALS : [signal]
}

/** A body run starts: the wrappers' budget pauses, and the last run's deadline decides nothing. */
export function bodyStarted(state: CallState): void {
  state.bodies++
  state.expired = undefined
  state.waiting?.bodyStarted()
}

/** A body run ended: once none runs, the wrappers' budget runs again. */
export function bodyEnded(state: CallState): void {
  if (--state.bodies === 0) state.waiting?.bodyEnded()
}

/**
 * Wait for `work` within bounds and hand how it ended to `map` (called exactly once). Start the
 * host code first, then wait: a body needs the wait's `signal()` before it starts, so it
 * constructs a HostWait itself.
 */
export function waitFor<T, R>(
  state: CallState,
  stage: Exclude<HostStage, 'body' | 'tools/execute'>,
  work: Promise<T>,
  options: WaitOptions,
  map: (waited: Waited<T>) => R | Promise<R>,
): Promise<R> {
  return new HostWait<T, R>(state, stage, options).run(work, map)
}

export class HostWait<T, R> implements HostWaitEvents {
  private settled = false
  private gaveUp = false
  private stopped = false
  private stopReason: unknown
  /** The only stop is a body run's deadline: a wrapper that starts another run resumes the wait. */
  private resumable = false
  private graceTimer: ReturnType<typeof setTimeout> | undefined
  private budget: Deadline | undefined
  private readonly deadline: Deadline | undefined
  private controller: AbortController | undefined
  private work: Promise<T> | undefined
  private resolve!: (result: R | Promise<R>) => void
  private reject!: (error: unknown) => void
  private map!: (waited: Waited<T>) => R | Promise<R>
  /** Made only when there is a signal to watch (most waits have none). */
  private onAbort: ((reason: unknown) => void) | undefined

  constructor(
    private readonly state: CallState,
    readonly stage: HostStage,
    private readonly options: WaitOptions,
  ) {
    if (stage === 'body') bodyStarted(state)
    if (options.deadlineMs !== undefined) {
      const ms = options.deadlineMs
      this.deadline = state.host.deadlines.add(ms, () => this.expire(ms))
    }
    for (const signal of options.signals) {
      if (signal.aborted) this.stop(signal.reason, false)
      else {
        this.onAbort ??= (reason: unknown) => this.stop(reason, false)
        watchAbort(signal, this.onAbort)
      }
    }
    if (options.stoppedBy !== undefined) this.stop(options.stoppedBy, false)
    if (stage === 'tools/execute') state.waiting = this
    if (options.budget && state.bodies === 0) this.armBudget()
  }

  /** True once this wait gave up on its code: whatever the code does next is never used. */
  get abandoned(): boolean {
    return this.gaveUp
  }

  /**
   * The body's own signal, created on first read (Node 20 pays ~5 µs to create an AbortSignal,
   * and most bodies never look), already aborted if the wait is stopped. Its own, not a parent:
   * parents are shared by every call of a batch or a program, and bodies add listeners to it.
   */
  signal(): AbortSignal {
    if (this.controller) return this.controller.signal
    const controller = new AbortController()
    this.controller = controller
    if (this.stopped) controller.abort(this.stopReason)
    return controller.signal
  }

  run(work: Promise<T>, map: (waited: Waited<T>) => R | Promise<R>): Promise<R> {
    this.work = work
    this.map = map
    return new Promise<R>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
      work.then(
        (value) => this.finish({ ok: true, value }),
        (error: unknown) => this.finish({ ok: false, error, stopped: this.stopped, reason: this.stopReason }),
      )
    })
  }

  bodyStarted(): void {
    this.budget?.cancel()
    this.budget = undefined
    if (this.stopped && this.resumable) {
      // A retry after a deadline: the wrapper is alive and the new run has its own deadline.
      this.stopped = false
      this.stopReason = undefined
      clearTimeout(this.graceTimer)
      this.graceTimer = undefined
    }
  }

  bodyEnded(): void {
    if (!this.settled && this.options.budget && this.budget === undefined) this.armBudget()
  }

  deadlinePassed(reason: DeadlineExceeded): void {
    this.stop(reason, true)
  }

  private armBudget(): void {
    this.budget = this.state.host.deadlines.add(this.state.host.listenerTimeoutMs, () => {
      this.budget = undefined
      this.giveUp(!this.stopped)
    })
  }

  private expire(ms: number): void {
    const reason = new DeadlineExceeded(ms)
    this.state.expired = reason
    this.stop(reason, false)
    this.state.waiting?.deadlinePassed(reason)
  }

  private stop(reason: unknown, resumable: boolean): void {
    if (this.settled) return
    if (!this.stopped) {
      this.stopped = true
      this.stopReason = reason
      this.resumable = resumable
      this.controller?.abort(reason)
    } else if (!resumable) this.resumable = false
    this.graceTimer ??= setTimeout(() => this.giveUp(false), this.state.host.graceMs)
  }

  private giveUp(stalled: boolean): void {
    if (this.settled) return
    const state = this.state
    this.gaveUp = true
    state.abandoned |= CLOSES[this.stage]
    if (this.work) state.host.trackOrphan(state.exec, this.stage, this.work)
    this.finish(new GaveUp(stalled, this.stopReason))
  }

  private finish(waited: Waited<T>): void {
    if (this.settled) return
    this.settled = true
    const state = this.state
    this.deadline?.cancel()
    this.budget?.cancel()
    if (this.graceTimer !== undefined) clearTimeout(this.graceTimer)
    const onAbort = this.onAbort
    if (onAbort) for (const signal of this.options.signals) unwatchAbort(signal, onAbort)
    if (state.waiting === this) state.waiting = undefined
    if (this.stage === 'body') bodyEnded(state)
    let result: R | Promise<R>
    try {
      result = this.map(waited)
    } catch (error) {
      this.reject(error)
      return
    }
    this.resolve(result)
  }
}

/**
 * The failure of a stage whose wait gave up, or whose code failed after the call was stopped: that
 * failure follows the stop (a listener that honours its signal is no bug), and what it threw is
 * logged as a `listener/error`. `final`: the call ends here, post-execute skipped (a stalled
 * listener is a bug, like one that throws).
 */
export function stageStopped(
  state: CallState,
  stage: HostStage,
  waited: GaveUp | Extract<Waited<unknown>, { ok: false }>,
): { readonly failure: ToolFailure; readonly final: boolean } {
  const { exec, host } = state
  const name = exec.name
  const where = WHERE[stage]
  const gaveUp = waited instanceof GaveUp
  if (gaveUp && waited.stalled)
    return { failure: failures.stalled(name, where, host.listenerTimeoutMs, state.ran), final: true }
  if (!gaveUp) host.reportListenerError(stage, exec.callId, waited.error)
  const reason = waited.reason
  const watchesCaller = stage !== 'tools/execute' || state.definition?.interruptBehavior !== 'block'
  if (reason instanceof DeadlineExceeded && !(state.callerSignal.aborted && watchesCaller))
    return { failure: failures.timeout(name, reason.timeoutMs), final: false }
  if (!state.ran) return { failure: failures.cancelledBeforeStart(name), final: false }
  if (!gaveUp) return { failure: failures.aborted(name), final: false }
  if (stage === 'tools/execute')
    return { failure: failures.abortedUnresponsive(name, host.graceMs), final: false }
  return { failure: failures.abortedAfterRun(name, where, host.graceMs), final: false }
}
