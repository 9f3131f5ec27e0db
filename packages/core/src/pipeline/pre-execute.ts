import type { ApprovalDecision } from '../approval/service.js'
import { assertNever } from '../errors/assert-never.js'
import { describeThrown, failures } from '../errors/failures.js'
import { SiblingFailed } from '../errors/tool-error.js'
import { chainCache, compose } from '../hooks/compose.js'
import type { PreExecuteListener } from '../registry/registry.js'
import type { GuardDenial, PreToolDecision, ToolFailure } from '../types.js'
import { callerStop, GaveUp, stageStopped, waitFor } from './bounded.js'
import { isThenable } from './execute.js'
import { ABANDONED, type CallOptions, type CallState, type Failed, type Outcome, PASS } from './state.js'

// Stage ① and ②: the tools/pre-execute waterfall (allow | deny | cancel | ask; `next()`
// delegates; the default is allow), the approval service for `ask` (only 'allowed-once'
// continues), then the monotonic guards (a string denies; nothing can re-allow). A throw in any
// of these is a final result: post-execute is skipped (seed 002). Cancellation is checked before
// and after: an aborted call never reaches the body.

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

type Gated = Outcome<undefined>

/** Pre-execute (and approval), then the guards; in a batch, pre-execute runs in model order (the lane). */
export function gate(state: CallState, options: CallOptions): Gated | Promise<Gated> {
  const early = notStarted(state)
  if (early) return early
  const lane = options.preLane
  if (lane && state.view.pre.length > 0) return gateInLane(state, lane)
  // Without pre-execute listeners there is nothing to order (guards are synchronous and calls
  // start in model order): the call does not wait for the lane. Releasing hands the lane on
  // only once this call's turn came, so a later call's prompt still follows an earlier one's.
  if (lane) lane.release()
  const pre = preExecute(state)
  return pre instanceof Promise ? pre.then((p) => guarded(state, p)) : guarded(state, pre)
}

function gateInLane(state: CallState, lane: NonNullable<CallOptions['preLane']>): Promise<Gated> {
  return lane.turn.then(async () => {
    try {
      return guarded(state, notStarted(state) ?? (await preExecute(state)))
    } finally {
      lane.release()
    }
  })
}

/** After pre-execute allowed the call: the guards, then a last look at cancellation. */
function guarded(state: CallState, pre: Gated): Gated {
  if (!pre.ok) return pre
  return runGuards(state) ?? notStarted(state) ?? PASS
}

/** Cancellation is checked between stages: an aborted call never reaches the next one. */
function notStarted(state: CallState): Failed | undefined {
  const name = state.exec.name
  if (state.callerSignal.aborted) return { ok: false, failure: failures.cancelledBeforeStart(name) }
  const reason = state.cascade?.aborted ? state.cascade.reason : undefined
  if (reason instanceof SiblingFailed)
    return { ok: false, failure: failures.siblingFailed(name, reason.failedCallId) }
  return undefined
}

function preExecute(state: CallState): Gated | Promise<Gated> {
  // No listeners: the default is allow, decided synchronously (the hot path).
  if (state.view.pre.length === 0) return PASS
  return preExecuteListeners(state)
}

function preExecuteListeners(state: CallState): Gated | Promise<Gated> {
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
      if (waited instanceof GaveUp || (!waited.ok && waited.stopped))
        return { ok: false, ...stageStopped(state, 'tools/pre-execute', waited) }
      if (!waited.ok) return listenerThrew(state, waited.error)
      // Async listeners may have seen an abort: re-check before acting on their decision.
      return notStarted(state) ?? decide(state, waited.value)
    },
  )
}

function listenerThrew(state: CallState, error: unknown): Failed {
  return {
    ok: false,
    failure: failures.exception(state.exec.name, 'a tools/pre-execute listener', describeThrown(error)),
    final: true,
  }
}

function decide(state: CallState, decision: unknown): Gated | Promise<Gated> {
  const checked = checkDecision(decision, state.exec.name)
  switch (checked.kind) {
    case 'allow':
      return PASS
    case 'deny':
      return { ok: false, failure: failures.denied(checked.reason, checked.info) }
    case 'invalid':
      return { ok: false, failure: checked.failure }
    case 'cancel':
      return {
        ok: false,
        failure: failures.cancelledBeforeStart(state.exec.name, 'a policy cancelled it'),
      }
    case 'ask':
      return ask(state, checked)
    default:
      return assertNever(checked)
  }
}

/** A decision as checked: a well-formed one, or the failure that replaces a malformed one. */
type Checked = PreToolDecision | { readonly kind: 'invalid'; readonly failure: ToolFailure }

/** Fail closed on anything that is not a well-formed decision. */
function checkDecision(decision: unknown, name: string): Checked {
  const d = decision as Partial<Record<string, unknown>> | null | undefined
  switch (d?.kind) {
    case 'allow':
    case 'cancel':
      return d as PreToolDecision
    case 'deny':
      return typeof d.reason === 'string' && d.reason !== ''
        ? (d as PreToolDecision)
        : { kind: 'invalid', failure: failures.deniedNoReason(name) }
    case 'ask':
      return d as PreToolDecision
    default:
      return { kind: 'invalid', failure: failures.failedClosed(name) }
  }
}

async function ask(state: CallState, decision: Extract<PreToolDecision, { kind: 'ask' }>): Promise<Gated> {
  const { exec, host } = state
  const approval = host.approval
  if (!approval) return { ok: false, failure: failures.approvalUnsupported(exec.name) }
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
    return { ok: false, ...stageStopped(state, 'approval', waited) }
  }
  if (!waited.ok)
    return {
      ok: false,
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
      return PASS
    case 'rejected':
      return { ok: false, failure: failures.approvalRejected(exec.name) }
    case 'cancelled':
      return { ok: false, failure: failures.approvalCancelled(exec.name) }
    case 'unavailable':
      return { ok: false, failure: failures.approvalUnavailable(exec.name, outcome.why) }
    default:
      return assertNever(outcome)
  }
}

/** Monotonic guards: the first string denies; a throw is final; anything else but undefined denies. */
function runGuards(state: CallState): Failed | undefined {
  const { exec } = state
  for (const guard of state.view.guards) {
    let verdict: unknown
    try {
      verdict = guard(exec)
    } catch (error) {
      return {
        ok: false,
        failure: failures.exception(exec.name, 'a guard', describeThrown(error)),
        final: true,
      }
    }
    if (verdict === undefined) continue
    if (isThenable(verdict)) {
      // Guards are synchronous by contract: a promise is not awaited (its rejection is absorbed).
      Promise.resolve(verdict).catch(() => {})
      return {
        ok: false,
        failure: failures.exception(exec.name, 'a guard', 'it returned a promise; guards are synchronous'),
        final: true,
      }
    }
    const message =
      typeof verdict === 'object' && verdict !== null ? (verdict as GuardDenial).message : undefined
    if (typeof message === 'string' && message.trim() !== '')
      return { ok: false, failure: failures.denied(message) }
    const reason = typeof verdict === 'string' && verdict.trim() !== '' ? verdict : undefined
    return { ok: false, failure: failures.guardDenied(exec.name, reason) }
  }
  return undefined
}
