import { describeThrown, failures, isInstance } from '../errors/failures.js'
import { DeadlineExceeded, SiblingFailed, ToolError } from '../errors/tool-error.js'
import { chainCache, compose } from '../hooks/compose.js'
import { materialize } from '../json/materialize.js'
import type { ExecuteOutcome, ExecuteWrapper } from '../registry/registry.js'
import { neverAborted } from '../signal/link.js'
import type {
  ContextMessage,
  JsonObject,
  JsonValue,
  ParentToken,
  ToolExecution,
  ToolFailure,
  ToolRunContext,
} from '../types.js'
import { bodyEnded, bodyStarted, callerStop, GaveUp, HostWait, stageStopped, type Waited } from './bounded.js'
import { ABANDONED, type CallState, type Outcome } from './state.js'

// Stage ③: the tools/execute around-wrappers and the body. A wrapper may hand the body another
// signal (`next({ signal })`) or a deadline (`next({ timeoutMs })`, what the timeout policy does);
// the caller's signal is always fused back in before the body runs (inv. 6), unless the tool
// declared interruptBehavior 'block'. A body run waits through HostWait (bounded.ts): one that
// ignores its signal is given `graceMs` after the abort or deadline, then the call settles without
// it and the late outcome is only logged (`tool/late-settle`).
// The body's own AbortSignal is created only if the body reads `exec.signal`: creating one costs
// Node 20 more than the rest of the call (measured), and most bodies never look.

class Unresponsive {
  constructor(readonly reason: unknown) {}
}

/** What a wrapper may pass to `next()`. */
type ExecuteOverride = { readonly signal?: AbortSignal; readonly timeoutMs?: number }

type Ctx = {
  readonly view: ToolExecution
  readonly state: CallState
  readonly args: JsonValue
  readonly timeoutMs?: number
}

// A wrapper that calls next() after the stage gave up on it finds the door shut: no body starts.
const terminal = (ctx: Ctx): ExecuteOutcome | Promise<ExecuteOutcome> =>
  ctx.state.abandoned & ABANDONED.execute
    ? { ok: false, error: new Error('the call already ended, so the body was not started') }
    : invokeBody(ctx.state, ctx.args, ctx.view, ctx.timeoutMs, true)
const update = (ctx: Ctx, override: ExecuteOverride): Ctx => {
  const signal = override.signal
  const ms = override.timeoutMs
  const tighter =
    ms !== undefined && Number.isFinite(ms) && ms > 0 && (ctx.timeoutMs === undefined || ms < ctx.timeoutMs)
  if (signal === undefined && !tighter) return ctx
  // Built field by field: this runs per call under the timeout policy.
  return {
    view: signal === undefined ? ctx.view : withSignal(ctx.view, signal),
    state: ctx.state,
    args: ctx.args,
    timeoutMs: tighter ? ms : ctx.timeoutMs,
  }
}
/** The execution a wrapper hands on with another signal (a literal: see frozenCandidate). */
function withSignal(view: ToolExecution, signal: AbortSignal): ToolExecution {
  const copy: { -readonly [K in keyof ToolExecution]: ToolExecution[K] } = {
    callId: view.callId,
    name: view.name,
    arguments: view.arguments,
    signal,
    token: view.token,
  }
  if (view.agent !== undefined) copy.agent = view.agent
  if (view.parent !== undefined) copy.parent = view.parent
  return Object.freeze(copy)
}

// Re-entrant: a retry wrapper may call next() again after a failure.
const chainFor = chainCache((wrappers: readonly ExecuteWrapper[]) =>
  compose<Ctx, ExecuteOutcome, ExecuteOverride>(
    wrappers.map((w) => (ctx, next) => w(ctx.view, (override) => asPromise(next, override))),
    terminal,
    { reentrant: true, update },
  ),
)

/** A wrapper's `next()` always returns a promise (its declared type), without an async frame. */
function asPromise(
  next: (override?: ExecuteOverride) => ExecuteOutcome | Promise<ExecuteOutcome>,
  override: ExecuteOverride | undefined,
): Promise<ExecuteOutcome> {
  try {
    const outcome = next(override)
    return outcome instanceof Promise ? outcome : Promise.resolve(outcome)
  } catch (error) {
    return Promise.reject(error)
  }
}

type Executed = Outcome<unknown>

/**
 * The wrappers and the body, to the body's raw value or the failure that ended the stage. A body
 * run bounds itself (its signals, its deadline, the grace). Wrappers that wait on their own
 * (before next(), after it, instead of it) are host code, waited for within the call's bounds,
 * unless the chain returned exactly the body run's promise (every wrapper handed next()'s promise
 * on, as the timeout policy does): then there is nothing else to wait for.
 */
export function execute(state: CallState, args: JsonValue): Executed | Promise<Executed> {
  let running: ExecuteOutcome | Promise<ExecuteOutcome>
  try {
    running = runWrappers(state, args)
  } catch (error) {
    return wrapperThrew(state, error)
  }
  if (!(running instanceof Promise)) return executed(state, running)
  if (state.view.execute.length === 0 || running === state.bodyPromise)
    return running.then(
      (outcome) => executed(state, outcome),
      (error: unknown) => wrapperThrew(state, error),
    )
  const block = state.definition?.interruptBehavior === 'block'
  return new HostWait<ExecuteOutcome, Executed>(state, 'tools/execute', {
    signals: block ? [] : callerStop(state),
    budget: true,
  }).run(running, (waited) => {
    if (waited instanceof GaveUp || (!waited.ok && waited.stopped))
      return { ok: false, ...stageStopped(state, 'tools/execute', waited) }
    if (waited.ok) return executed(state, waited.value)
    return wrapperThrew(state, waited.error)
  })
}

function executed(state: CallState, outcome: ExecuteOutcome): Executed {
  if (outcome.ok) return outcome
  return { ok: false, failure: executeFailure(state, outcome.error, state.definition?.timeoutMs) }
}

/** A wrapper threw: final, post-execute is skipped (seed 002). */
function wrapperThrew(state: CallState, error: unknown): Executed {
  return {
    ok: false,
    failure: failures.exception(state.exec.name, 'a tools/execute wrapper', describeThrown(error)),
    final: true,
  }
}

function runWrappers(state: CallState, args: JsonValue): ExecuteOutcome | Promise<ExecuteOutcome> {
  const wrappers = state.view.execute
  if (wrappers.length === 0) return invokeBody(state, args, state.exec, undefined, false)
  return chainFor(wrappers)({ view: state.exec, state, args })
}

const NO_PARENTS: readonly AbortSignal[] = Object.freeze([])

/**
 * What can abort the body: the wrapper's signal (when it replaced the execution's), the caller's
 * signal (unless the tool blocks interrupts), the batch cascade. Usually nothing (the hot path
 * allocates no list).
 */
function bodyParents(state: CallState, view: ToolExecution): readonly AbortSignal[] {
  const never = neverAborted()
  const replaced = view.signal === state.exec.signal ? undefined : view.signal
  const caller = state.definition?.interruptBehavior === 'block' ? undefined : state.callerSignal
  const cascade = state.cascade
  if (replaced === undefined && cascade === undefined && (caller === undefined || caller === never))
    return NO_PARENTS
  const parents: AbortSignal[] = []
  for (const signal of [replaced, caller, cascade])
    if (signal !== undefined && signal !== never && !parents.includes(signal)) parents.push(signal)
  return parents
}

function startBody(state: CallState, args: JsonValue, context: ToolRunContext): Promise<unknown> {
  try {
    const value = (state.definition!.execute as (a: JsonValue, c: ToolRunContext) => unknown)(args, context)
    return value instanceof Promise ? value : Promise.resolve(value)
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * Run the body. `wrapped`: wrappers wait on it, so its end is what a wrapper chain that only hands
 * next()'s promise on returns (state.bodyPromise: call.ts then adds no wait), and a running body
 * pauses the wrappers' budget (bodyStarted/bodyEnded).
 */
function invokeBody(
  state: CallState,
  args: JsonValue,
  view: ToolExecution,
  timeoutMs: number | undefined,
  wrapped: boolean,
): ExecuteOutcome | Promise<ExecuteOutcome> {
  const definition = state.definition
  if (!definition) return { ok: false, error: new Error('no tool') }
  state.ran = true
  const parents = bodyParents(state, view)
  if (timeoutMs !== undefined || parents.length > 0) {
    const run = new HostWait<unknown, ExecuteOutcome>(state, 'body', {
      signals: parents,
      deadlineMs: timeoutMs,
    })
    const running = run.run(startBody(state, args, new RunContext(state, view, run)), bodyOutcome)
    state.bodyPromise = running
    return running
  }
  // Nobody can abort this call (the hot path): a synchronous body settles the stage at once, an
  // asynchronous one costs a single `then`.
  let outcome: ExecuteOutcome
  try {
    const value = (definition.execute as (a: JsonValue, c: ToolRunContext) => unknown)(
      args,
      new RunContext(state, view, undefined),
    )
    if (isThenable(value))
      return wrapped ? trackedBody(state, value) : Promise.resolve(value).then(succeeded, unabortableFailure)
    outcome = { ok: true, value }
  } catch (error) {
    outcome = { ok: false, error: new BodyFailure(error, undefined, false) }
  }
  if (!wrapped) return outcome
  const settled = Promise.resolve(outcome)
  state.bodyPromise = settled
  return settled
}

/** An unstoppable asynchronous body under wrappers: counted as running until it settles. */
function trackedBody(state: CallState, value: PromiseLike<unknown>): Promise<ExecuteOutcome> {
  bodyStarted(state)
  const running = Promise.resolve(value).then(
    (v): ExecuteOutcome => {
      bodyEnded(state)
      return { ok: true, value: v }
    },
    (error: unknown): ExecuteOutcome => {
      bodyEnded(state)
      return { ok: false, error: new BodyFailure(error, undefined, false) }
    },
  )
  state.bodyPromise = running
  return running
}

const succeeded = (value: unknown): ExecuteOutcome => ({ ok: true, value })
const unabortableFailure = (error: unknown): ExecuteOutcome => ({
  ok: false,
  error: new BodyFailure(error, undefined, false),
})

/** How a body run ended, as the wrappers see it. */
function bodyOutcome(waited: Waited<unknown>): ExecuteOutcome {
  if (waited instanceof GaveUp) return { ok: false, error: new Unresponsive(waited.reason) }
  if (waited.ok) return { ok: true, value: waited.value }
  return { ok: false, error: new BodyFailure(waited.error, waited.reason, waited.stopped) }
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function')
  )
}

/** Remember which signal was aborted when the body threw, so the failure kind is not guessed. */
class BodyFailure {
  constructor(
    readonly error: unknown,
    readonly abortReason: unknown,
    readonly aborted: boolean,
  ) {}
}

/** Map the outcome of the execute chain to a failure kind, by the branch that produced it. */
function executeFailure(state: CallState, error: unknown, timeoutMs: number | undefined): ToolFailure {
  const name = state.exec.name
  if (error instanceof Unresponsive) {
    if (state.callerSignal.aborted) return failures.abortedUnresponsive(name, state.host.graceMs)
    return (
      failureForReason(state, error.reason, undefined, timeoutMs) ??
      failures.abortedUnresponsive(name, state.host.graceMs)
    )
  }
  if (error instanceof BodyFailure) {
    const thrown = error.error
    if (error.aborted) {
      if (state.callerSignal.aborted && state.definition?.interruptBehavior !== 'block')
        return failures.aborted(name)
      const byReason = failureForReason(state, error.abortReason, thrown, timeoutMs)
      if (byReason) return byReason
    }
    // what a body threw is host code's: even `instanceof` may throw on it (isInstance)
    if (isInstance(thrown, ToolError)) return failures.toolError(thrown.message, thrown.info, thrown.code)
    if (isInstance(thrown, DeadlineExceeded)) return failures.timeout(name, thrown.timeoutMs)
    return failures.exception(name, 'tool', describeThrown(thrown))
  }
  // A wrapper returned a failure of its own making.
  if (isInstance(error, ToolError)) return failures.toolError(error.message, error.info, error.code)
  if (isInstance(error, DeadlineExceeded)) return failures.timeout(name, error.timeoutMs)
  return failures.exception(name, 'a tools/execute wrapper', describeThrown(error))
}

function failureForReason(
  state: CallState,
  reason: unknown,
  thrown: unknown,
  timeoutMs: number | undefined,
): ToolFailure | undefined {
  const name = state.exec.name
  if (reason instanceof DeadlineExceeded) return failures.timeout(name, reason.timeoutMs)
  if (reason instanceof SiblingFailed) return failures.siblingFailed(name, reason.failedCallId)
  if (thrown instanceof DeadlineExceeded) return failures.timeout(name, thrown.timeoutMs ?? timeoutMs)
  return undefined
}

/**
 * The body's context: the execution's fields plus its methods. A class with prototype methods
 * and a private back-reference (no four closures per call); frozen like everything listeners see.
 */
class RunContext {
  readonly callId: string
  readonly name: string
  readonly arguments: JsonValue
  declare readonly agent?: string
  declare readonly parent?: ToolExecution['parent']
  readonly token: symbol
  readonly jobs: ToolRunContext['jobs']
  readonly #state: CallState
  /** What stops the body; undefined when nothing can (see `signal`). */
  readonly #run: HostWait<unknown, ExecuteOutcome> | undefined
  #idle: AbortSignal | undefined

  constructor(state: CallState, view: ToolExecution, run: HostWait<unknown, ExecuteOutcome> | undefined) {
    const exec = state.exec
    this.#state = state
    this.callId = exec.callId
    this.name = exec.name
    this.arguments = exec.arguments
    if (exec.agent !== undefined) (this as { agent?: string }).agent = exec.agent
    if (exec.parent !== undefined) (this as { parent?: ToolExecution['parent'] }).parent = exec.parent
    this.#run = run
    this.token = view.token
    this.jobs = state.host.jobs
    Object.freeze(this)
  }

  /**
   * The body's own signal, created on first read. When nothing can stop the call it is a fresh
   * signal that never aborts, not a shared one: bodies add listeners to their signal, and on a
   * shared never-aborting signal those would pile up for as long as the host runs.
   */
  get signal(): AbortSignal {
    if (this.#run) return this.#run.signal()
    this.#idle ??= new AbortController().signal
    return this.#idle
  }

  deferContext(message: ContextMessage): void {
    const checked = materialize(message)
    if (!checked.ok || !isContextMessage(checked.value)) {
      throw new TypeError('deferContext needs { role: "user", content: ContentBlock[] } made of plain JSON')
    }
    this.#state.contexts ??= []
    this.#state.contexts.push(checked.value as ContextMessage)
  }

  concludeTurn(): void {
    this.#state.concluded = true
  }

  parentToken(): ParentToken {
    // Sub-calls (Code Mode) name this execution as their parent; it is valid while it runs. A
    // body the call gave up on (it ignored its abort) runs on as an orphan: it gets no token.
    const state = this.#state
    const exec = state.exec
    if (state.abandoned === ABANDONED.ended || this.#run?.abandoned)
      throw new Error(`This ${exec.name} call has ended; its body can no longer dispatch sub-calls.`)
    if (!state.parentOf) {
      state.parentOf = true
      state.host.live.set(exec.token, exec)
    }
    return Object.freeze({
      token: exec.token,
      callId: exec.callId,
      rootCallId: exec.parent?.rootCallId ?? exec.callId,
    })
  }

  emit(type: string, payload: JsonObject): void {
    this.#state.host.session.appendFor(this.callId, type, payload)
  }
}

export function isContextMessage(value: unknown): boolean {
  const m = value as { role?: unknown; content?: unknown } | null
  return m?.role === 'user' && Array.isArray(m.content) && m.content.every(isContentBlock)
}

export function isContentBlock(value: unknown): boolean {
  const b = value as { type?: unknown; text?: unknown; mediaType?: unknown; data?: unknown } | null
  if (typeof b !== 'object' || b === null) return false
  // Exactly the declared fields: anything else would reach the model unchecked.
  const keys = Object.keys(b).length
  if (b.type === 'text') return keys === 2 && typeof b.text === 'string'
  if (b.type === 'image') return keys === 3 && typeof b.mediaType === 'string' && typeof b.data === 'string'
  return false
}
