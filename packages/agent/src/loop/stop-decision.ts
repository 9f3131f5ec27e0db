// Stage 3 of a turn, finalize: answer every call of the reply exactly once and decide whether the
// run goes on. A cut stream or an abort cancels what did not start; otherwise the reply's stop
// reason goes through the providers' whitelist (seed 003 §2.3, §4.5): tools are run as ONE batch
// and their results appended in model order with the batch's additional contexts after them (FIFO),
// a truncated reply's calls are answered for re-issue and never run, a refusal or an unknown
// reason cancels them — anything not known to mean "done" is never a silent done. Then the
// termination rules that watch results (empty-arguments cap, loop and no-progress detection)
// have their say, in the priority of seed 003 §4.4: explicit detections, then the abort signal.
import { batchContexts, type JsonValue, type ToolResult } from '@toolgate/core'
import {
  ProviderTimeoutError,
  stopDecision,
  type ToolCallPart,
  type ToolResultMessage,
  truncatedCallText,
  type Usage,
} from '@toolgate/providers'
import type { AgentResult } from '../events.js'
import type { ApprovalEvents } from './approval-events.js'
import { emptyArgsHint, needsEmptyArgsHint, requiredFields } from './empty-args.js'
import { describe, failureOf, type RunState } from './run-state.js'
import type { StreamedTurn } from './stream-turn.js'
import type { TurnRequest } from './turn-request.js'

/** The run's end, or undefined when the next turn follows. */
export async function finishTurn(
  run: RunState,
  turn: TurnRequest,
  reply: StreamedTurn,
  approvals: ApprovalEvents,
): Promise<AgentResult | undefined> {
  const { signal, emit } = run
  const { executor, calls, streamError } = reply
  const answer = (results: readonly ToolResult[], pipeline = true) =>
    appendResults(run, turn, calls, results, approvals, pipeline)
  // No await before the executor's finish, cancel or drop below (see handOverRest).
  reply.handOverRest()

  if (signal.aborted || streamError !== undefined) {
    const aborted = signal.aborted
    answer(await executor.cancel(aborted ? signal.reason : streamError))
    emit({
      type: 'turn-end',
      turn: run.turn,
      stopReason: aborted ? 'aborted' : 'stream_error',
      rawStopReason: null,
    })
    // Attribution (seed 003 §4.4): an explicit timeout > the abort signal > a generic error; by
    // the error's class, never its text.
    if (streamError instanceof ProviderTimeoutError)
      return run.done(
        'timeout',
        `the model did not answer in time: ${streamError.message}`,
        failureOf(streamError),
      )
    return aborted
      ? run.done('aborted', 'the run was aborted; every started call was answered')
      : run.done('error', `the model request failed: ${describe(streamError)}`, failureOf(streamError))
  }

  const finish = reply.assembler.finish!
  const usage = countUsage(run, turn, reply)
  const turnEnd = () =>
    emit({
      type: 'turn-end',
      turn: run.turn,
      stopReason: finish.stopReason,
      rawStopReason: finish.rawStopReason,
      ...(usage ? { usage } : {}),
    })

  let decision = stopDecision(finish.stopReason, calls.length, finish.rawStopReason)
  // A server-side pause that still holds client calls: answer them before continuing.
  if (decision.kind === 'continue' && calls.length > 0) decision = { kind: 'run-tools' }
  switch (decision.kind) {
    case 'run-tools': {
      run.truncatedStreak = 0
      const results = await executor.finish()
      answer(results)
      turnEnd()
      // Explicit detections first (seed 003 §4.4 priority), then the abort signal.
      if (run.emptyArgsStop)
        return run.done(
          'empty_arguments',
          `stopped: the model sent a call with empty arguments again after ${run.maxHints} hints (empty-arguments cap)`,
        )
      const verdict = run.progress?.observe(calls, results)
      if (verdict?.kind === 'stop') return run.done(verdict.reason, verdict.message)
      for (const r of verdict?.reminders ?? []) run.reminders.push(r)
      if (signal.aborted) return run.done('aborted', 'the run was aborted; every started call was answered')
      if (results.some((r) => r.concludesTurn === true && !r.isError)) {
        return run.done('completed', 'a tool concluded the turn')
      }
      return undefined
    }
    case 'done':
      turnEnd()
      return run.done('completed')
    case 'continue':
      turnEnd()
      return undefined
    case 'truncated': {
      if (!decision.hasCalls) {
        turnEnd()
        return run.done('max_tokens', 'the reply hit the output token limit before it ended')
      }
      // Calls of a cut reply are never run (their arguments may be cut); in streaming mode a
      // call that already started keeps its real result.
      const started = await executor.drop()
      const notRun: string[] = []
      const results = calls.map((part, i) => {
        const real = started[i]
        if (real) return real
        notRun.push(part.callId)
        const r = truncatedResult(part)
        emit({ type: 'tool-result', turn: run.turn, callId: r.callId, name: r.name, result: r })
        return r
      })
      if (notRun.length > 0) run.log('agent/truncated-calls', { callIds: notRun })
      answer(results, notRun.length === 0)
      turnEnd()
      run.truncatedStreak++
      if (run.truncatedStreak > run.maxTruncated) {
        return run.done(
          'max_tokens',
          `the reply hit the output token limit ${run.truncatedStreak} times in a row with tool calls in it`,
        )
      }
      return undefined
    }
    case 'refusal':
      answer(await executor.cancel(new Error('the model refused')))
      turnEnd()
      return run.done('refusal', 'the model refused or its output was filtered')
    case 'error':
      answer(await executor.cancel(new Error(decision.message)))
      turnEnd()
      return run.done('error', decision.message, {
        source: 'stop-reason',
        rawStopReason: finish.rawStopReason,
      })
    default: {
      const never: never = decision
      return run.done('error', `unknown stop decision ${JSON.stringify(never)}`)
    }
  }
}

/** Add the reply's usage to the run's counters (and the context manager's calibration). */
function countUsage(run: RunState, turn: TurnRequest, reply: StreamedTurn): Usage | undefined {
  const usage: Usage | undefined = reply.assembler.finish!.usage
  const turnTokens = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0)
  run.inputTokens += usage?.inputTokens ?? 0
  run.outputTokens += usage?.outputTokens ?? 0
  run.cacheReadTokens += usage?.cacheReadTokens ?? 0
  run.lastTurnTokens = usage ? turnTokens : undefined
  const prompt = usage?.promptTokens ?? usage?.inputTokens
  run.promptTokens += prompt ?? 0
  // The request held history[0..requestLength); its reply is the message appended after it.
  if (run.contextManager && prompt !== undefined && reply.message.parts.length > 0)
    run.contextManager.observe(turn.requestLength + 1, prompt, usage?.outputTokens ?? 0)
  if (run.o.transcript === true && usage) run.log('agent/usage', { turn: run.turn, ...usageJson(usage) })
  return usage
}

/**
 * One result message per call, in model order (an empty-arguments call gets the hint instead of
 * its result while hints last), then the batch's additional contexts as user messages (FIFO).
 */
function appendResults(
  run: RunState,
  turn: TurnRequest,
  calls: readonly ToolCallPart[],
  results: readonly ToolResult[],
  approvals: ApprovalEvents,
  pipeline: boolean,
): void {
  for (const [i, r] of results.entries()) {
    const part = calls[i]!
    let content = r.content
    if (needsEmptyArgsHint(part.arguments, r, turn.schemaOf(part.name))) {
      if (run.hintsGiven < run.maxHints) {
        run.hintsGiven++
        content = [{ type: 'text', text: emptyArgsHint(part.name, requiredFields(turn.schemaOf(part.name))) }]
        run.log('agent/empty-args-hint', { callId: part.callId, name: part.name, attempt: run.hintsGiven })
      } else run.emptyArgsStop = true // past the cap: the run stops after this turn (seed 003 §4.5 F1)
    }
    run.append(resultMessage(part, content, r.isError), pipeline && content === r.content)
  }
  for (const m of batchContexts(results)) run.append({ role: 'user', content: m.content })
  approvals.poll()
}

function resultMessage(
  part: ToolCallPart,
  content: ToolResult['content'],
  isError: boolean,
): ToolResultMessage {
  return { role: 'tool', callId: part.callId, name: part.name, content, isError }
}

function truncatedResult(part: ToolCallPart): ToolResult {
  const text = truncatedCallText(part.name)
  return Object.freeze({
    callId: part.callId,
    name: part.name,
    isError: true,
    content: Object.freeze([Object.freeze({ type: 'text' as const, text })]),
    error: Object.freeze({ kind: 'cancelled' as const, code: 'TRUNCATED_BY_TOKEN_LIMIT', message: text }),
    timing: Object.freeze({ startedAt: Date.now(), durationMs: 0 }),
  })
}

function usageJson(usage: Usage): { readonly [k: string]: JsonValue } {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(usage)) if (typeof v === 'number') out[k] = v
  return { usage: out }
}
