import type { ErrorInfo } from '../types.js'

/**
 * Thrown by a tool body to report an expected failure ("file not found", "no match"): the tool
 * worked and is telling the model something. It becomes kind `tool_error`, never `exception`
 * (which means a bug). Write the message for the model: what happened and what to do next.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError'
  readonly info?: ErrorInfo
  /** A tool's own stable code (e.g. CODE_RUN_FAILED); default TOOL_ERROR. */
  readonly code?: string
  constructor(message: string, options?: { info?: ErrorInfo; code?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    if (options?.info !== undefined) this.info = options.info
    if (options?.code !== undefined && /^[A-Z][A-Z0-9_]{0,63}$/.test(options.code)) this.code = options.code
  }
}

/** The reason a deadline aborts a signal with; tells `timeout` apart from a caller's abort. */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded'
  constructor(readonly timeoutMs: number) {
    super(`deadline of ${timeoutMs} ms exceeded`)
  }
}

/** The reason a sibling cascade aborts a signal with (seed 003 §6: bash skips its later siblings). */
export class SiblingFailed extends Error {
  override readonly name = 'SiblingFailed'
  constructor(readonly failedCallId: string) {
    super(`an earlier sibling call (${failedCallId}) failed`)
  }
}

/** Thrown when a tool definition or registration is invalid: a bug in host code, said clearly. */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError'
}
