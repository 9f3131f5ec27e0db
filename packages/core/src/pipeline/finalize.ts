import { describeThrown, failures } from '../errors/failures.js'
import { materialize } from '../json/materialize.js'
import { markSnapshot } from '../json/snapshot.js'
import type { FreshEvent } from '../session/log.js'
import type { ContentBlock, ContextMessage, JsonValue, ToolFailure, ToolResult } from '../types.js'
import { isThenable } from './execute.js'
import { validBlocks } from './output.js'
import { type Candidate, frozenCandidate } from './post-execute.js'
import type { CallState } from './state.js'

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
  let final = candidate
  const finalize = state.finalize
  if (finalize) {
    let replaced: unknown
    let threw: unknown
    let didThrow = false
    try {
      replaced = (finalize as (e: unknown, r: unknown) => unknown)(state.exec, frozenCandidate(candidate))
    } catch (error) {
      didThrow = true
      threw = error
    }
    if (!didThrow && isThenable(replaced)) {
      // Total and synchronous by contract (seed 000 §3 ⑤): a promise is never awaited.
      Promise.resolve(replaced).catch(() => {})
      didThrow = true
      threw = 'it returned a promise; finalizeContent is synchronous'
    }
    if (didThrow) {
      const failure = failures.exception(state.exec.name, 'finalizeContent', describeThrown(threw))
      final = { isError: true, content: [{ type: 'text', text: failure.message }], error: failure }
    } else if (replaced !== undefined) {
      const blocks = validBlocks(replaced)
      if (blocks.ok) final = { ...candidate, content: blocks.blocks }
      else {
        const failure = failures.exception(state.exec.name, 'finalizeContent', `it ${blocks.problem}`)
        final = { isError: true, content: [{ type: 'text', text: failure.message }], error: failure }
      }
    }
  }
  return freezeResult(state, final, startedAt, t0)
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

/** A failure as a candidate: its message is the model-facing content. */
export function failureCandidate(failure: Candidate['error'] & object): Candidate {
  return { isError: true, content: [{ type: 'text', text: failure.message }], error: failure }
}
