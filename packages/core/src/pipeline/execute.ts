import { describeThrown, failures } from '../errors/failures.js'
import { DeadlineExceeded, SiblingFailed, ToolError } from '../errors/tool-error.js'
import { compose } from '../hooks/compose.js'
import { materialize } from '../json/materialize.js'
import type { ExecuteOutcome, ExecuteWrapper } from '../registry/registry.js'
import { linkSignals, neverAborted } from '../signal/link.js'
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
  let next = ctx
  if (override.signal !== undefined)
    next = { ...next, view: Object.freeze({ ...ctx.view, signal: override.signal }) }
  const ms = override.timeoutMs
  if (
    ms !== undefined &&
    Number.isFinite(ms) &&
    ms > 0 &&
    (ctx.timeoutMs === undefined || ms < ctx.timeoutMs)
  ) {
    next = { ...next, timeoutMs: ms }
  }
  return next
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
      wrappers.map((w) => (ctx, next) => w(ctx.view, async (override) => next(override))),
      terminal,
      { reentrant: true, update },
    )
    chains.set(wrappers, chain)
  }
  return chain
}

export function runExecute(state: CallState, args: JsonValue): ExecuteOutcome | Promise<ExecuteOutcome> {
  return chainFor(state.view.execute)({ view: state.exec, state, args })
}

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

async function invokeBody(
  state: CallState,
  args: JsonValue,
  view: ToolExecution,
  timeoutMs: number | undefined,
): Promise<ExecuteOutcome> {
  if (!state.definition) return { ok: false, error: new Error('no tool') }
  if (timeoutMs !== undefined) return invokeWithDeadline(state, args, view, timeoutMs)
  const { exec, host } = state
  const link = linkSignals(...bodyParents(state, view))
  const work = startBody(state, args, new RunContext(state, view, link.signal))
  // Nobody can abort this call: await the body directly (the hot path).
  if (link.signal === neverAborted()) {
    try {
      return { ok: true, value: await work }
    } catch (error) {
      return { ok: false, error: classifyWith(link.signal, error) }
    }
  }
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

/** A deadline whose AbortController exists only once somebody reads the signal. */
class LazyDeadline {
  expired = false
  private controller: AbortController | undefined
  private readonly listening: [AbortSignal, () => void][] = []
  constructor(
    readonly timeoutMs: number,
    private readonly parents: readonly AbortSignal[],
  ) {}

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
    else {
      for (const parent of this.parents) {
        const listener = () => controller.abort(parent.reason)
        parent.addEventListener('abort', listener, { once: true })
        this.listening.push([parent, listener])
      }
    }
    return controller.signal
  }

  expire(): void {
    this.expired = true
    this.controller?.abort(new DeadlineExceeded(this.timeoutMs))
  }

  dispose(): void {
    for (const [parent, listener] of this.listening) parent.removeEventListener('abort', listener)
    this.listening.length = 0
  }
}

async function invokeWithDeadline(
  state: CallState,
  args: JsonValue,
  view: ToolExecution,
  timeoutMs: number,
): Promise<ExecuteOutcome> {
  const { exec, host } = state
  const parents = bodyParents(state, view).filter(
    (p): p is AbortSignal => p !== undefined && p !== neverAborted(),
  )
  const deadline = new LazyDeadline(timeoutMs, parents)
  let done = false
  let graceTimer: ReturnType<typeof setTimeout> | undefined
  let giveUp!: (reason: unknown) => void
  const gaveUp = new Promise<{ settled: false; reason: unknown }>((resolve) => {
    giveUp = (reason) => resolve({ settled: false, reason })
  })
  // Whatever aborts first (the deadline or a parent), the body gets graceMs more, then we leave it.
  const startGrace = (reason: unknown) => {
    if (done || graceTimer !== undefined) return
    graceTimer = setTimeout(() => giveUp(reason), host.graceMs)
  }
  const timer = setTimeout(() => {
    deadline.expire()
    startGrace(new DeadlineExceeded(timeoutMs))
  }, timeoutMs)
  const parentListeners: [AbortSignal, () => void][] = []
  for (const parent of parents) {
    if (parent.aborted) startGrace(parent.reason)
    else {
      const listener = () => startGrace(parent.reason)
      parent.addEventListener('abort', listener, { once: true })
      parentListeners.push([parent, listener])
    }
  }
  const work = startBody(state, args, new RunContext(state, view, () => deadline.signal()))
  try {
    const outcome = await Promise.race([work.then((value) => ({ settled: true as const, value })), gaveUp])
    if (!outcome.settled) {
      host.trackOrphan(exec, 'body', work)
      return { ok: false, error: new Unresponsive(outcome.reason) }
    }
    return { ok: true, value: outcome.value }
  } catch (error) {
    return { ok: false, error: new BodyFailure(error, deadline.reason, deadline.aborted) }
  } finally {
    done = true
    clearTimeout(timer)
    if (graceTimer !== undefined) clearTimeout(graceTimer)
    for (const [parent, listener] of parentListeners) parent.removeEventListener('abort', listener)
    deadline.dispose()
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
