import { describeThrown, failures } from '../errors/failures.js'
import { chainCache, compose } from '../hooks/compose.js'
import { materialize } from '../json/materialize.js'
import type { PostExecuteListener, PostExecuteResult } from '../registry/registry.js'
import type { ContextMessage, PostToolDecision } from '../types.js'
import { callerStop, GaveUp, stageStopped, waitFor } from './bounded.js'
import { isContextMessage } from './execute.js'
import { output, validBlocks } from './output.js'
import {
  ABANDONED,
  type CallState,
  type Candidate,
  failureCandidate,
  frozenCandidate,
  type Outcome,
} from './state.js'

// Stage ④: tools/post-execute. Listeners see the candidate (successes and denials alike) and
// may accept it, replace its content (presentation, not secrecy: the value stays), replace its
// value (re-validated and re-rendered), or block it with feedback. Replacing both at once, or
// the value of a failed result, is an error: the decision would be ambiguous. A listener that
// fails ends the call with that failure (finalizeContent still runs).

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

type Decided = Outcome<Candidate>

/** The candidate after policy; a listener's failure becomes the candidate (the call ends with it). */
export function postExecute(state: CallState, candidate: Candidate): Candidate | Promise<Candidate> {
  // No listeners: accept as it is, synchronously (the hot path).
  if (state.view.post.length === 0) return candidate
  const decided = postExecuteListeners(state, candidate)
  return decided instanceof Promise ? decided.then(asCandidate) : asCandidate(decided)
}

function asCandidate(decided: Decided): Candidate {
  return decided.ok ? decided.value : failureCandidate(decided.failure)
}

function postExecuteListeners(state: CallState, candidate: Candidate): Decided | Promise<Decided> {
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
    (waited): Decided | Promise<Decided> => {
      if (waited instanceof GaveUp || (!waited.ok && waited.stopped))
        return { ok: false, failure: stageStopped(state, 'tools/post-execute', waited).failure }
      if (!waited.ok) return listenerThrew(state, waited.error)
      return applyDecision(state, candidate, waited.value)
    },
  )
}

function listenerThrew(state: CallState, error: unknown): Decided {
  return {
    ok: false,
    failure: failures.exception(state.exec.name, 'a tools/post-execute listener', describeThrown(error)),
  }
}

function applyDecision(
  state: CallState,
  candidate: Candidate,
  decision: PostToolDecision,
): Decided | Promise<Decided> {
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
        return { ok: true, value: { ...candidate, content: blocks.blocks } }
      }
      if (hasValue) {
        if (candidate.isError || !state.tool) return problem('it replaced the value of a failed result')
        return output(state, exec.arguments, decision.value)
      }
      return { ok: true, value: candidate }
    }
    case 'block': {
      const blocks = validBlocks(decision.feedback)
      if (!blocks.ok) return problem(`its block feedback ${blocks.problem}`)
      const error = failures.blocked(exec.name)
      // Empty feedback would leave the model with nothing: the default message is the content.
      const content =
        blocks.blocks.length > 0 ? blocks.blocks : [{ type: 'text' as const, text: error.message }]
      return { ok: true, value: { isError: true, content, error } }
    }
    default:
      return problem('it returned no valid decision')
  }
}
