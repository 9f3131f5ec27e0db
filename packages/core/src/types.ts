// The public contract of @toolgate/core (DESIGN.md §4). Every other package builds on these types.

/** A lossless JSON value: what arguments, canonical tool values, meta and session payloads must be. */
export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue }
export type JsonObject = { readonly [key: string]: JsonValue }

/** Model-facing content. UI formatting never goes here (seed 001 §6.12). */
export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mediaType: string; readonly data: string }

/** A message a tool defers until after the batch's results (seed 000 §4). */
export type ContextMessage = { readonly role: 'user'; readonly content: readonly ContentBlock[] }

/** Something registered that can be taken back. */
export interface Disposable {
  dispose(): void
  [Symbol.dispose](): void
}

/** Opaque token of an outer transport call (Code Mode's run_code); only compared by identity. */
export type ParentToken = { readonly token: symbol; readonly callId: string; readonly rootCallId: string }

/** What a model (or a program) asks for. */
export interface ToolCall {
  readonly callId: string
  readonly name: string
  readonly arguments: string | JsonValue
  readonly agent?: string
  readonly signal?: AbortSignal
  readonly parent?: ParentToken
}

/** What listeners and guards see; frozen. `arguments` is the materialized, deep-frozen value. */
export interface ToolExecution {
  readonly callId: string
  readonly name: string
  readonly arguments: JsonValue
  readonly agent?: string
  readonly parent?: ParentToken
  /** The signal the current stage should honour (wrappers may replace it for the body). */
  readonly signal: AbortSignal
  /** Identity of this execution; never forgeable, compared by reference. */
  readonly token: symbol
}

/** What the tool body gets as its second parameter. */
export interface ToolRunContext extends ToolExecution {
  /** Deliver a message to the model after this batch's results (FIFO). */
  deferContext(message: ContextMessage): void
  /** Mark this (successful) result as the last step of the turn. */
  concludeTurn(): void
  /**
   * A token for sub-calls this body dispatches (`runtime.execute({ ..., parent })`). The runtime
   * honours it only while this execution is running: it cannot be forged or reused later.
   */
  parentToken(): ParentToken
  /** Background jobs (seed 001 §6.11). */
  readonly jobs: JobsService
  /** Emit a tool-owned session event (`fs/observed`, `todo/write`, ...). Payload must be lossless JSON. */
  emit(type: string, payload: JsonObject): void
}

export type FailureKind =
  | 'unknown_tool'
  | 'invalid_input'
  | 'permission_denied'
  | 'approval_refused'
  | 'hook_blocked'
  | 'cancelled'
  | 'sibling_failed'
  | 'aborted'
  | 'timeout'
  | 'exception'
  | 'invalid_output'
  | 'tool_error'

export type ErrorInfo = JsonObject

export interface ToolFailure {
  readonly kind: FailureKind
  readonly code: string
  readonly message: string
  readonly info?: ErrorInfo
}

export interface ToolResult {
  readonly callId: string
  readonly name: string
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
  /** The canonical value, kept by reference (already frozen). Absent on failures. */
  readonly value?: JsonValue
  readonly meta?: JsonValue
  readonly error?: ToolFailure
  readonly additionalContexts?: readonly ContextMessage[]
  readonly concludesTurn?: boolean
  readonly timing: { readonly startedAt: number; readonly durationMs: number }
}

export type PreToolDecision =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reason: string; readonly info?: ErrorInfo }
  | { readonly kind: 'cancel' }
  | { readonly kind: 'ask'; readonly reason?: string; readonly displayReason?: string }

export type PostToolDecision =
  | {
      readonly kind: 'accept'
      readonly content?: readonly ContentBlock[]
      readonly value?: JsonValue
      readonly additionalContexts?: readonly ContextMessage[]
    }
  | {
      readonly kind: 'block'
      readonly feedback: readonly ContentBlock[]
      readonly additionalContexts?: readonly ContextMessage[]
    }

/**
 * A guard's verdict: undefined lets the call through; a string is the reason, and the runtime
 * frames it with the next step every guard denial shares (no approval can allow it); a
 * `GuardDenial` is the whole model-facing message, for a guard whose denial has a different way
 * forward (load the tool first, ask the user) and says so itself.
 */
export type ToolGuard = (exec: ToolExecution) => string | GuardDenial | undefined
export type GuardDenial = { readonly message: string }

export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable'

/** An approval request references the call; it never carries a copy of the arguments (seed 000 step 10). */
export interface ApprovalRequest {
  readonly callId: string
  readonly toolName: string
  readonly agent?: string
  readonly reason?: string
  readonly displayReason?: string
  readonly signal: AbortSignal
}

/** Model-facing tool declaration, built by explicit allowlist. */
export interface ToolSchema {
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
  readonly deferLoading?: boolean
}

export type ToolExecutionMode = { readonly kind: 'parallel' } | { readonly kind: 'exclusive' }

// ---- UI cards (seed 001 §6.12): pure, replay-safe render intents; never model content ----

export type CardLocation = { readonly path: string; readonly line?: number }

export type ToolCallView =
  | {
      readonly card: 'generic'
      readonly title: string
      readonly kind?: string
      readonly locations?: readonly CardLocation[]
    }
  | { readonly card: 'terminal'; readonly command: string; readonly description?: string }
  | { readonly card: 'diff'; readonly path: string; readonly diff?: string }

export type ToolResultView =
  | {
      readonly card: 'generic'
      readonly title: string
      readonly kind?: string
      readonly summary?: string
      readonly locations?: readonly CardLocation[]
    }
  | {
      readonly card: 'terminal'
      readonly command: string
      readonly output: string
      readonly exitCode: number | null
      readonly signal?: string | null
    }
  | {
      readonly card: 'diff'
      readonly path: string
      readonly diff: string
      readonly added: number
      readonly removed: number
    }
  | {
      readonly card: 'read'
      readonly path: string
      readonly startLine: number
      readonly lines: readonly string[]
      readonly totalLines: number
      readonly language?: string
    }
  | {
      readonly card: 'search'
      readonly query: string
      readonly mode: 'matches' | 'paths' | 'count'
      readonly files: readonly {
        readonly path: string
        readonly matches?: readonly { readonly line: number; readonly text: string }[]
        readonly count?: number
      }[]
    }
  | {
      readonly card: 'web'
      readonly kind: 'search' | 'fetch'
      readonly url?: string
      readonly title?: string
    }

// ---- Background jobs (seed 001 §6.11) ----

export type JobStatus = 'running' | 'stopping' | 'completed' | 'killed' | 'failed'

export interface JobHandle {
  readonly kind: 'background'
  readonly jobId: string
}

export interface JobContext {
  /** The job's own cancellation: job_kill, the owner's disposal or runtime teardown. */
  readonly signal: AbortSignal
  /** Append output to the job's bounded buffer. */
  write(chunk: string): void
}

export interface JobStartOptions {
  readonly kind: string
  readonly label: string
  readonly owner?: string
  /** Resolves with the job's exit summary (e.g. `{ exitCode: 0 }`) or rejects on failure. */
  run(ctx: JobContext): Promise<JsonValue | undefined>
}

export interface JobSnapshot {
  readonly jobId: string
  readonly kind: string
  readonly label: string
  readonly owner?: string
  readonly status: JobStatus
  readonly startedAt: number
  readonly endedAt?: number
  readonly output: string
  readonly droppedBytes: number
  readonly exit?: JsonValue
  readonly error?: string
  readonly killReason?: string
}

export interface JobsService {
  /** Publish a background job; rejects when `signal` (the call's) is already aborted. */
  start(options: JobStartOptions, signal?: AbortSignal): JobHandle
  get(jobId: string): JobSnapshot | undefined
  list(owner?: string): readonly JobSnapshot[]
  kill(jobId: string, reason?: string): Promise<JobSnapshot | undefined>
  /** Wait until the job ends or `signal` aborts / `timeoutMs` passes; returns the latest snapshot. */
  wait(
    jobId: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<JobSnapshot | undefined>
}
