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
// signal (`next({ signal })`, e.g. a deadline); the caller's signal is always fused back in
// before the body runs (inv. 6), unless the tool declared interruptBehavior 'block'. A body that
// ignores its signal is given `graceMs` after the abort, then the call settles without it and
// the late outcome is only logged (`tool/late-settle`).

class Unresponsive {
  constructor(readonly reason: unknown) {}
}

type Ctx = { readonly view: ToolExecution; readonly state: CallState; readonly args: JsonValue }

const terminal = (ctx: Ctx) => invokeBody(ctx.state, ctx.args, ctx.view)
const update = (ctx: Ctx, override: { signal?: AbortSignal }): Ctx =>
  override.signal === undefined
    ? ctx
    : { ...ctx, view: Object.freeze({ ...ctx.view, signal: override.signal }) }
// One composed chain per wrapper list (views are cached per registry version): no per-call closures.
const chains = new WeakMap<
  readonly ExecuteWrapper[],
  (ctx: Ctx) => ExecuteOutcome | Promise<ExecuteOutcome>
>()

function chainFor(wrappers: readonly ExecuteWrapper[]) {
  let chain = chains.get(wrappers)
  if (!chain) {
    // Re-entrant: a retry wrapper may call next() again after a failure.
    chain = compose<Ctx, ExecuteOutcome, { signal?: AbortSignal }>(
      wrappers.map((w) => (ctx, next) => w(ctx.view, async (override) => next(override))),
      terminal,
      { reentrant: true, update },
    )
    chains.set(wrappers, chain)
  }
  return chain
}

export async function runExecute(state: CallState, args: JsonValue): Promise<ExecuteOutcome> {
  const wrappers = state.host.registry.view(state.exec.agent).execute
  return chainFor(wrappers)({ view: state.exec, state, args })
}

async function invokeBody(state: CallState, args: JsonValue, view: ToolExecution): Promise<ExecuteOutcome> {
  const { exec, host, definition } = state
  if (!definition) return { ok: false, error: new Error('no tool') }
  const blocking = definition.interruptBehavior === 'block'
  // The body's signal: the wrapper's view, fused with the caller's (unless the tool blocks
  // interrupts) and the sibling cascade.
  const link = linkSignals(
    view.signal === exec.signal ? undefined : view.signal,
    blocking ? undefined : state.callerSignal,
    state.cascade,
  )
  const context = runContext(state, view, link.signal)
  state.bodyStarted = true
  let work: Promise<unknown>
  try {
    const value = (definition.execute as (a: JsonValue, c: ToolRunContext) => unknown)(args, context)
    work = value instanceof Promise ? value : Promise.resolve(value)
  } catch (error) {
    link.dispose()
    return { ok: false, error: classifyWith(link.signal, error) }
  }
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
  readonly signal: AbortSignal
  readonly token: symbol
  readonly jobs: ToolRunContext['jobs']
  readonly #state: CallState

  constructor(state: CallState, view: ToolExecution, signal: AbortSignal) {
    const exec = state.exec
    this.#state = state
    this.callId = exec.callId
    this.name = exec.name
    this.arguments = exec.arguments
    if (exec.agent !== undefined) (this as { agent?: string }).agent = exec.agent
    if (exec.parent !== undefined) (this as { parent?: ToolExecution['parent'] }).parent = exec.parent
    this.signal = signal
    this.token = view.token
    this.jobs = state.host.jobs
    Object.freeze(this)
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

function runContext(state: CallState, view: ToolExecution, signal: AbortSignal): ToolRunContext {
  return new RunContext(state, view, signal)
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
