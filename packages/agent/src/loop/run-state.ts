// What one run carries from turn to turn: the history it appends to, the token counters, the
// streaks its stop rules count, and the one way a run ends (`done`). The stages of a turn
// (turn-request, stream-turn, stop-decision) read and update it; nothing else keeps run state, so
// what a turn may change is visible in one place.
import type { JsonValue, Runtime } from '@toolgate/core'
import { type Message, ProviderError } from '@toolgate/providers'
import { type Cards, createCards } from '../cards.js'
import { ContextManager, DEFAULT_OUTPUT_RESERVE } from '../context/pressure.js'
import { ReminderQueue } from '../context/reminders.js'
import type { AgentEvent, AgentResult, DoneReason, RunFailure } from '../events.js'
import { ProgressWatch } from './progress.js'
import type { RunAgentOptions } from './run-agent.js'

export class RunState {
  readonly runtime: Runtime
  readonly history: Message[]
  readonly appended: Message[] = []
  readonly contextManager: ContextManager | undefined
  readonly progress: ProgressWatch | undefined
  readonly maxOutput: number
  readonly maxTurns: number
  readonly maxHints: number
  readonly maxTruncated: number
  readonly reminders: ReminderQueue
  readonly cards: Cards
  turn = 0
  inputTokens = 0
  outputTokens = 0
  cacheReadTokens = 0
  promptTokens = 0
  /** The last reply's input + output tokens: what the next request resends at least. */
  lastTurnTokens: number | undefined
  hintsGiven = 0
  truncatedStreak = 0
  /** An empty-arguments call past the hint cap: the run stops after this turn (seed 003 §4.5 F1). */
  emptyArgsStop = false

  constructor(
    readonly o: RunAgentOptions,
    readonly signal: AbortSignal,
    readonly emit: (e: AgentEvent) => void,
  ) {
    this.runtime = o.runtime
    this.history = [...o.messages]
    this.contextManager = o.context ? new ContextManager(o.context) : undefined
    this.progress = o.progress === false ? undefined : new ProgressWatch(o.progress)
    this.maxOutput = o.request?.maxTokens ?? DEFAULT_OUTPUT_RESERVE
    this.maxTurns = o.maxTurns ?? 50
    this.maxHints = o.maxEmptyArgRetries ?? 2
    this.maxTruncated = o.maxTruncatedRetries ?? 2
    this.reminders = o.reminders ?? new ReminderQueue()
    this.cards = createCards(o.runtime)
  }

  /** `sameAsResult`: a tool message whose content is its tool/result event's (not logged twice). */
  append(m: Message, sameAsResult = false): void {
    this.history.push(m)
    this.appended.push(m)
    if (this.o.transcript === true) this.log('agent/message', transcriptPayload(m, sameAsResult))
  }

  /** Append to the session log; the log is telemetry here and never changes the run. */
  log(type: string, payload: { readonly [k: string]: JsonValue }): void {
    try {
      this.runtime.session.append(type, payload)
    } catch {
      // The log is telemetry here; it never changes the run.
    }
  }

  /** The one way a run ends: the `done` event, then the result. */
  done(reason: DoneReason, message?: string, failure?: RunFailure): AgentResult {
    const usage = {
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      ...(this.promptTokens > 0 ? { promptTokens: this.promptTokens } : {}),
      ...(this.cacheReadTokens > 0 ? { cacheReadTokens: this.cacheReadTokens } : {}),
    }
    const extra = {
      ...(message === undefined ? {} : { message }),
      ...(failure === undefined ? {} : { failure }),
    }
    this.emit({ type: 'done', reason, ...extra, turns: this.turn, usage })
    return {
      reason,
      ...extra,
      messages: this.history,
      appended: this.appended,
      turns: this.turn,
      usage,
    }
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

export function failureOf(error: unknown): RunFailure {
  return error instanceof ProviderError
    ? {
        source: 'provider',
        kind: error.kind,
        ...(error.status === undefined ? {} : { status: error.status }),
      }
    : { source: 'exception' }
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
