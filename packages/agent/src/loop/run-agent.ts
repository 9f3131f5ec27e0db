// The agent loop (seed 003 §4): request -> decode the stream -> tool calls -> ONE batch ->
// results (model order) -> additionalContexts (FIFO) -> next request. Stop reasons steer it through
// the providers' whitelist (§2.3, §4.5): anything not known to mean "done" is never a silent done.
// Every tool call in the history gets exactly one result, also after an abort, a cut stream or a
// truncated reply, so no provider ever rejects the conversation.
import type { ParentToken, Runtime, ToolSchema } from '@toolgate/core'
import type { Message, ModelClient, ModelRequest } from '@toolgate/providers'
import { type ResultBudgetOptions, resultBudget } from '../budget/result-budget.js'
import type { DeferredTools } from '../context/deferred-tools.js'
import type { ContextOptions } from '../context/pressure.js'
import type { ReminderQueue } from '../context/reminders.js'
import type { SessionTap } from '../context/session-tap.js'
import type { AgentEvent, AgentResult } from '../events.js'
import { approvalEvents } from './approval-events.js'
import { createChannel } from './channel.js'
import type { ProgressOptions } from './progress.js'
import { describe, RunState } from './run-state.js'
import { finishTurn } from './stop-decision.js'
import { streamTurn } from './stream-turn.js'
import { prepareTurn } from './turn-request.js'

export interface RunAgentOptions {
  readonly model: ModelClient
  readonly runtime: Runtime
  /** The conversation so far (at least the user's task). Not modified. */
  readonly messages: readonly Message[]
  /** Sent as the first message of every request; not part of the returned history. */
  readonly system?: string
  /** Tool declarations; default `runtime.schemas(agent)` read at each turn. */
  readonly tools?: readonly ToolSchema[]
  /** The agent scope the calls run in (restrictions, scoped listeners, job owner). */
  readonly agent?: string
  /**
   * The calls are sub-calls of this running call (a sub-agent inside the `task` tool): they carry
   * the parent token, so the session log shows them as its children.
   */
  readonly parent?: ParentToken
  readonly signal?: AbortSignal
  /** Model requests per run. Default 50. */
  readonly maxTurns?: number
  /** Input + output tokens per run (as reported by the provider). Default: unlimited. */
  readonly tokenBudget?: number
  /** Empty-arguments hints per run (seed 003 §4.5 F1). Default 2. */
  readonly maxEmptyArgRetries?: number
  /** Consecutive replies cut by the token limit whose calls are answered for re-issue. Default 2. */
  readonly maxTruncatedRetries?: number
  /** executeBatch pool size. Default: the runtime's. */
  readonly maxParallel?: number
  /** Start calls while the reply streams (seed 003 §7). Default false. */
  readonly streamingExecution?: boolean
  /** Install the result budget (truncate + spill) for this run's scope while it runs. */
  readonly resultBudget?: ResultBudgetOptions
  /** Shortcut: `resultBudget: { spillDir }` with default thresholds. */
  readonly spillDir?: string
  /** Reminders to inject (deduplicated and capped); job notices go through it too. */
  readonly reminders?: ReminderQueue
  /** Deliver background job completion notices as reminders. Default true. */
  readonly jobNotices?: boolean
  /** Live approval events (otherwise read from runtime.session.events() as calls settle). */
  readonly sessionTap?: SessionTap
  /** Passed through to every request. */
  readonly request?: Pick<ModelRequest, 'maxTokens' | 'temperature' | 'toolChoice'>
  /**
   * Context management (seed 003 §4.3 ①): the model's window; old results are elided and older
   * turns compacted so no request exceeds it. Absent: the history grows unmanaged.
   */
  readonly context?: ContextOptions
  /** Loop and no-progress detection (seed 003 §4.4); `false` turns both off. Default on. */
  readonly progress?: ProgressOptions | false
  /** Prompt caching on every request (see ModelRequest.cache). */
  readonly promptCache?: ModelRequest['cache']
  /**
   * Log the conversation to the session: `agent/message` for every message the run appends (a tool
   * result's content only when it differs from its `tool/result` event), `agent/usage` per request,
   * `agent/context` for elisions and compactions — enough to rebuild the exact history
   * (`rebuildHistory`). Default false.
   */
  readonly transcript?: boolean
  /**
   * Called before each request, between turns (e.g. an MCP manager's sync(), so tool lists change
   * at a turn boundary and never mid-request).
   */
  readonly beforeTurn?: () => void
  /** Deferred loading (seed 003 §10): which tools are sent, and the per-turn note of the others. */
  readonly deferredTools?: DeferredTools
}

export interface AgentRun extends AsyncIterable<AgentEvent> {
  /** Settles when the run is over (never rejects). */
  readonly result: Promise<AgentResult>
}

/** Start a run; iterate it for events, or await `result`. Breaking out of the iteration aborts it. */
export function runAgent(options: RunAgentOptions): AgentRun {
  const channel = createChannel<AgentEvent>()
  const controller = new AbortController()
  const outer = options.signal
  const onOuterAbort = () => controller.abort(outer?.reason)
  if (outer?.aborted) controller.abort(outer.reason)
  else outer?.addEventListener('abort', onOuterAbort, { once: true })
  channel.onCancel(() => controller.abort(new Error('the consumer stopped reading the run')))

  const result = Promise.resolve()
    .then(() => drive(options, controller.signal, (e) => channel.push(e)))
    .finally(() => {
      outer?.removeEventListener('abort', onOuterAbort)
      channel.close()
    })
  return {
    result,
    [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
  }
}

/** Run to the end and return the result (events are dropped). */
export async function collectAgent(options: RunAgentOptions): Promise<AgentResult> {
  return runAgent(options).result
}

/**
 * The loop. Each turn is three named stages, each in its own file: prepare the request
 * (turn-request.ts), stream the reply and hand its calls to the executor (stream-turn.ts), then
 * answer every call and decide whether to go on (stop-decision.ts). Run state lives in one object
 * (run-state.ts); approval events of the run's calls are forwarded by approval-events.ts. What the
 * run installs for its duration (result budget, deferred-tools guard, tap subscription) is
 * released here whatever the way out.
 */
async function drive(
  o: RunAgentOptions,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<AgentResult> {
  const { runtime, agent } = o
  const run = new RunState(o, signal, emit)

  // Result budget, scoped like the run's calls, for the run's duration.
  const budgetOptions = o.resultBudget ?? (o.spillDir !== undefined ? { spillDir: o.spillDir } : undefined)
  const budget = budgetOptions
    ? agent === undefined
      ? runtime.use(resultBudget(budgetOptions))
      : runtime.agent(agent).use(resultBudget(budgetOptions))
    : undefined
  const deferredGuard = o.deferredTools?.guard(runtime)
  const approvals = approvalEvents(run)

  try {
    for (;;) {
      const turn = await prepareTurn(run)
      if (turn.kind === 'end') return turn.result
      const reply = await streamTurn(run, turn, approvals)
      const end = await finishTurn(run, turn, reply, approvals)
      if (end !== undefined) return end
    }
  } catch (error) {
    return run.done('error', `the agent loop failed: ${describe(error)}`, { source: 'exception' })
  } finally {
    approvals.dispose()
    budget?.dispose()
    deferredGuard?.dispose()
  }
}
