import type { ApprovalDecision } from '../approval/service.js'
import { describeThrown, failures } from '../errors/failures.js'
import { SiblingFailed } from '../errors/tool-error.js'
import { chainCache, compose } from '../hooks/compose.js'
import type { PreExecuteListener } from '../registry/registry.js'
import type { PreToolDecision } from '../types.js'
import { callerStop, GaveUp, stageStopped, waitFor } from './bounded.js'
import { isThenable } from './execute.js'
import { ABANDONED, type CallState, CONTINUE, type StageOutcome } from './state.js'

// Stage ① and ②: the tools/pre-execute waterfall (allow | deny | cancel | ask; `next()`
// delegates; the default is allow), the approval service for `ask` (only 'allowed-once'
// continues), then the monotonic guards (a string denies; nothing can re-allow). A throw in any
// of these is a final result: post-execute is skipped (seed 002).

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const allow = () => ALLOW
/** What a listener's late next() gets once the stage gave up on it: no later listener runs. */
const CLOSED: PreToolDecision = Object.freeze({ kind: 'cancel' })

const chainFor = chainCache((listeners: readonly PreExecuteListener[]) =>
  compose<CallState, PreToolDecision>(
    listeners.map(
      (l) => (state, next) => l(state.exec, () => (state.abandoned & ABANDONED.pre ? CLOSED : next())),
    ),
    allow,
  ),
)

/** Cancellation is checked between stages: an aborted call never reaches the next one. */
export function notStarted(state: CallState): Extract<StageOutcome, { kind: 'fail' }> | undefined {
  const name = state.exec.name
  if (state.callerSignal.aborted) return { kind: 'fail', failure: failures.cancelledBeforeStart(name) }
  const reason = state.cascade?.aborted ? state.cascade.reason : undefined
  if (reason instanceof SiblingFailed)
    return { kind: 'fail', failure: failures.siblingFailed(name, reason.failedCallId) }
  return undefined
}

export function preExecute(state: CallState): StageOutcome | Promise<StageOutcome> {
  // No listeners: the default is allow, decided synchronously (the hot path).
  if (state.view.pre.length === 0) return CONTINUE
  return preExecuteListeners(state)
}

function preExecuteListeners(state: CallState): StageOutcome | Promise<StageOutcome> {
  let pending: PreToolDecision | Promise<PreToolDecision>
  try {
    pending = chainFor(state.view.pre)(state)
  } catch (error) {
    return listenerThrew(state, error)
  }
  // Synchronous listeners are decided without a microtask; async ones are waited for within bounds.
  if (!(pending instanceof Promise)) return decide(state, pending)
  return waitFor(
    state,
    'tools/pre-execute',
    pending,
    { signals: callerStop(state), budget: true },
    (waited) => {
      if (waited instanceof GaveUp || (!waited.ok && waited.stopped)) {
        const { failure, final } = stageStopped(state, 'tools/pre-execute', waited)
        return { kind: 'fail', failure, final }
      }
      if (!waited.ok) return listenerThrew(state, waited.error)
      // Async listeners may have seen an abort: re-check before acting on their decision.
      return notStarted(state) ?? decide(state, waited.value)
    },
  )
}

function listenerThrew(state: CallState, error: unknown): StageOutcome {
  return {
    kind: 'fail',
    failure: failures.exception(state.exec.name, 'a tools/pre-execute listener', describeThrown(error)),
    final: true,
  }
}

function decide(state: CallState, decision: unknown): StageOutcome | Promise<StageOutcome> {
  const checked = checkDecision(decision)
  switch (checked.kind) {
    case 'allow':
      return CONTINUE
    case 'deny':
      return { kind: 'fail', failure: failures.denied(checked.reason, checked.info) }
    case 'cancel':
      return {
        kind: 'fail',
        failure: failures.cancelledBeforeStart(state.exec.name, 'a policy cancelled it'),
      }
    case 'ask':
      return ask(state, checked)
    default:
      return assertNever(checked)
  }
}

/** Fail closed on anything that is not a well-formed decision. */
function checkDecision(decision: unknown): PreToolDecision {
  const d = decision as Partial<Record<string, unknown>> | null | undefined
  switch (d?.kind) {
    case 'allow':
    case 'cancel':
      return d as PreToolDecision
    case 'deny':
      return typeof d.reason === 'string' && d.reason !== ''
        ? (d as PreToolDecision)
        : { kind: 'deny', reason: 'This call was denied by policy.' }
    case 'ask':
      return d as PreToolDecision
    default:
      return {
        kind: 'deny',
        reason: 'This call was denied: a policy gave no valid decision, so it failed closed.',
      }
  }
}

async function ask(
  state: CallState,
  decision: Extract<PreToolDecision, { kind: 'ask' }>,
): Promise<StageOutcome> {
  const { exec, host } = state
  const approval = host.approval
  if (!approval) return { kind: 'fail', failure: failures.approvalUnsupported(exec.name) }
  const request = {
    callId: exec.callId,
    toolName: exec.name,
    ...(exec.agent === undefined ? {} : { agent: exec.agent }),
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(decision.displayReason === undefined ? {} : { displayReason: decision.displayReason }),
  }
  host.session.appendTrusted('approval/asked', request)
  let pending: Promise<ApprovalDecision>
  try {
    pending = Promise.resolve(approval.request({ ...request, signal: state.callerSignal }))
  } catch (error) {
    pending = Promise.reject(error)
  }
  // No budget: a person answers (the prompt may stay open while they are away). The caller's
  // abort still ends the wait, within the grace, whatever the answerer does with its signal.
  const waited = await waitFor(state, 'approval', pending, { signals: callerStop(state) }, (w) => w)
  if (waited instanceof GaveUp || (!waited.ok && waited.stopped)) {
    host.session.appendTrusted('approval/decided', { callId: exec.callId, outcome: 'cancelled' })
    const { failure, final } = stageStopped(state, 'approval', waited)
    return { kind: 'fail', failure, final }
  }
  if (!waited.ok)
    return {
      kind: 'fail',
      failure: failures.exception(exec.name, 'the approval service', describeThrown(waited.error)),
      final: true,
    }
  const outcome = waited.value
  host.session.appendTrusted('approval/decided', { callId: exec.callId, outcome: outcome.outcome })
  // An interruption while the prompt was open is a cancellation, never a user rejection.
  const cancelled = notStarted(state)
  if (cancelled) return cancelled
  switch (outcome.outcome) {
    case 'allowed-once':
      return CONTINUE
    case 'rejected':
      return { kind: 'fail', failure: failures.approvalRejected(exec.name) }
    case 'cancelled':
      return { kind: 'fail', failure: failures.approvalCancelled(exec.name) }
    case 'unavailable':
      return { kind: 'fail', failure: failures.approvalUnavailable(exec.name, outcome.why) }
    default:
      return assertNever(outcome)
  }
}

/** Monotonic guards: the first string denies; a throw is final; anything else but undefined denies. */
export function runGuards(state: CallState): StageOutcome {
  const { exec } = state
  for (const guard of state.view.guards) {
    let verdict: unknown
    try {
      verdict = guard(exec)
    } catch (error) {
      return {
        kind: 'fail',
        failure: failures.exception(exec.name, 'a guard', describeThrown(error)),
        final: true,
      }
    }
    if (verdict === undefined) continue
    if (isThenable(verdict)) {
      // Guards are synchronous by contract: a promise is not awaited (its rejection is absorbed).
      Promise.resolve(verdict).catch(() => {})
      return {
        kind: 'fail',
        failure: failures.exception(exec.name, 'a guard', 'it returned a promise; guards are synchronous'),
        final: true,
      }
    }
    const reason =
      typeof verdict === 'string' && verdict !== '' ? verdict : 'This call was denied by a guard.'
    return { kind: 'fail', failure: failures.guardDenied(reason) }
  }
  return CONTINUE
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`)
}
