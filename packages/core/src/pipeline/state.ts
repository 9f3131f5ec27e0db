import type { ApprovalService } from '../approval/service.js'
import type { DeadlineExceeded } from '../errors/tool-error.js'
import type { AgentView, PostExecuteResult, RegisteredTool, Registry } from '../registry/registry.js'
import type { RuntimeSessionLog } from '../session/log.js'
import type { Deadlines } from '../signal/deadlines.js'
import type { ToolDefinition } from '../tool/define.js'
import type {
  ContentBlock,
  ContextMessage,
  JobsService,
  JsonValue,
  ToolExecution,
  ToolFailure,
} from '../types.js'
import type { HostWaitEvents } from './bounded.js'
import type { Prepared } from './prepare.js'

/** What the pipeline needs from its runtime. */
export interface PipelineHost {
  readonly registry: Registry
  readonly session: RuntimeSessionLog
  readonly approval: ApprovalService | undefined
  readonly jobs: JobsService
  /** How long a body (or any host code) that ignores its abort signal is waited for after the stop. */
  readonly graceMs: number
  /** How long host code (listeners, wrappers, async validators) may take when nothing stops the call. */
  readonly listenerTimeoutMs: number
  /** The runtime's call deadlines (shared lists, no timer per call). */
  readonly deadlines: Deadlines
  /** Executions that handed out a parent token and are still running: only these are valid parents. */
  readonly live: Map<symbol, ToolExecution>
  trackOrphan(exec: ToolExecution, stage: string, promise: Promise<unknown>): void
  reportListenerError(stage: string, callId: string, error: unknown): void
}

/** Per-call options the scheduler passes in. */
export interface CallOptions {
  /** The call already prepared (by the scheduler, to read its mode). */
  readonly prepared?: Prepared
  /** The batch's (or caller's) signal, in addition to the call's own. */
  readonly signal?: AbortSignal
  /** Aborted with SiblingFailed when an earlier same-tool sibling failed (cascade). */
  readonly cascade?: AbortSignal
  /** Serializes pre-execute (and approval prompts) in model order within a batch. */
  readonly preLane?: { readonly turn: Promise<void>; release(): void }
}

/** One call's mutable working state; nothing here is visible to listeners. */
export interface CallState {
  readonly host: PipelineHost
  readonly prepared: Prepared
  /** The registry view for the call's agent, taken when the call started (listeners, guards). */
  readonly view: AgentView
  readonly tool: RegisteredTool | undefined
  readonly definition: ToolDefinition<never, never> | undefined
  readonly exec: ToolExecution
  /** Aborted by the caller or the batch: the source of `cancelled` and `aborted`. */
  readonly callerSignal: AbortSignal
  /** Releases the listeners that linked the caller's signals (when the call settles). */
  readonly unlink: () => void
  readonly cascade: AbortSignal | undefined
  /** Captured at start (seed 000 §3 ⑤): a re-registration mid-call does not change it. */
  readonly finalize: ToolDefinition<never, never>['finalizeContent']
  /** Deferred context messages, created on first use (most calls have none). */
  contexts: ContextMessage[] | undefined
  concluded: boolean
  /** Set once the body asked for a parent token: the execution is live until it settles. */
  parentOf: boolean
  /** Set when the body was started (a failure message then says the call may have had effects). */
  ran: boolean
  /** Bodies running now (a retry wrapper may start more than one); pauses the wrappers' budget. */
  bodies: number
  /** The last body run's own promise: a wrapper chain that returns it adds no wait of its own. */
  bodyPromise: Promise<unknown> | undefined
  /** The call's deadline passed in the last body run (cleared when a wrapper starts another run). */
  expired: DeadlineExceeded | undefined
  /** The execute stage's wait, while it waits: body runs tell it of their starts, ends and deadlines. */
  waiting: HostWaitEvents | undefined
  /** Stages whose wait gave up (bits of ABANDONED), or ENDED once the call concluded. */
  abandoned: number
  /** performance.now() when the call started. */
  readonly t0: number
}

/**
 * What a stage hands on: the call goes on with a value, or ends with a failure. `final`: the call
 * ends here and post-execute is skipped (a throw in pre-execute, approval, a guard, a wrapper,
 * projectContent; a stalled listener); otherwise post-execute still sees the failure (seed 002).
 */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly failure: ToolFailure; readonly final?: boolean }

export type Failed = Extract<Outcome<unknown>, { ok: false }>

export const PASS: Outcome<undefined> = Object.freeze({ ok: true, value: undefined })

/** The result under construction, from the body's outcome (or a failure) to finalizeContent. */
export type Candidate = {
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
  readonly value?: JsonValue
  readonly meta?: JsonValue
  readonly error?: ToolFailure
}

/** A failure as a candidate: its message is the model-facing content. */
export function failureCandidate(failure: ToolFailure): Candidate {
  return { isError: true, content: [{ type: 'text', text: failure.message }], error: failure }
}

/** The frozen copy of a candidate that hooks see (post-execute, projectContent, finalizeContent). */
export function frozenCandidate(candidate: Candidate): PostExecuteResult {
  return Object.freeze({ ...candidate })
}

/**
 * Stages a give-up closed: host code that settles late may still call `next()`, and it must find
 * the door shut (no later listener runs, no body starts). ENDED: the call concluded.
 */
export const ABANDONED = Object.freeze({ pre: 1, execute: 2, post: 4, ended: 7 })
