import { describeThrown, failures } from '../errors/failures.js'
import { materialize } from '../json/materialize.js'
import { markSnapshot } from '../json/snapshot.js'
import type { FreshEvent } from '../session/log.js'
import type { ContentBlock, ContextMessage, JsonValue, ToolFailure, ToolResult } from '../types.js'
import { isThenable } from './execute.js'
import { validBlocks } from './output.js'
import { type CallState, type Candidate, failureCandidate, frozenCandidate } from './state.js'

// Stage ⑤ and the freeze: the tool's own finalizeContent (captured when the call started) runs
// exactly once for every outcome, including failures that bypassed post-execute; it must be
// total — a throw turns the result into an error and it is not called again. Then the result is
// deep-frozen: what tools/result observers see is exactly what is logged (inv. 2, 3).

export function finalizeResult(
  state: CallState,
  candidate: Candidate,
  startedAt: number,
  t0: number,
): ToolResult {
  return freezeResult(state, finalizeContent(state, candidate), startedAt, t0)
}

/** The tool's finalizeContent, captured at start: once, on every outcome; total and synchronous. */
function finalizeContent(state: CallState, candidate: Candidate): Candidate {
  const finalize = state.finalize as ((e: unknown, r: unknown) => unknown) | undefined
  if (!finalize) return candidate
  let replaced: unknown
  try {
    replaced = finalize(state.exec, frozenCandidate(candidate))
  } catch (error) {
    return failed(state, describeThrown(error))
  }
  if (replaced === undefined) return candidate
  if (isThenable(replaced)) {
    // Total and synchronous by contract (seed 000 §3 ⑤): a promise is never awaited.
    Promise.resolve(replaced).catch(() => {})
    return failed(state, 'it returned a promise; finalizeContent is synchronous')
  }
  const blocks = validBlocks(replaced)
  if (!blocks.ok) return failed(state, `it ${blocks.problem}`)
  return { ...candidate, content: blocks.blocks }
}

function failed(state: CallState, detail: string): Candidate {
  return failureCandidate(failures.exception(state.exec.name, 'finalizeContent', detail))
}

function freezeResult(state: CallState, c: Candidate, startedAt: number, t0: number): ToolResult {
  const result: {
    -readonly [K in keyof ToolResult]: ToolResult[K]
  } = {
    callId: state.exec.callId,
    name: state.exec.name,
    isError: c.isError,
    content: freezeContent(c.content),
    timing: Object.freeze({ startedAt, durationMs: performance.now() - t0 }),
  }
  if (!c.isError && c.value !== undefined) result.value = c.value
  if (c.meta !== undefined && !c.isError) result.meta = c.meta
  if (c.error) {
    // `info` comes from tools and policies: keep it only when it is plain JSON.
    const checked = materialize(c.error)
    const { kind, code, message } = c.error
    result.error = checked.ok
      ? (checked.value as unknown as ToolFailure)
      : Object.freeze({ kind, code, message })
  }
  if (state.contexts !== undefined && state.contexts.length > 0)
    result.additionalContexts = Object.freeze([...state.contexts]) as readonly ContextMessage[]
  if (state.concluded && !c.isError) result.concludesTurn = true
  return Object.freeze(result)
}

/** The `tool/result` event: the result's fields in its order, built as a literal (appendFresh). */
export function resultEvent(result: ToolResult): FreshEvent {
  const event: FreshEvent = {
    seq: 0,
    type: 'tool/result',
    callId: result.callId,
    name: result.name,
    isError: result.isError,
    content: result.content as JsonValue,
    timing: result.timing,
  }
  if (result.value !== undefined) event.value = result.value as JsonValue
  if (result.meta !== undefined) event.meta = result.meta
  if (result.error !== undefined) event.error = result.error as unknown as JsonValue
  if (result.additionalContexts !== undefined)
    event.additionalContexts = result.additionalContexts as JsonValue
  if (result.concludesTurn !== undefined) event.concludesTurn = result.concludesTurn
  return event
}

/**
 * Content is either a materialized copy (render, post-execute, finalizeContent all pass through
 * validBlocks) or text blocks the pipeline built itself: freezing it in place is enough.
 */
function freezeContent(content: readonly ContentBlock[]): readonly ContentBlock[] {
  if (!Object.isFrozen(content)) {
    for (const block of content) Object.freeze(block)
    Object.freeze(markSnapshot(content))
  }
  return content
}
