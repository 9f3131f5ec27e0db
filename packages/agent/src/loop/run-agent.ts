// The agent loop (seed 003 §4): request -> decode the stream -> tool calls -> ONE batch ->
// results (model order) -> additionalContexts (FIFO) -> next request. Stop reasons steer it through
// the providers' whitelist (§2.3, §4.5): anything not known to mean "done" is never a silent done.
// Every tool call in the history gets exactly one result, also after an abort, a cut stream or a
// truncated reply, so no provider ever rejects the conversation.
import {
  batchContexts,
  type JsonValue,
  type ParentToken,
  type Runtime,
  renderJobNotices,
  type ToolCall,
  type ToolResult,
  type ToolSchema,
} from '@toolgate/core'
import {
  type Message,
  type ModelClient,
  type ModelRequest,
  normalizeArgs,
  ProviderError,
  ProviderTimeoutError,
  stopDecision,
  type ToolCallPart,
  type ToolResultMessage,
  truncatedCallText,
  type Usage,
} from '@toolgate/providers'
import { type ResultBudgetOptions, resultBudget } from '../budget/result-budget.js'
import { createCards } from '../cards.js'
import type { DeferredTools } from '../context/deferred-tools.js'
import {
  actionPayload,
  ContextManager,
  type ContextOptions,
  DEFAULT_OUTPUT_RESERVE,
} from '../context/pressure.js'
import { ReminderQueue, renderReminders } from '../context/reminders.js'
import type { SessionTap } from '../context/session-tap.js'
import type { AgentEvent, AgentResult, DoneReason, RunFailure } from '../events.js'
import { TurnAssembler } from './assemble.js'
import { createChannel } from './channel.js'
import { emptyArgsHint, needsEmptyArgsHint, requiredFields } from './empty-args.js'
import { type ProgressOptions, ProgressWatch } from './progress.js'
import { TurnExecutor } from './turn-executor.js'

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

async function drive(
  o: RunAgentOptions,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<AgentResult> {
  const { runtime, model, agent } = o
  const history: Message[] = [...o.messages]
  const appended: Message[] = []
  /** `sameAsResult`: a tool message whose content is its tool/result event's (not logged twice). */
  const append = (m: Message, sameAsResult = false) => {
    history.push(m)
    appended.push(m)
    if (o.transcript === true) safeAppend(runtime, 'agent/message', transcriptPayload(m, sameAsResult))
  }
  const contextManager = o.context ? new ContextManager(o.context) : undefined
  const progress = o.progress === false ? undefined : new ProgressWatch(o.progress)
  const maxOutput = o.request?.maxTokens ?? DEFAULT_OUTPUT_RESERVE
  const maxTurns = o.maxTurns ?? 50
  const maxHints = o.maxEmptyArgRetries ?? 2
  const maxTruncated = o.maxTruncatedRetries ?? 2
  const reminders = o.reminders ?? new ReminderQueue()
  const cards = createCards(runtime)
  let turn = 0
  let inputTokens = 0
  let outputTokens = 0
  let cacheReadTokens = 0
  let promptTokens = 0
  let lastTurnTokens: number | undefined
  let hintsGiven = 0
  let truncatedStreak = 0

  // Result budget, scoped like the run's calls, for the run's duration.
  const budgetOptions = o.resultBudget ?? (o.spillDir !== undefined ? { spillDir: o.spillDir } : undefined)
  const budget = budgetOptions
    ? agent === undefined
      ? runtime.use(resultBudget(budgetOptions))
      : runtime.agent(agent).use(resultBudget(budgetOptions))
    : undefined

  const deferredGuard = o.deferredTools?.guard(runtime)

  // Approval events of this run's calls: live through a tap, else read from the log as calls settle.
  const ours = new Set<string>()
  let cursor = lastSeq(runtime)
  const onSessionEvent = (e: { seq: number; type: string; [k: string]: JsonValue }) => {
    if (e.seq <= cursor) return
    cursor = e.seq
    if (e.type !== 'approval/asked' && e.type !== 'approval/decided') return
    const callId = typeof e.callId === 'string' ? e.callId : undefined
    if (callId === undefined || !ours.has(callId)) return
    emit({
      type: 'approval',
      turn,
      phase: e.type === 'approval/asked' ? 'asked' : 'decided',
      callId,
      ...str('toolName', e.toolName),
      ...str('reason', e.reason),
      ...str('displayReason', e.displayReason),
      ...str('outcome', e.outcome),
    })
  }
  const subscription = o.sessionTap?.subscribe(onSessionEvent)
  const pollSession = () => {
    if (subscription) return
    // Only the events after the cursor: a poll per settled call must not re-read the whole log.
    const events = runtime.session.events()
    let i = events.length
    while (i > 0 && events[i - 1]!.seq > cursor) i--
    for (; i < events.length; i++) onSessionEvent(events[i]!)
  }

  let emptyArgsStop = false
  const done = (reason: DoneReason, message?: string, failure?: RunFailure): AgentResult => {
    const usage = {
      inputTokens,
      outputTokens,
      ...(promptTokens > 0 ? { promptTokens } : {}),
      ...(cacheReadTokens > 0 ? { cacheReadTokens } : {}),
    }
    const extra = {
      ...(message === undefined ? {} : { message }),
      ...(failure === undefined ? {} : { failure }),
    }
    emit({ type: 'done', reason, ...extra, turns: turn, usage })
    return {
      reason,
      ...extra,
      messages: history,
      appended,
      turns: turn,
      usage,
    }
  }

  try {
    for (;;) {
      if (signal.aborted) return done('aborted', 'the run was aborted before the next request')
      if (turn >= maxTurns) return done('max_turns', `stopped after ${maxTurns} model requests (maxTurns)`)
      const used = inputTokens + outputTokens
      if (
        o.tokenBudget !== undefined &&
        lastTurnTokens !== undefined &&
        used + lastTurnTokens > o.tokenBudget
      ) {
        return done(
          'token_budget',
          `stopped before request ${turn + 1}: ${used} tokens used, the next request resends at least ` +
            `${lastTurnTokens} more, and the budget is ${o.tokenBudget}`,
        )
      }
      turn++
      emit({ type: 'turn-start', turn })

      // Reminders (job notices and the caller's) go in before the request, labelled and capped.
      if (o.jobNotices !== false) {
        const notices = runtime.jobs.takeNotices(agent)
        const rendered = renderJobNotices(notices)
        const text = rendered?.content[0]?.type === 'text' ? rendered.content[0].text : undefined
        if (text !== undefined) {
          reminders.push({
            key: `jobs:${notices.map((n) => `${n.jobId}:${n.status}`).join(',')}`,
            source: 'jobs',
            text,
          })
        }
      }
      const due = reminders.take()
      const reminderMessage = renderReminders(due)
      if (reminderMessage) {
        append(reminderMessage)
        const first = reminderMessage.content[0]
        emit({
          type: 'reminder',
          turn,
          keys: due.map((r) => r.key),
          text: first?.type === 'text' ? first.text : '',
        })
      }

      try {
        o.beforeTurn?.()
      } catch (error) {
        safeAppend(runtime, 'agent/before-turn-error', { error: describe(error) })
      }
      let tools = o.tools ?? runtime.schemas(agent)
      if (o.deferredTools) tools = o.deferredTools.plan(tools).tools
      const byName = new Map(tools.map((t) => [t.name, t] as const)) // one lookup per call, not a scan
      const schemaOf = (name: string) => byName.get(name)

      // Context pressure: elide old results, then compact, so the request fits the window.
      if (contextManager) {
        const pressure = {
          history,
          system: o.system,
          tools,
          maxOutput,
          model,
          signal,
          ...(o.promptCache ? { cache: o.promptCache } : {}),
        }
        let actions: Awaited<ReturnType<ContextManager['relieve']>>
        try {
          actions = await contextManager.relieve(pressure)
        } catch (error) {
          if (signal.aborted)
            return done('aborted', 'the run was aborted while the context was being compacted')
          throw error
        }
        for (const action of actions) {
          safeAppend(runtime, `agent/${action.kind}`, actionPayload(turn, action))
          emit({ type: 'context', turn, action: action.kind, before: action.before, after: action.after })
        }
        const usable = contextManager.usable(maxOutput)
        const size = contextManager.estimate(pressure)
        if (size > usable)
          return done(
            'context_overflow',
            `stopped before request ${turn}: it would hold about ${size} tokens and the context window leaves ${usable} for input (window ${o.context!.window}, ${maxOutput} reserved for the reply), even after eliding every tool result and compacting`,
          )
      }
      // After the context is relieved: a compaction that summarized earlier notes makes announce()
      // list every deferred tool again, in full, in this very request (seed 003 §10.7).
      if (o.deferredTools) {
        const note = o.deferredTools.announce(history)
        if (note) append(note)
      }
      const executor = new TurnExecutor({
        runtime,
        signal,
        streaming: o.streamingExecution === true,
        ...(o.maxParallel === undefined ? {} : { maxParallel: o.maxParallel }),
        definition: (call) => cards.definition(call.name, agent),
        onSettled: (r) => {
          pollSession()
          const raw = rawArgs.get(r.callId) ?? ''
          const view = cards.result(r.name, agent, raw, r)
          emit({
            type: 'tool-result',
            turn,
            callId: r.callId,
            name: r.name,
            result: r,
            ...(view ? { view } : {}),
          })
        },
      })
      const rawArgs = new Map<string, string>()
      const assembler = new TurnAssembler()
      // Calls are handed to the executor in model (message) order.
      let handed = 0
      const handOver = (all: boolean) => {
        const ready = assembler.readyCalls(!all)
        for (; handed < ready.length; handed++) {
          const { part, strict } = ready[handed]!
          executor.add(toCall(part, strict, schemaOf(part.name), agent, o.parent))
        }
      }

      const request: ModelRequest = {
        messages: o.system === undefined ? [...history] : [{ role: 'system', content: o.system }, ...history],
        tools,
        ...o.request,
        ...(o.promptCache ? { cache: o.promptCache } : {}),
      }
      const requestLength = history.length
      let streamError: unknown
      try {
        for await (const event of model.stream(request, signal)) {
          const completed = assembler.push(event)
          if (event.type === 'text-delta') emit({ type: 'text-delta', turn, text: event.text })
          else if (event.type === 'reasoning-delta') emit({ type: 'reasoning-delta', turn, text: event.text })
          if (completed) {
            const { callId, name, arguments: args } = completed.part
            ours.add(callId)
            rawArgs.set(callId, args)
            const view = cards.call(name, agent, args)
            emit({ type: 'tool-call', turn, callId, name, arguments: args, ...(view ? { view } : {}) })
          }
          // A new block seals the calls before it: they can start (streaming mode).
          if (event.type !== 'tool-call-delta') handOver(false)
          if (signal.aborted) break
        }
        if (!signal.aborted && !assembler.finish)
          streamError = new Error('the model stream ended without a finish event')
      } catch (error) {
        streamError = error
      }

      const message = assembler.message()
      if (message.parts.length > 0) append(message)
      const calls = assembler.orderedCalls()
      // Every complete call reaches the executor; calls that never completed are not in the
      // message and are never run.
      handOver(true)

      const appendResults = (results: readonly ToolResult[], pipeline = true) => {
        for (const [i, r] of results.entries()) {
          const part = calls[i]!
          let content = r.content
          if (needsEmptyArgsHint(part.arguments, r, schemaOf(part.name))) {
            if (hintsGiven < maxHints) {
              hintsGiven++
              content = [
                { type: 'text', text: emptyArgsHint(part.name, requiredFields(schemaOf(part.name))) },
              ]
              safeAppend(runtime, 'agent/empty-args-hint', {
                callId: part.callId,
                name: part.name,
                attempt: hintsGiven,
              })
            } else emptyArgsStop = true // past the cap: the run stops after this turn (seed 003 §4.5 F1)
          }
          append(resultMessage(part, content, r.isError), pipeline && content === r.content)
        }
        for (const m of batchContexts(results)) append({ role: 'user', content: m.content })
        pollSession()
      }

      if (signal.aborted || streamError !== undefined) {
        const aborted = signal.aborted
        appendResults(await executor.cancel(aborted ? signal.reason : streamError))
        emit({
          type: 'turn-end',
          turn,
          stopReason: aborted ? 'aborted' : 'stream_error',
          rawStopReason: null,
        })
        // Attribution (seed 003 §4.4): an explicit timeout > the abort signal > a generic error; by
        // the error's class, never its text.
        if (streamError instanceof ProviderTimeoutError)
          return done(
            'timeout',
            `the model did not answer in time: ${streamError.message}`,
            failureOf(streamError),
          )
        return aborted
          ? done('aborted', 'the run was aborted; every started call was answered')
          : done('error', `the model request failed: ${describe(streamError)}`, failureOf(streamError))
      }

      const finish = assembler.finish!
      const usage: Usage | undefined = finish.usage
      const turnTokens = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0)
      inputTokens += usage?.inputTokens ?? 0
      outputTokens += usage?.outputTokens ?? 0
      cacheReadTokens += usage?.cacheReadTokens ?? 0
      lastTurnTokens = usage ? turnTokens : undefined
      const prompt = usage?.promptTokens ?? usage?.inputTokens
      promptTokens += prompt ?? 0
      // The request held history[0..requestLength); its reply is the message appended after it.
      if (contextManager && prompt !== undefined && message.parts.length > 0)
        contextManager.observe(requestLength + 1, prompt, usage?.outputTokens ?? 0)
      if (o.transcript === true && usage) safeAppend(runtime, 'agent/usage', { turn, ...usageJson(usage) })
      const turnEnd = () =>
        emit({
          type: 'turn-end',
          turn,
          stopReason: finish.stopReason,
          rawStopReason: finish.rawStopReason,
          ...(usage ? { usage } : {}),
        })

      let decision = stopDecision(finish.stopReason, calls.length, finish.rawStopReason)
      // A server-side pause that still holds client calls: answer them before continuing.
      if (decision.kind === 'continue' && calls.length > 0) decision = { kind: 'run-tools' }
      switch (decision.kind) {
        case 'run-tools': {
          truncatedStreak = 0
          const results = await executor.finish()
          appendResults(results)
          turnEnd()
          // Explicit detections first (seed 003 §4.4 priority), then the abort signal.
          if (emptyArgsStop)
            return done(
              'empty_arguments',
              `stopped: the model sent a call with empty arguments again after ${maxHints} hints (empty-arguments cap)`,
            )
          const verdict = progress?.observe(calls, results)
          if (verdict?.kind === 'stop') return done(verdict.reason, verdict.message)
          for (const r of verdict?.reminders ?? []) reminders.push(r)
          if (signal.aborted) return done('aborted', 'the run was aborted; every started call was answered')
          if (results.some((r) => r.concludesTurn === true && !r.isError)) {
            return done('completed', 'a tool concluded the turn')
          }
          continue
        }
        case 'done':
          turnEnd()
          return done('completed')
        case 'continue':
          turnEnd()
          continue
        case 'truncated': {
          if (!decision.hasCalls) {
            turnEnd()
            return done('max_tokens', 'the reply hit the output token limit before it ended')
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
            emit({ type: 'tool-result', turn, callId: r.callId, name: r.name, result: r })
            return r
          })
          if (notRun.length > 0) safeAppend(runtime, 'agent/truncated-calls', { callIds: notRun })
          appendResults(results, notRun.length === 0)
          turnEnd()
          truncatedStreak++
          if (truncatedStreak > maxTruncated) {
            return done(
              'max_tokens',
              `the reply hit the output token limit ${truncatedStreak} times in a row with tool calls in it`,
            )
          }
          continue
        }
        case 'refusal':
          appendResults(await executor.cancel(new Error('the model refused')))
          turnEnd()
          return done('refusal', 'the model refused or its output was filtered')
        case 'error':
          appendResults(await executor.cancel(new Error(decision.message)))
          turnEnd()
          return done('error', decision.message, {
            source: 'stop-reason',
            rawStopReason: finish.rawStopReason,
          })
        default: {
          const never: never = decision
          return done('error', `unknown stop decision ${JSON.stringify(never)}`)
        }
      }
    }
  } catch (error) {
    return done('error', `the agent loop failed: ${describe(error)}`, { source: 'exception' })
  } finally {
    subscription?.dispose()
    budget?.dispose()
    deferredGuard?.dispose()
  }
}

function toCall(
  part: ToolCallPart,
  strict: boolean,
  schema: ToolSchema | undefined,
  agent: string | undefined,
  parent: ParentToken | undefined,
): ToolCall {
  let args: string | JsonValue = part.arguments
  if (strict && schema) {
    try {
      args = normalizeArgs(JSON.parse(part.arguments) as JsonValue, schema.parameters)
    } catch {
      // Malformed JSON stays raw: the runtime reports INVALID_ARGS with the parse error.
    }
  }
  return {
    callId: part.callId,
    name: part.name,
    arguments: args,
    ...(agent === undefined ? {} : { agent }),
    ...(parent === undefined ? {} : { parent }),
  }
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

function str(key: string, value: JsonValue | undefined): Record<string, string> {
  return typeof value === 'string' ? { [key]: value } : {}
}

function lastSeq(runtime: Runtime): number {
  const events = runtime.session.events()
  return events.length === 0 ? 0 : events[events.length - 1]!.seq
}

function safeAppend(runtime: Runtime, type: string, payload: { readonly [k: string]: JsonValue }): void {
  try {
    runtime.session.append(type, payload)
  } catch {
    // The log is telemetry here; it never changes the run.
  }
}

/** A message as an `agent/message` payload; a tool result's content only when it is not its tool/result's. */
function transcriptPayload(m: Message, sameAsResult: boolean): { readonly [k: string]: JsonValue } {
  if (m.role === 'tool' && sameAsResult)
    return {
      message: { role: 'tool', callId: m.callId, name: m.name, isError: m.isError },
      content: 'tool/result',
    }
  return { message: m as unknown as JsonValue }
}

function usageJson(usage: Usage): { readonly [k: string]: JsonValue } {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(usage)) if (typeof v === 'number') out[k] = v
  return { usage: out }
}

function failureOf(error: unknown): RunFailure {
  return error instanceof ProviderError
    ? {
        source: 'provider',
        kind: error.kind,
        ...(error.status === undefined ? {} : { status: error.status }),
      }
    : { source: 'exception' }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
