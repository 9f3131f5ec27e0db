import { describeThrown, failures } from '../errors/failures.js'
import { chainCache, compose } from '../hooks/compose.js'
import { materialize } from '../json/materialize.js'
import type { PostExecuteListener, PostExecuteResult } from '../registry/registry.js'
import type { ContextMessage, PostToolDecision, ToolFailure } from '../types.js'
import { callerStop, GaveUp, stageStopped, waitFor } from './bounded.js'
import { isContextMessage } from './execute.js'
import { type Rendered, renderBounded, validBlocks } from './output.js'
import { ABANDONED, type CallState } from './state.js'

// Stage ④: tools/post-execute. Listeners see the candidate (successes and denials alike) and
// may accept it, replace its content (presentation, not secrecy: the value stays), replace its
// value (re-validated and re-rendered), or block it with feedback. Replacing both at once, or
// the value of a failed result, is an error: the decision would be ambiguous.

export type Candidate = {
  isError: boolean
  content: readonly import('../types.js').ContentBlock[]
  value?: import('../types.js').JsonValue
  meta?: import('../types.js').JsonValue
  error?: ToolFailure
}

/**
 * The frozen copy of a candidate that hooks see. Built field by field: V8 freezes a spread copy
 * (`Object.freeze({ ...c })`) about ten times slower than an object literal.
 */
export function frozenCandidate(candidate: Candidate): PostExecuteResult {
  const copy: { -readonly [K in keyof PostExecuteResult]: PostExecuteResult[K] } = {
    isError: candidate.isError,
    content: candidate.content,
  }
  if (candidate.value !== undefined) copy.value = candidate.value
  if (candidate.meta !== undefined) copy.meta = candidate.meta
  if (candidate.error !== undefined) copy.error = candidate.error
  return Object.freeze(copy)
}

const ACCEPT: PostToolDecision = Object.freeze({ kind: 'accept' })
const accept = () => ACCEPT
/** What a listener's late next() gets once the stage gave up on it: no later listener runs. */
const CLOSED: PostToolDecision = Object.freeze({
  kind: 'block',
  feedback: Object.freeze([Object.freeze({ type: 'text', text: 'This call already ended.' })]),
})

type Ctx = { readonly state: CallState; readonly result: PostExecuteResult }
const chainFor = chainCache((listeners: readonly PostExecuteListener[]) =>
  compose<Ctx, PostToolDecision>(
    listeners.map(
      (l) => (ctx, next) =>
        l(ctx.state.exec, ctx.result, () => (ctx.state.abandoned & ABANDONED.post ? CLOSED : next())),
    ),
    accept,
  ),
)

/** Returns the candidate after policy, or a failure that ends the call (a listener threw). */
type PostOutcome = { ok: true; candidate: Candidate } | { ok: false; failure: ToolFailure }

export function postExecute(state: CallState, candidate: Candidate): PostOutcome | Promise<PostOutcome> {
  // No listeners: accept as it is, synchronously (the hot path).
  if (state.view.post.length === 0) return { ok: true, candidate }
  return postExecuteListeners(state, candidate)
}

function postExecuteListeners(state: CallState, candidate: Candidate): PostOutcome | Promise<PostOutcome> {
  const frozen = frozenCandidate(candidate)
  let pending: PostToolDecision | Promise<PostToolDecision>
  try {
    pending = chainFor(state.view.post)({ state, result: frozen })
  } catch (error) {
    return listenerThrew(state, error)
  }
  // Synchronous listeners are applied without a microtask; async ones are waited for within bounds.
  if (!(pending instanceof Promise)) return applyDecision(state, candidate, pending)
  // After the call's deadline passed, its listeners get the grace, not a fresh budget.
  const timedOut = candidate.error?.kind === 'timeout' ? state.expired : undefined
  return waitFor(
    state,
    'tools/post-execute',
    pending,
    { signals: callerStop(state), budget: true, stoppedBy: timedOut },
    (waited) => {
      if (waited instanceof GaveUp || (!waited.ok && waited.stopped))
        return { ok: false, failure: stageStopped(state, 'tools/post-execute', waited).failure }
      if (!waited.ok) return listenerThrew(state, waited.error)
      return applyDecision(state, candidate, waited.value)
    },
  )
}

function listenerThrew(state: CallState, error: unknown): PostOutcome {
  return {
    ok: false,
    failure: failures.exception(state.exec.name, 'a tools/post-execute listener', describeThrown(error)),
  }
}

function applyDecision(
  state: CallState,
  candidate: Candidate,
  decision: PostToolDecision,
): PostOutcome | Promise<PostOutcome> {
  const { exec } = state
  const problem = (what: string) => ({
    ok: false as const,
    failure: failures.exception(exec.name, 'a tools/post-execute listener', what),
  })
  const contexts = decision?.additionalContexts
  if (contexts !== undefined) {
    const checked = materialize(contexts)
    if (!checked.ok || !Array.isArray(checked.value) || !checked.value.every(isContextMessage)) {
      return problem('it returned invalid additionalContexts')
    }
    state.contexts ??= []
    state.contexts.push(...(checked.value as readonly ContextMessage[]))
  }
  switch (decision?.kind) {
    case 'accept': {
      const hasContent = decision.content !== undefined
      const hasValue = 'value' in decision && decision.value !== undefined
      if (hasContent && hasValue) return problem('it replaced both content and value; replace one of them')
      if (hasContent) {
        const blocks = validBlocks(decision.content)
        if (!blocks.ok) return problem(`its replacement content ${blocks.problem}`)
        return { ok: true, candidate: { ...candidate, content: blocks.blocks } }
      }
      if (hasValue) {
        if (candidate.isError || !state.tool) return problem('it replaced the value of a failed result')
        const rendering = renderBounded(state, state.tool, exec.arguments, decision.value)
        return rendering instanceof Promise ? rendering.then(replacedValue) : replacedValue(rendering)
      }
      return { ok: true, candidate }
    }
    case 'block': {
      const blocks = validBlocks(decision.feedback)
      if (!blocks.ok) return problem(`its block feedback ${blocks.problem}`)
      return { ok: true, candidate: { isError: true, content: blocks.blocks, error: failures.blocked() } }
    }
    default:
      return problem('it returned no valid decision')
  }
}

/** The candidate after a post-execute listener replaced the value (re-validated, re-rendered). */
function replacedValue(rendered: Rendered): PostOutcome {
  if (!rendered.ok) return { ok: false, failure: rendered.failure }
  const next: Candidate = { isError: false, content: rendered.content, value: rendered.value }
  if (rendered.meta !== undefined) next.meta = rendered.meta
  return { ok: true, candidate: next }
}
