import { describeThrown, failures } from '../errors/failures.js'
import { DeadlineExceeded, SiblingFailed, ToolError } from '../errors/tool-error.js'
import { chainCache, compose } from '../hooks/compose.js'
import { materialize } from '../json/materialize.js'
import type { ExecuteOutcome, ExecuteWrapper } from '../registry/registry.js'
import type { Deadline } from '../signal/deadlines.js'
import { neverAborted } from '../signal/link.js'
import { unwatchAbort, watchAbort } from '../signal/watch.js'
import type {
  ContextMessage,
  JsonObject,
  JsonValue,
  ParentToken,
  ToolExecution,
  ToolFailure,
  ToolRunContext,
} from '../types.js'
import type { CallState } from './state.js'

// Stage ③: the tools/execute around-wrappers and the body. A wrapper may hand the body another
// signal (`next({ signal })`) or a deadline (`next({ timeoutMs })`, what the timeout policy does);
// the caller's signal is always fused back in before the body runs (inv. 6), unless the tool
// declared interruptBehavior 'block'. A body that ignores its signal is given `graceMs` after the
// abort, then the call settles without it and the late outcome is only logged (`tool/late-settle`).
// The body's own AbortSignal is created only if the body reads `exec.signal`: creating one costs
// Node 20 more than the rest of the call (measured), and most bodies never look.

class Unresponsive {
  constructor(readonly reason: unknown) {}
}

/** What a wrapper may pass to `next()`. */
export type ExecuteOverride = { readonly signal?: AbortSignal; readonly timeoutMs?: number }

type Ctx = {
  readonly view: ToolExecution
  readonly state: CallState
  readonly args: JsonValue
  readonly timeoutMs?: number
}

const terminal = (ctx: Ctx) => invokeBody(ctx.state, ctx.args, ctx.view, ctx.timeoutMs)
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

export function runExecute(state: CallState, args: JsonValue): ExecuteOutcome | Promise<ExecuteOutcome> {
  const wrappers = state.view.execute
  if (wrappers.length === 0) return invokeBody(state, args, state.exec, undefined)
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

function invokeBody(
  state: CallState,
  args: JsonValue,
  view: ToolExecution,
  timeoutMs: number | undefined,
): ExecuteOutcome | Promise<ExecuteOutcome> {
  const definition = state.definition
  if (!definition) return { ok: false, error: new Error('no tool') }
  const parents = bodyParents(state, view)
  if (timeoutMs !== undefined || parents.length > 0) {
    const run = new BodyRun(state, timeoutMs, parents)
    return run.run(startBody(state, args, new RunContext(state, view, run)))
  }
  // Nobody can abort this call (the hot path): a synchronous body settles the stage at once, an
  // asynchronous one costs a single `then`.
  let value: unknown
  try {
    value = (definition.execute as (a: JsonValue, c: ToolRunContext) => unknown)(
      args,
      new RunContext(state, view, undefined),
    )
  } catch (error) {
    return { ok: false, error: new BodyFailure(error, undefined, false) }
  }
  if (!isThenable(value)) return { ok: true, value }
  return Promise.resolve(value).then(succeeded, unabortableFailure)
}

const succeeded = (value: unknown): ExecuteOutcome => ({ ok: true, value })
const unabortableFailure = (error: unknown): ExecuteOutcome => ({
  ok: false,
  error: new BodyFailure(error, undefined, false),
})

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function')
  )
}

/**
 * One body run that something can stop: parent signals, a deadline, or both. The deadline is an
 * entry in the runtime's shared deadline lists (no timer per call) and parents are watched with
 * one listener per signal however many calls share it (signal/watch.ts). Whatever aborts first,
 * the body gets `graceMs` more, then the run settles without it (Unresponsive) and the body is
 * tracked as an orphan.
 */
class BodyRun {
  expired = false
  private settled = false
  private controller: AbortController | undefined
  private graceTimer: ReturnType<typeof setTimeout> | undefined
  private readonly onParentAbort = (reason: unknown) => {
    this.controller?.abort(reason)
    this.startGrace(reason)
  }
  private readonly deadline: Deadline | undefined
  private resolve!: (outcome: ExecuteOutcome) => void
  private work: Promise<unknown> | undefined

  constructor(
    private readonly state: CallState,
    readonly timeoutMs: number | undefined,
    private readonly parents: readonly AbortSignal[],
  ) {
    if (timeoutMs !== undefined) this.deadline = state.host.deadlines.add(timeoutMs, () => this.expire())
    for (const parent of parents) {
      if (parent.aborted) this.startGrace(parent.reason)
      else watchAbort(parent, this.onParentAbort)
    }
  }

  get reason(): unknown {
    if (this.expired) return new DeadlineExceeded(this.timeoutMs!)
    return this.parents.find((p) => p.aborted)?.reason
  }

  get aborted(): boolean {
    return this.expired || this.parents.some((p) => p.aborted)
  }

  /**
   * The body's own signal, created on first read (Node 20 pays ~5 µs to create an AbortSignal,
   * and most bodies never look), already aborted if the run is. Its own, not a parent: parents
   * are shared by every call of a batch or a program, and bodies add listeners to their signal.
   */
  signal(): AbortSignal {
    if (this.controller) return this.controller.signal
    const controller = new AbortController()
    this.controller = controller
    if (this.aborted) controller.abort(this.reason)
    return controller.signal
  }

  run(work: Promise<unknown>): Promise<ExecuteOutcome> {
    this.work = work
    return new Promise<ExecuteOutcome>((resolve) => {
      this.resolve = resolve
      work.then(
        (value) => this.finish({ ok: true, value }),
        (error: unknown) =>
          this.finish({ ok: false, error: new BodyFailure(error, this.reason, this.aborted) }),
      )
    })
  }

  private expire(): void {
    this.expired = true
    const reason = new DeadlineExceeded(this.timeoutMs!)
    this.controller?.abort(reason)
    this.startGrace(reason)
  }

  private startGrace(reason: unknown): void {
    if (this.settled || this.graceTimer !== undefined) return
    this.graceTimer = setTimeout(() => {
      if (this.settled) return
      if (this.work) this.state.host.trackOrphan(this.state.exec, 'body', this.work)
      this.finish({ ok: false, error: new Unresponsive(reason) })
    }, this.state.host.graceMs)
  }

  private finish(outcome: ExecuteOutcome): void {
    if (this.settled) return
    this.settled = true
    this.deadline?.cancel()
    if (this.graceTimer !== undefined) clearTimeout(this.graceTimer)
    for (const parent of this.parents) unwatchAbort(parent, this.onParentAbort)
    this.resolve(outcome)
  }
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
export function executeFailure(state: CallState, error: unknown, timeoutMs: number | undefined): ToolFailure {
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
    if (thrown instanceof ToolError) return failures.toolError(thrown.message, thrown.info, thrown.code)
    if (thrown instanceof DeadlineExceeded) return failures.timeout(name, thrown.timeoutMs)
    return failures.exception(name, 'tool', describeThrown(thrown))
  }
  // A wrapper returned a failure of its own making.
  if (error instanceof ToolError) return failures.toolError(error.message, error.info, error.code)
  if (error instanceof DeadlineExceeded) return failures.timeout(name, error.timeoutMs)
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
  readonly #run: BodyRun | undefined
  #idle: AbortSignal | undefined

  constructor(state: CallState, view: ToolExecution, run: BodyRun | undefined) {
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
    // Sub-calls (Code Mode) name this execution as their parent; it is valid while it runs.
    const state = this.#state
    const exec = state.exec
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
