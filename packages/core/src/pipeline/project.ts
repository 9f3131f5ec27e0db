import { describeThrown, failures } from '../errors/failures.js'
import type { ToolExecution } from '../types.js'
import { isThenable } from './execute.js'
import { validBlocks } from './output.js'
import { type CallState, type Candidate, frozenCandidate, type Outcome } from './state.js'

// The tool's own projection of its successful result (`projectContent`), applied once, before
// post-execute policy. Synchronous by contract; a throw or a promise fails the call (final:
// post-execute is skipped, like any host code that breaks its contract).

export function projectContent(state: CallState, candidate: Candidate): Outcome<Candidate> {
  const project = state.definition?.projectContent as
    | ((e: ToolExecution, r: Candidate) => unknown)
    | undefined
  if (!project) return { ok: true, value: candidate }
  let projected: unknown
  try {
    projected = project(state.exec, frozenCandidate(candidate))
  } catch (error) {
    return failed(state, describeThrown(error))
  }
  if (projected === undefined) return { ok: true, value: candidate }
  if (isThenable(projected)) {
    // Synchronous by contract: a promise is never awaited (its rejection is absorbed).
    Promise.resolve(projected).catch(() => {})
    return failed(state, 'it returned a promise; projectContent is synchronous')
  }
  const blocks = validBlocks(projected)
  if (!blocks.ok) return failed(state, `it ${blocks.problem}`)
  return { ok: true, value: { ...candidate, content: blocks.blocks } }
}

function failed(state: CallState, detail: string): Outcome<Candidate> {
  return { ok: false, failure: failures.exception(state.exec.name, 'projectContent', detail), final: true }
}
