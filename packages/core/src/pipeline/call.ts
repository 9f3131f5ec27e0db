import { describeThrown, failures } from '../errors/failures.js'
import { linkSignals } from '../signal/link.js'
import type { JsonValue, ToolCall, ToolExecution, ToolFailure, ToolResult } from '../types.js'
import { executeFailure, runExecute } from './execute.js'
import { failureCandidate, finalizeResult } from './finalize.js'
import { renderValue, validBlocks } from './output.js'
import { type Candidate, postExecute } from './post-execute.js'
import { notStarted, preExecute, runGuards } from './pre-execute.js'
import { prepareCall } from './prepare.js'
import type { CallOptions, CallState, PipelineHost, StageOutcome } from './state.js'

// The journey of one call (DESIGN.md §3), as a straight line of named stages:
//   log tool/call -> lookup/materialize/validate -> pre-execute (+approval) -> guards
//   -> execute (wrappers + body) -> output -> projectContent -> post-execute -> finalize -> freeze
// Every path ends in `finalizeResult`, so each call yields exactly one frozen result. Committing
// it (observers, `tool/result`, metrics) is the caller's job: a batch commits in model order.

const TIME_ORIGIN = performance.timeOrigin

export interface SettledCall {
  readonly result: ToolResult
  readonly exec: ToolExecution
}

export async function runCall(
  host: PipelineHost,
  call: ToolCall,
  options: CallOptions = {},
): Promise<SettledCall> {
  const t0 = performance.now()
  const startedAt = Math.round(TIME_ORIGIN + t0)
  const prepared = options.prepared ?? prepareCall(host.registry, call, (p) => host.live.has(p.token))
  const name = String(call.name)
  const callId = String(call.callId)

  // Built by assignment (no conditional spreads): this is the per-call hot path.
  const logged: Record<string, JsonValue> = { callId, name }
  if (call.agent !== undefined) logged.agent = call.agent
  // Only a genuine parent token counts (a forged or stale one is treated as absent).
  const parent = prepared.parent
  if (parent !== undefined) {
    logged.parentCallId = parent.callId
    logged.rootCallId = parent.rootCallId
  }
  if ('arguments' in prepared.logged) logged.arguments = prepared.logged.arguments
  else logged.argumentsText = prepared.logged.argumentsText
  host.session.appendFresh('tool/call', logged)

  const signal = linkSignals(call.signal, options.signal)
  const draft: { -readonly [K in keyof ToolExecution]: ToolExecution[K] } = {
    callId,
    name,
    arguments: prepared.args,
    signal: signal.signal,
    token: Symbol(),
  }
  if (call.agent !== undefined) draft.agent = call.agent
  if (parent !== undefined) draft.parent = parent
  const exec: ToolExecution = Object.freeze(draft)
  const definition = prepared.tool?.definition as CallState['definition']
  const state: CallState = {
    host,
    view: prepared.view,
    tool: prepared.tool,
    definition,
    exec,
    callerSignal: signal.signal,
    cascade: options.cascade,
    finalize: definition?.finalizeContent,
    contexts: [],
    concluded: false,
    parentOf: false,
  }
  try {
    const candidate = await journey(state, prepared, options)
    return { result: finalizeResult(state, candidate, startedAt, t0), exec }
  } catch (error) {
    // Defence in depth: a bug in the pipeline itself still yields exactly one result.
    const failure = failures.exception(name, 'the pipeline', describeThrown(error))
    return { result: finalizeResult(state, failureCandidate(failure), startedAt, t0), exec }
  } finally {
    if (state.parentOf) host.live.delete(exec.token)
    signal.dispose()
  }
}

async function journey(
  state: CallState,
  prepared: ReturnType<typeof prepareCall>,
  options: CallOptions,
): Promise<Candidate> {
  // Unknown tool or non-JSON arguments: nothing of the tool runs; post-execute still sees it.
  if (prepared.failure) return afterFailure(state, prepared.failure)
  if (prepared.validation) await prepared.validation
  const validated = prepared.validated!
  if (!validated.ok) return afterFailure(state, validated.failure)

  const early = notStarted(state)
  if (early) return outcomeToCandidate(state, early)

  let gate: StageOutcome
  const lane = options.preLane
  if (lane) {
    await lane.turn
    try {
      gate = notStarted(state) ?? (await preExecute(state))
      if (gate.kind === 'continue') gate = runGuards(state)
    } finally {
      lane.release()
    }
  } else {
    const pre = preExecute(state)
    gate = pre instanceof Promise ? await pre : pre
    if (gate.kind === 'continue') gate = runGuards(state)
  }
  if (gate.kind === 'fail') return outcomeToCandidate(state, gate as Extract<StageOutcome, { kind: 'fail' }>)
  const late = notStarted(state)
  if (late) return outcomeToCandidate(state, late)

  const tool = state.tool!
  let outcome: Awaited<ReturnType<typeof runExecute>>
  try {
    const running = runExecute(state, validated.value)
    outcome = running instanceof Promise ? await running : running
  } catch (error) {
    // A wrapper threw: final, post-execute is skipped (seed 002).
    return failureCandidate(
      failures.exception(state.exec.name, 'a tools/execute wrapper', describeThrown(error)),
    )
  }
  if (!outcome.ok) return afterFailure(state, executeFailure(state, outcome.error, tool.definition.timeoutMs))

  const rendering = renderValue(tool, validated.value, outcome.value, state.exec.parent === undefined)
  const rendered = rendering instanceof Promise ? await rendering : rendering
  if (!rendered.ok) return afterFailure(state, rendered.failure)
  let candidate: Candidate = { isError: false, content: rendered.content, value: rendered.value }
  if (rendered.meta !== undefined) candidate.meta = rendered.meta
  candidate = projectContent(state, candidate)
  if (candidate.isError) return candidate
  return afterPost(state, candidate)
}

function outcomeToCandidate(
  state: CallState,
  outcome: Extract<StageOutcome, { kind: 'fail' }>,
): Candidate | Promise<Candidate> {
  return outcome.final ? failureCandidate(outcome.failure) : afterFailure(state, outcome.failure)
}

function afterFailure(state: CallState, failure: ToolFailure): Candidate | Promise<Candidate> {
  return afterPost(state, failureCandidate(failure))
}

function afterPost(state: CallState, candidate: Candidate): Candidate | Promise<Candidate> {
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
    projected = project(state.exec, Object.freeze({ ...candidate }))
  } catch (error) {
    return failureCandidate(failures.exception(state.exec.name, 'projectContent', describeThrown(error)))
  }
  if (projected === undefined) return candidate
  const blocks = validBlocks(projected)
  if (!blocks.ok)
    return failureCandidate(failures.exception(state.exec.name, 'projectContent', `it ${blocks.problem}`))
  return { ...candidate, content: blocks.blocks }
}
