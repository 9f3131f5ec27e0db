// The events a run streams, one discriminated union (UIs switch on `type`). Cards (`view`) are
// presentation only and never enter the conversation (seed 003 §9.4).
import type { ToolCallView, ToolResult, ToolResultView } from '@toolgate/core'
import type { Message, ProviderErrorKind, StopReason, Usage } from '@toolgate/providers'

/** Why a run ended. */
export type DoneReason =
  /** The model finished its answer (or a tool concluded the turn). */
  | 'completed'
  /** `maxTurns` model requests were made. */
  | 'max_turns'
  /** The next request would have gone past `tokenBudget`. */
  | 'token_budget'
  /** The caller's signal aborted the run (or the consumer stopped iterating). */
  | 'aborted'
  /** The model refused or its output was filtered. */
  | 'refusal'
  /** The output token limit cut the reply too often (text, or calls re-issued past the bound). */
  | 'max_tokens'
  /** Unknown or missing stop reason, a provider failure, or a script/model bug. */
  | 'error'
  /** The model did not answer in time (first byte, or silence inside the stream: the transport's timeoutMs). */
  | 'timeout'
  /** The same call with the same result, too many times in a row. */
  | 'loop_detected'
  /** Too many turns in a row without a new successful result. */
  | 'no_progress'
  /** An empty-arguments call after the hints ran out (seed 003 §4.5 F1). */
  | 'empty_arguments'
  /** The next request would not fit the context window even after eliding and compacting. */
  | 'context_overflow'

/**
 * What failed when a run ends with `error`, as the branch that saw it knows it: callers (the CLI's
 * exit code) decide on this, never on the message text (seed 003 §4.4).
 */
export type RunFailure =
  /** The model request failed: the transport's or codec's error kind (and HTTP status). */
  | { readonly source: 'provider'; readonly kind: ProviderErrorKind; readonly status?: number }
  /** The model answered with an unknown or missing stop reason. */
  | { readonly source: 'stop-reason'; readonly rawStopReason: string | null }
  /** Something else threw (a model client that is not a ProviderError thrower, a loop bug). */
  | { readonly source: 'exception' }

/** Token totals over the whole run (what the provider reported). */
export interface UsageTotals {
  readonly inputTokens: number
  readonly outputTokens: number
  /** Every input token of every request, cached or not (Usage.promptTokens; else inputTokens). */
  readonly promptTokens?: number
  /** Input tokens read from the provider's prompt cache (when it reports them). */
  readonly cacheReadTokens?: number
}

export type AgentEvent =
  | { readonly type: 'turn-start'; readonly turn: number }
  | { readonly type: 'text-delta'; readonly turn: number; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly turn: number; readonly text: string }
  /** A call's block is complete in the stream: the started card. */
  | {
      readonly type: 'tool-call'
      readonly turn: number
      readonly callId: string
      readonly name: string
      /** The raw JSON text the model sent. */
      readonly arguments: string
      readonly view?: ToolCallView
    }
  /** A call's result is final: the settled card (also for cancelled and truncated calls). */
  | {
      readonly type: 'tool-result'
      readonly turn: number
      readonly callId: string
      readonly name: string
      /** The authoritative result (what the session log holds). */
      readonly result: ToolResult
      readonly view?: ToolResultView
    }
  /** The session log's approval events for this run's calls. */
  | {
      readonly type: 'approval'
      readonly turn: number
      readonly phase: 'asked' | 'decided'
      readonly callId: string
      readonly toolName?: string
      readonly reason?: string
      readonly displayReason?: string
      readonly outcome?: string
    }
  /** Context management changed the history: old results elided, or older turns compacted. */
  | {
      readonly type: 'context'
      readonly turn: number
      readonly action: 'elided' | 'compacted'
      /** Estimated tokens before and after. */
      readonly before: number
      readonly after: number
    }
  /** A reminder message the loop injected (job notices, caller reminders). */
  | {
      readonly type: 'reminder'
      readonly turn: number
      readonly keys: readonly string[]
      readonly text: string
    }
  | {
      readonly type: 'turn-end'
      readonly turn: number
      readonly stopReason: StopReason | 'aborted' | 'stream_error'
      readonly rawStopReason: string | null
      readonly usage?: Usage
    }
  | {
      readonly type: 'done'
      readonly reason: DoneReason
      readonly message?: string
      readonly failure?: RunFailure
      readonly turns: number
      readonly usage: UsageTotals
    }

export interface AgentResult {
  readonly reason: DoneReason
  readonly message?: string
  /** Set when `reason` is `error`. */
  readonly failure?: RunFailure
  /** The whole conversation: the input messages plus everything the run appended. */
  readonly messages: readonly Message[]
  /** Only what the run appended. */
  readonly appended: readonly Message[]
  readonly turns: number
  readonly usage: UsageTotals
}
