import type { ApprovalService } from '../approval/service.js'
import type { AgentView, RegisteredTool, Registry } from '../registry/registry.js'
import type { RuntimeSessionLog } from '../session/log.js'
import type { Deadlines } from '../signal/deadlines.js'
import type { ToolDefinition } from '../tool/define.js'
import type { ContextMessage, JobsService, ToolExecution, ToolFailure } from '../types.js'
import type { Prepared } from './prepare.js'

/** What the pipeline needs from its runtime. */
export interface PipelineHost {
  readonly registry: Registry
  readonly session: RuntimeSessionLog
  readonly approval: ApprovalService | undefined
  readonly jobs: JobsService
  /** How long a body (or async listener) that ignores its abort signal is waited for. */
  readonly graceMs: number
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
  /** performance.now() when the call started. */
  readonly t0: number
}

/** A stage either lets the call go on, or ends it with a failure (final: post-execute skipped). */
export type StageOutcome =
  | { readonly kind: 'continue' }
  | { readonly kind: 'fail'; readonly failure: ToolFailure; readonly final?: boolean }

export const CONTINUE: StageOutcome = Object.freeze({ kind: 'continue' })
