import { describeThrown, failures } from '../errors/failures.js'
import { DeadlineExceeded, SiblingFailed, ToolError } from '../errors/tool-error.js'
import { compose } from '../hooks/compose.js'
import { materialize } from '../json/materialize.js'
import type { ExecuteOutcome, ExecuteWrapper } from '../registry/registry.js'
import type { Deadline } from '../signal/deadlines.js'
import { type LinkedSignal, linkSignals, neverAborted } from '../signal/link.js'
import { settleWithin } from '../signal/settle.js'
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
// A deadline's AbortController is created only if the body reads `exec.signal`: creating an
// AbortSignal costs Node 20 more than the rest of the call (measured), and most bodies never look.

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

// One composed chain per wrapper list (views are cached per registry change): no per-call closures.
const chains = new WeakMap<
  readonly ExecuteWrapper[],
  (ctx: Ctx) => ExecuteOutcome | Promise<ExecuteOutcome>
>()

function chainFor(wrappers: readonly ExecuteWrapper[]) {
  let chain = chains.get(wrappers)
  if (!chain) {
    // Re-entrant: a retry wrapper may call next() again after a failure.
    chain = compose<Ctx, ExecuteOutcome, ExecuteOverride>(
      wrappers.map((w) => (ctx, next) => w(ctx.view, (override) => asPromise(next, override))),
      terminal,
      { reentrant: true, update },
    )
    chains.set(wrappers, chain)
  }
  return chain
}

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

/** The body's signal when nothing else is fused in, without building a parent list (hot path). */
function bodySignal(state: CallState, view: ToolExecution): LinkedSignal {
  if (view.signal === state.exec.signal && state.cascade === undefined) {
    const caller = state.definition?.interruptBehavior === 'block' ? undefined : state.callerSignal
    return caller === undefined || caller === neverAborted() ? UNLINKED : linkSignals(caller)
  }
  return linkSignals(...bodyParents(state, view))
}

const UNLINKED: LinkedSignal = Object.freeze({ signal: neverAborted(), dispose() {} })

function bodyParents(state: CallState, view: ToolExecution): (AbortSignal | undefined)[] {
  const blocking = state.definition?.interruptBehavior === 'block'
  // The wrapper's view, the caller's signal (unless the tool blocks interrupts), the cascade.
  return [
    view.signal === state.exec.signal ? undefined : view.signal,
    blocking ? undefined : state.callerSignal,
    state.cascade,
  ]
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
  if (!state.definition) return { ok: false, error: new Error('no tool') }
  if (timeoutMs !== undefined) return invokeWithDeadline(state, args, view, timeoutMs)
  const link = bodySignal(state, view)
  const context = new RunContext(state, view, link.signal)
  if (link !== UNLINKED) return invokeAbortable(state, args, context, link)
  // Nobody can abort this call (the hot path): a synchronous body settles the stage at once, an
  // asynchronous one costs a single `then`.
  let value: unknown
  try {
    value = (state.definition.execute as (a: JsonValue, c: ToolRunContext) => unknown)(args, context)
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

async function invokeAbortable(
  state: CallState,
  args: JsonValue,
  context: ToolRunContext,
  link: LinkedSignal,
): Promise<ExecuteOutcome> {
  const { exec, host } = state
  const work = startBody(state, args, context)
  try {
    const settled = await settleWithin(work, link.signal, host.graceMs)
    if (!settled.settled) {
      host.trackOrphan(exec, 'body', work)
      return { ok: false, error: new Unresponsive(link.signal.reason) }
    }
    return { ok: true, value: settled.value }
  } catch (error) {
    return { ok: false, error: classifyWith(link.signal, error) }
  } finally {
    link.dispose()
  }
}

/**
 * One body run under a deadline. The body's AbortController exists only once somebody reads
 * the signal; the deadline is an entry in the runtime's shared deadline lists (no timer per
 * call). Whatever aborts first (the deadline or a parent signal), the body gets `graceMs` more,
 * then the run settles without it (Unresponsive) and the body is tracked as an orphan.
 */
class DeadlineRun {
  expired = false
  private settled = false
  private controller: AbortController | undefined
  private graceTimer: ReturnType<typeof setTimeout> | undefined
  private listening: [AbortSignal, () => void][] | undefined
  private readonly deadline: Deadline
  private resolve!: (outcome: ExecuteOutcome) => void
  private work: Promise<unknown> | undefined
  readonly outcome: Promise<ExecuteOutcome>

  constructor(
    private readonly state: CallState,
    readonly timeoutMs: number,
    private readonly parents: readonly AbortSignal[],
  ) {
    this.outcome = new Promise((resolve) => {
      this.resolve = resolve
    })
    this.deadline = state.host.deadlines.add(timeoutMs, () => this.expire())
    for (const parent of parents) {
      if (parent.aborted) this.startGrace(parent.reason)
      else {
        const listener = () => {
          this.controller?.abort(parent.reason)
          this.startGrace(parent.reason)
        }
        parent.addEventListener('abort', listener, { once: true })
        this.listening ??= []
        this.listening.push([parent, listener])
      }
    }
  }

  get reason(): unknown {
    if (this.expired) return new DeadlineExceeded(this.timeoutMs)
    return this.parents.find((p) => p.aborted)?.reason
  }

  get aborted(): boolean {
    return this.expired || this.parents.some((p) => p.aborted)
  }

  /** The body's signal: created on first read, already aborted if the call already is. */
  signal(): AbortSignal {
    if (this.controller) return this.controller.signal
    const controller = new AbortController()
    this.controller = controller
    if (this.aborted) controller.abort(this.reason)
    return controller.signal
  }

  run(work: Promise<unknown>): Promise<ExecuteOutcome> {
    this.work = work
    work.then(
      (value) => this.finish({ ok: true, value }),
      (error: unknown) =>
        this.finish({ ok: false, error: new BodyFailure(error, this.reason, this.aborted) }),
    )
    return this.outcome
  }

  private expire(): void {
    this.expired = true
    this.controller?.abort(new DeadlineExceeded(this.timeoutMs))
    this.startGrace(new DeadlineExceeded(this.timeoutMs))
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
    this.deadline.cancel()
    if (this.graceTimer !== undefined) clearTimeout(this.graceTimer)
    if (this.listening)
      for (const [parent, listener] of this.listening) parent.removeEventListener('abort', listener)
    this.resolve(outcome)
  }
}

function invokeWithDeadline(
  state: CallState,
  args: JsonValue,
  view: ToolExecution,
  timeoutMs: number,
): Promise<ExecuteOutcome> {
  const parents = bodyParents(state, view).filter(
    (p): p is AbortSignal => p !== undefined && p !== neverAborted(),
  )
  const run = new DeadlineRun(state, timeoutMs, parents)
  return run.run(startBody(state, args, new RunContext(state, view, () => run.signal())))
}

/** Remember which signal was aborted when the body threw, so the failure kind is not guessed. */
class BodyFailure {
  constructor(
    readonly error: unknown,
    readonly abortReason: unknown,
    readonly aborted: boolean,
  ) {}
}

function classifyWith(signal: AbortSignal, error: unknown): BodyFailure {
  return new BodyFailure(error, signal.reason, signal.aborted)
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
  readonly #signal: AbortSignal | (() => AbortSignal)

  constructor(state: CallState, view: ToolExecution, signal: AbortSignal | (() => AbortSignal)) {
    const exec = state.exec
    this.#state = state
    this.callId = exec.callId
    this.name = exec.name
    this.arguments = exec.arguments
    if (exec.agent !== undefined) (this as { agent?: string }).agent = exec.agent
    if (exec.parent !== undefined) (this as { parent?: ToolExecution['parent'] }).parent = exec.parent
    this.#signal = signal
    this.token = view.token
    this.jobs = state.host.jobs
    Object.freeze(this)
  }

  /** The body's signal (a deadline's is created on first read). */
  get signal(): AbortSignal {
    const signal = this.#signal
    return typeof signal === 'function' ? signal() : signal
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
    this.#state.host.session.append(type, { callId: this.callId, ...payload })
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
