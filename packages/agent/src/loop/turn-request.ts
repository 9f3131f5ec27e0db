// Stage 1 of a turn, prepare: decide whether another request may be made at all (abort, max
// turns, token budget), then build it. Everything that changes the history or the tool list
// happens here, at the turn boundary and never mid-request: reminders and job notices go in
// first, then the caller's beforeTurn (an MCP sync), then the tools are read, the context is
// relieved so the request fits the window, and the deferred-tools note is appended after that (a
// compaction that summarized earlier notes makes it list every deferred tool again, seed 003
// §10.7). The request is a snapshot of the history: what the turn appends later is not in it.
import { renderJobNotices, type ToolSchema } from '@toolgate/core'
import type { ModelRequest } from '@toolgate/providers'
import { actionPayload, type ContextManager } from '../context/pressure.js'
import { renderReminders } from '../context/reminders.js'
import type { AgentResult } from '../events.js'
import { describe, type RunState } from './run-state.js'

export interface TurnRequest {
  readonly kind: 'request'
  readonly request: ModelRequest
  readonly tools: readonly ToolSchema[]
  /** The declaration a call names, by a map built once per turn (not a scan per call). */
  readonly schemaOf: (name: string) => ToolSchema | undefined
  /** The history's length when the request was built: the reply is the message after it. */
  readonly requestLength: number
}

/** The next request, or the run's end when no further request may be made. */
export async function prepareTurn(
  run: RunState,
): Promise<TurnRequest | { readonly kind: 'end'; readonly result: AgentResult }> {
  const end = (result: AgentResult) => ({ kind: 'end' as const, result })
  const { o, runtime, signal } = run
  if (signal.aborted) return end(run.done('aborted', 'the run was aborted before the next request'))
  if (run.turn >= run.maxTurns)
    return end(run.done('max_turns', `stopped after ${run.maxTurns} model requests (maxTurns)`))
  const used = run.inputTokens + run.outputTokens
  if (
    o.tokenBudget !== undefined &&
    run.lastTurnTokens !== undefined &&
    used + run.lastTurnTokens > o.tokenBudget
  ) {
    return end(
      run.done(
        'token_budget',
        `stopped before request ${run.turn + 1}: ${used} tokens used, the next request resends at least ` +
          `${run.lastTurnTokens} more, and the budget is ${o.tokenBudget}`,
      ),
    )
  }
  run.turn++
  run.emit({ type: 'turn-start', turn: run.turn })

  injectReminders(run)
  try {
    o.beforeTurn?.()
  } catch (error) {
    run.log('agent/before-turn-error', { error: describe(error) })
  }
  let tools = o.tools ?? runtime.schemas(o.agent)
  if (o.deferredTools) tools = o.deferredTools.plan(tools).tools
  const byName = new Map(tools.map((t) => [t.name, t] as const))

  if (run.contextManager) {
    const overflow = await relieveContext(run, run.contextManager, tools)
    if (overflow !== undefined) return end(overflow)
  }
  if (o.deferredTools) {
    const note = o.deferredTools.announce(run.history)
    if (note) run.append(note)
  }
  return {
    kind: 'request',
    request: {
      messages:
        o.system === undefined ? [...run.history] : [{ role: 'system', content: o.system }, ...run.history],
      tools,
      ...o.request,
      ...(o.promptCache ? { cache: o.promptCache } : {}),
    },
    tools,
    schemaOf: (name) => byName.get(name),
    requestLength: run.history.length,
  }
}

/** Job notices and the caller's reminders go in before the request, labelled and capped. */
function injectReminders(run: RunState): void {
  if (run.o.jobNotices !== false) {
    const notices = run.runtime.jobs.takeNotices(run.o.agent)
    const rendered = renderJobNotices(notices)
    const text = rendered?.content[0]?.type === 'text' ? rendered.content[0].text : undefined
    if (text !== undefined) {
      run.reminders.push({
        key: `jobs:${notices.map((n) => `${n.jobId}:${n.status}`).join(',')}`,
        source: 'jobs',
        text,
      })
    }
  }
  const due = run.reminders.take()
  const reminderMessage = renderReminders(due)
  if (reminderMessage) {
    run.append(reminderMessage)
    const first = reminderMessage.content[0]
    run.emit({
      type: 'reminder',
      turn: run.turn,
      keys: due.map((r) => r.key),
      text: first?.type === 'text' ? first.text : '',
    })
  }
}

/**
 * Context pressure (seed 003 §4.3 ①): elide old results, then compact, so the request fits the
 * window; the run's end when even that is not enough (or the run was aborted while compacting).
 */
async function relieveContext(
  run: RunState,
  contextManager: ContextManager,
  tools: readonly ToolSchema[],
): Promise<AgentResult | undefined> {
  const { o, signal, maxOutput } = run
  const pressure = {
    history: run.history,
    system: o.system,
    tools,
    maxOutput,
    model: o.model,
    signal,
    ...(o.promptCache ? { cache: o.promptCache } : {}),
  }
  let actions: Awaited<ReturnType<ContextManager['relieve']>>
  try {
    actions = await contextManager.relieve(pressure)
  } catch (error) {
    if (signal.aborted)
      return run.done('aborted', 'the run was aborted while the context was being compacted')
    throw error
  }
  for (const action of actions) {
    run.log(`agent/${action.kind}`, actionPayload(run.turn, action))
    run.emit({
      type: 'context',
      turn: run.turn,
      action: action.kind,
      before: action.before,
      after: action.after,
    })
  }
  const usable = contextManager.usable(maxOutput)
  const size = contextManager.estimate(pressure)
  if (size > usable)
    return run.done(
      'context_overflow',
      `stopped before request ${run.turn}: it would hold about ${size} tokens and the context window leaves ${usable} for input (window ${o.context!.window}, ${maxOutput} reserved for the reply), even after eliding every tool result and compacting`,
    )
  return undefined
}
