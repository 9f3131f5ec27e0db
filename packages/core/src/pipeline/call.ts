import { describeThrown, failures } from '../errors/failures.js'
import { isAbortSignal } from '../options/check.js'
import type { ExecuteOutcome } from '../registry/registry.js'
import type { FreshEvent } from '../session/log.js'
import { linkSignals } from '../signal/link.js'
import type { JsonValue, ToolCall, ToolExecution, ToolFailure, ToolResult } from '../types.js'
import {
  callerStop,
  GaveUp,
  type HostStage,
  HostWait,
  stageStopped,
  type Waited,
  waitFor,
} from './bounded.js'
import { executeFailure, isThenable, runExecute } from './execute.js'
import { failureCandidate, finalizeResult } from './finalize.js'
import { type Rendered, renderBounded, validBlocks } from './output.js'
import { type Candidate, frozenCandidate, postExecute } from './post-execute.js'
import { notStarted, preExecute, runGuards } from './pre-execute.js'
import { type Prepared, prepareCall } from './prepare.js'
import { ABANDONED, type CallOptions, type CallState, type PipelineHost, type StageOutcome } from './state.js'

// The journey of one call (DESIGN.md §3), as a straight line of named stages:
//   log tool/call -> lookup/materialize/validate -> pre-execute (+approval) -> guards
//   -> execute (wrappers + body) -> output -> projectContent -> post-execute -> finalize -> freeze
// Every path ends in `finalizeResult`, so each call yields exactly one frozen result. Committing
// it (observers, `tool/result`, metrics) is the caller's `finish`: a batch commits in model order.
// Each stage returns its outcome synchronously when it has nothing to wait for, and the next stage
// is chained only on a real promise: a call whose only asynchronous part is its body costs one
// `then` on the body's outcome and one to conclude, not an async frame per stage.

const TIME_ORIGIN = performance.timeOrigin

export interface SettledCall {
  readonly result: ToolResult
  readonly exec: ToolExecution
}

const NO_OPTIONS: CallOptions = Object.freeze({})

export function runCall<R>(
  host: PipelineHost,
  call: ToolCall,
  options: CallOptions = NO_OPTIONS,
  finish: (settled: SettledCall) => R,
): Promise<R> {
  let state: CallState
  let journeyed: Stage<Candidate>
  try {
    state = startCall(host, call, options)
    journeyed = journey(state, options)
  } catch (error) {
    // The call could not even be logged (a sink that throws): the caller hears of it.
    return Promise.reject(error)
  }
  // Even a call decided synchronously concludes in a microtask: observers and `tool/result`
  // never run inside the caller's execute() call, whatever the tool and its listeners did.
  return (journeyed instanceof Promise ? journeyed : Promise.resolve(journeyed)).then(
    (candidate) => conclude(state, candidate, finish),
    (error: unknown) => conclude(state, pipelineBug(state, error), finish),
  )
}

/** Log `tool/call`, then build the frozen execution and the call's working state. */
function startCall(host: PipelineHost, call: ToolCall, options: CallOptions): CallState {
  const t0 = performance.now()
  const prepared = options.prepared ?? prepareCall(host.registry, call, (p) => host.live.has(p.token))
  const name = String(call.name)
  const callId = String(call.callId)
  // Read once, checked before anything is logged (execute/executeBatch checked it too: a getter
  // cannot answer the check one thing and the use another).
  const callSignal = call.signal
  if (callSignal !== undefined && !isAbortSignal(callSignal))
    throw new TypeError(`call ${JSON.stringify(callId)}: signal must be an AbortSignal or undefined`)

  // Built by assignment (no conditional spreads): this is the per-call hot path.
  const logged: FreshEvent = { seq: 0, type: 'tool/call', callId, name }
  if (call.agent !== undefined) logged.agent = call.agent
  // Only a genuine parent token counts (a forged or stale one is treated as absent).
  const parent = prepared.parent
  if (parent !== undefined) {
    logged.parentCallId = parent.callId
    logged.rootCallId = parent.rootCallId
  }
  if (prepared.argumentsText === undefined) logged.arguments = prepared.args
  else logged.argumentsText = prepared.argumentsText
  host.session.appendFresh(logged)

  const signal = linkSignals(callSignal, options.signal)
  const draft: { -readonly [K in keyof ToolExecution]: ToolExecution[K] } = {
    callId,
    name,
    arguments: prepared.args,
    signal: signal.signal,
    token: Symbol(),
  }
  if (call.agent !== undefined) draft.agent = call.agent
  if (parent !== undefined) draft.parent = parent
  const definition = prepared.tool?.definition as CallState['definition']
  return {
    host,
    prepared,
    view: prepared.view,
    tool: prepared.tool,
    definition,
    exec: Object.freeze(draft),
    callerSignal: signal.signal,
    unlink: signal.dispose,
    cascade: options.cascade,
    finalize: definition?.finalizeContent,
    contexts: undefined,
    concluded: false,
    parentOf: false,
    ran: false,
    bodies: 0,
    bodyPromise: undefined,
    expired: undefined,
    waiting: undefined,
    abandoned: 0,
    t0,
  }
}

/** The one way out: release what the call held, finalize and freeze, hand to `finish`. */
function conclude<R>(state: CallState, candidate: Candidate, finish: (settled: SettledCall) => R): R {
  const exec = state.exec
  state.abandoned = ABANDONED.ended
  if (state.parentOf) state.host.live.delete(exec.token)
  state.unlink()
  const t0 = state.t0
  return finish({ result: finalizeResult(state, candidate, Math.round(TIME_ORIGIN + t0), t0), exec })
}

/** Defence in depth: a bug in the pipeline itself still yields exactly one result. */
function pipelineBug(state: CallState, error: unknown): Candidate {
  return failureCandidate(failures.exception(state.exec.name, 'the pipeline', describeThrown(error)))
}

/** A stage's outcome: a value when it had nothing to wait for (the hot path), else a promise. */
type Stage<T> = T | Promise<T>

function journey(state: CallState, options: CallOptions): Stage<Candidate> {
  const prepared = state.prepared
  try {
    // Unknown tool or non-JSON arguments: nothing of the tool runs; post-execute still sees it.
    if (prepared.failure) return afterFailure(state, prepared.failure)
    if (prepared.validation)
      return waitFor(
        state,
        'validation',
        prepared.validation,
        { signals: callerStop(state), budget: true },
        (waited) => {
          if (waited instanceof GaveUp || (!waited.ok && waited.stopped))
            return stopped(state, 'validation', waited)
          // prepareCall turns a validator's rejection into a failure: this promise never rejects.
          if (!waited.ok) return pipelineBug(state, waited.error)
          return validatedCall(state, prepared, options)
        },
      )
    return validatedCall(state, prepared, options)
  } catch (error) {
    return pipelineBug(state, error)
  }
}

function validatedCall(state: CallState, prepared: Prepared, options: CallOptions): Stage<Candidate> {
  const validated = prepared.validated!
  if (!validated.ok) return afterFailure(state, validated.failure)
  const early = notStarted(state)
  if (early) return outcomeToCandidate(state, early)
  const gated = gate(state, options)
  if (gated instanceof Promise) return gated.then((outcome) => afterGate(state, outcome, validated.value))
  return afterGate(state, gated, validated.value)
}

function afterGate(state: CallState, outcome: StageOutcome, args: JsonValue): Stage<Candidate> {
  if (outcome.kind === 'fail') return outcomeToCandidate(state, outcome)
  const late = notStarted(state)
  if (late) return outcomeToCandidate(state, late)
  return execute(state, args)
}

/** Pre-execute (and approval), then the guards; in a batch, in model order (the lane). */
function gate(state: CallState, options: CallOptions): Stage<StageOutcome> {
  const lane = options.preLane
  if (lane && state.view.pre.length > 0) return gateInLane(state, lane)
  // Without pre-execute listeners there is nothing to order (guards are synchronous and calls
  // start in model order): the call does not wait for the lane. Releasing hands the lane on
  // only once this call's turn came, so a later call's prompt still follows an earlier one's.
  if (lane) lane.release()
  const pre = preExecute(state)
  if (pre instanceof Promise) return pre.then((p) => (p.kind === 'continue' ? runGuards(state) : p))
  return pre.kind === 'continue' ? runGuards(state) : pre
}

function gateInLane(state: CallState, lane: NonNullable<CallOptions['preLane']>): Promise<StageOutcome> {
  return lane.turn.then(async () => {
    try {
      const pre = notStarted(state) ?? (await preExecute(state))
      return pre.kind === 'continue' ? runGuards(state) : pre
    } finally {
      lane.release()
    }
  })
}

function execute(state: CallState, args: JsonValue): Stage<Candidate> {
  let running: Stage<ExecuteOutcome>
  try {
    running = runExecute(state, args)
  } catch (error) {
    return wrapperThrew(state, error)
  }
  if (!(running instanceof Promise)) return afterExecute(state, args, running)
  // A body run bounds itself: without wrappers, or when the chain returned exactly the body's
  // promise, there is nothing else to wait for.
  if (state.view.execute.length === 0 || running === state.bodyPromise)
    return running.then(
      (outcome) => afterExecute(state, args, outcome),
      (error: unknown) => wrapperThrew(state, error),
    )
  // Wrappers that wait on their own (before next(), after it, instead of it) are host code.
  const block = state.definition?.interruptBehavior === 'block'
  return new HostWait<ExecuteOutcome, Candidate>(state, 'tools/execute', {
    signals: block ? [] : callerStop(state),
    budget: true,
  }).run(running, (waited) => {
    if (waited instanceof GaveUp) return stopped(state, 'tools/execute', waited)
    if (waited.ok) return afterExecute(state, args, waited.value)
    if (waited.stopped) return stopped(state, 'tools/execute', waited)
    return wrapperThrew(state, waited.error)
  })
}

/**
 * A stage's wait gave up, or its host code failed after the call was stopped (that failure is
 * logged as a listener error and the stop decides the result). Final when the code stalled.
 */
export function stopped(
  state: CallState,
  stage: HostStage,
  waited: GaveUp | Extract<Waited<unknown>, { ok: false }>,
): Stage<Candidate> {
  const { failure, final } = stageStopped(state, stage, waited)
  return final ? failureCandidate(failure) : afterFailure(state, failure)
}

/** A wrapper threw: final, post-execute is skipped (seed 002). */
function wrapperThrew(state: CallState, error: unknown): Candidate {
  return failureCandidate(
    failures.exception(state.exec.name, 'a tools/execute wrapper', describeThrown(error)),
  )
}

function afterExecute(state: CallState, args: JsonValue, outcome: ExecuteOutcome): Stage<Candidate> {
  const tool = state.tool!
  if (!outcome.ok) return afterFailure(state, executeFailure(state, outcome.error, tool.definition.timeoutMs))
  const rendering = renderBounded(state, tool, args, outcome.value)
  if (rendering instanceof Promise) return rendering.then((rendered) => afterRender(state, rendered))
  return afterRender(state, rendering)
}

function afterRender(state: CallState, rendered: Rendered): Stage<Candidate> {
  if (!rendered.ok) return afterFailure(state, rendered.failure)
  const candidate: Candidate = { isError: false, content: rendered.content, value: rendered.value }
  if (rendered.meta !== undefined) candidate.meta = rendered.meta
  const projected = projectContent(state, candidate)
  if (projected.isError) return projected
  return afterPost(state, projected)
}

function outcomeToCandidate(
  state: CallState,
  outcome: Extract<StageOutcome, { kind: 'fail' }>,
): Stage<Candidate> {
  return outcome.final ? failureCandidate(outcome.failure) : afterFailure(state, outcome.failure)
}

function afterFailure(state: CallState, failure: ToolFailure): Stage<Candidate> {
  return afterPost(state, failureCandidate(failure))
}

function afterPost(state: CallState, candidate: Candidate): Stage<Candidate> {
  const post = postExecute(state, candidate)
  if (post instanceof Promise) return post.then((p) => (p.ok ? p.candidate : failureCandidate(p.failure)))
  return post.ok ? post.candidate : failureCandidate(post.failure)
}

/** The tool's own projection of its successful result, applied before post-execute policy. */
function projectContent(state: CallState, candidate: Candidate): Candidate {
  const project = state.definition?.projectContent as
    | ((e: ToolExecution, r: Candidate) => unknown)
    | undefined
  if (!project) return candidate
  let projected: unknown
  try {
    projected = project(state.exec, frozenCandidate(candidate))
  } catch (error) {
    return failureCandidate(failures.exception(state.exec.name, 'projectContent', describeThrown(error)))
  }
  if (projected === undefined) return candidate
  if (isThenable(projected)) {
    // Synchronous by contract: a promise is never awaited (its rejection is absorbed).
    Promise.resolve(projected).catch(() => {})
    return failureCandidate(
      failures.exception(
        state.exec.name,
        'projectContent',
        'it returned a promise; projectContent is synchronous',
      ),
    )
  }
  const blocks = validBlocks(projected)
  if (!blocks.ok)
    return failureCandidate(failures.exception(state.exec.name, 'projectContent', `it ${blocks.problem}`))
  return { ...candidate, content: blocks.blocks }
}
