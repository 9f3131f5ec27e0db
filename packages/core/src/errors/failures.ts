import type { ErrorInfo, FailureKind, ToolFailure } from '../types.js'

// Every failure the pipeline can produce, in one table: the branch that fails picks its entry,
// so `kind` and `code` are never guessed from a message. Messages are written for the model:
// what happened, then what to do next. They hold no timestamps and no host details.

/**
 * A name the model invented, quoted for its own message: escaped (no control characters) and cut
 * at 64 characters, the longest a tool name can be, so an invented name cannot flood the reply.
 */
function quoteName(name: string): string {
  return name.length > 64 ? `${JSON.stringify(name.slice(0, 64)).slice(0, -1)}…"` : JSON.stringify(name)
}

const failure = (kind: FailureKind, code: string, message: string, info?: ErrorInfo): ToolFailure =>
  info === undefined ? { kind, code, message } : { kind, code, message, info }

export const failures = {
  unknownTool: (name: string, suggestions: readonly string[], hint?: string) =>
    failure(
      'unknown_tool',
      'UNKNOWN_TOOL',
      hint ??
        (suggestions.length > 0
          ? `No tool named ${quoteName(name)} is available. Did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}? Call one of the tools listed in your tool definitions.`
          : `No tool named ${quoteName(name)} is available. Call one of the tools listed in your tool definitions.`),
    ),
  invalidJson: (name: string, problem: string) =>
    failure('invalid_input', 'INVALID_ARGS', `The arguments for ${name} ${problem}.`),
  /** `""` as the argument text: the hint is built from the schema (see pipeline/example.ts). */
  emptyArguments: (name: string, required: readonly string[], example: string) =>
    failure(
      'invalid_input',
      'INVALID_ARGS',
      required.length === 0
        ? `The arguments for ${name} are empty; send a JSON object such as ${example}.`
        : `The arguments for ${name} are empty, but ${name} requires ${required.join(', ')}. Call it again with a JSON object such as ${example}.`,
    ),
  notLossless: (name: string, path: string, problem: string) =>
    failure(
      'invalid_input',
      'INVALID_ARGS',
      `The arguments for ${name} are not plain JSON: ${path.replace(/^\$/, 'arguments')} ${problem}.`,
    ),
  schemaViolation: (name: string, issues: readonly string[]) =>
    failure(
      'invalid_input',
      'INVALID_ARGS',
      `The arguments for ${name} do not match its parameters schema:\n${issues.map((i) => `- ${i}`).join('\n')}\nFix these fields and call ${name} again.`,
    ),
  /** A listener's denial: its reason is the message (policy messages carry their own next step). */
  denied: (reason: string, info?: ErrorInfo) =>
    failure('permission_denied', 'PERMISSION_DENIED', reason, info),
  /** A listener denied without a reason. */
  deniedNoReason: (name: string) =>
    failure(
      'permission_denied',
      'PERMISSION_DENIED',
      `This ${name} call was denied by policy; it did not run. Do not retry it unchanged: take a different approach or ask the user.`,
    ),
  /** A listener gave no valid decision: the call fails closed (a bug in host policy, not the model's). */
  failedClosed: (name: string) =>
    failure(
      'permission_denied',
      'PERMISSION_DENIED',
      `This ${name} call was denied: a policy gave no valid decision, so it failed closed; it did not run. Retrying will not help: continue without it or tell the user the policy is broken.`,
    ),
  /**
   * A guard's denial. Guards are monotonic (no approval overrides them), so the next step is
   * always the same and is added here: a guard's own text says why, not what to do.
   */
  guardDenied: (name: string, reason?: string) =>
    failure(
      'permission_denied',
      'PERMISSION_DENIED',
      `${reason === undefined ? `This ${name} call was denied by a guard.` : `This ${name} call was denied by a guard: ${endSentence(reason)}`} It did not run and no approval can allow it; do not retry it: take a different approach.`,
    ),
  approvalRejected: (name: string) =>
    failure(
      'approval_refused',
      'APPROVAL_REJECTED',
      `The user rejected this ${name} call; it did not run. Do not retry it unchanged: ask the user how to proceed or take a different approach.`,
    ),
  approvalCancelled: (name: string) =>
    failure(
      'approval_refused',
      'APPROVAL_CANCELLED',
      `The approval prompt for this ${name} call was dismissed without a decision; it did not run. Ask the user whether to proceed before trying again.`,
    ),
  approvalUnavailable: (name: string, why: string) =>
    failure(
      'approval_refused',
      'APPROVAL_UNAVAILABLE',
      `This ${name} call needs approval, but ${why}; it did not run. Use a different approach that does not need approval, or ask the user to allow it.`,
    ),
  approvalUnsupported: (name: string) =>
    failure(
      'approval_refused',
      'APPROVAL_UNSUPPORTED',
      `This ${name} call needs approval, but this session has no approval service, so it was denied and did not run. Use a different approach that does not need approval.`,
    ),
  blocked: (name: string) =>
    failure(
      'hook_blocked',
      'BLOCKED',
      `This ${name} call ran, but a post-execute policy withheld its result. Do not run it again to see the result: continue without it, or ask the user.`,
    ),
  cancelledBeforeStart: (name: string, why = 'the turn was interrupted') =>
    failure(
      'cancelled',
      'CANCELLED_BEFORE_START',
      `This ${name} call was cancelled before it started (${why}); it had no effect. Re-issue it if it is still needed.`,
    ),
  siblingFailed: (name: string, failedCallId: string) =>
    failure(
      'sibling_failed',
      'SKIPPED_AFTER_SIBLING_FAILURE',
      `This ${name} call was skipped because an earlier ${name} call in the same batch (${failedCallId}) failed; it had no effect. Check that failure, then re-issue this call if it still makes sense.`,
    ),
  aborted: (name: string) =>
    failure(
      'aborted',
      'ABORTED',
      `This ${name} call was interrupted while running (the user cancelled); it may have partially completed. Check the current state before retrying.`,
    ),
  abortedUnresponsive: (name: string, graceMs: number) =>
    failure(
      'aborted',
      'ABORTED',
      `This ${name} call was interrupted while running (the user cancelled) and did not stop within ${graceMs} ms; it may still finish in the background or have partially completed. Check the current state before retrying.`,
    ),
  abortedAfterRun: (name: string, where: string, graceMs: number) =>
    failure(
      'aborted',
      'ABORTED',
      `This ${name} call was interrupted (the user cancelled) after it ran, while ${where} was still handling its result, and that did not stop within ${graceMs} ms; the result is withheld. Check the current state before retrying.`,
    ),
  /** Host code that neither settled nor was stopped within the listener budget (a bug in a policy). */
  stalled: (name: string, where: string, budgetMs: number, ran: boolean) =>
    failure(
      'exception',
      'LISTENER_EXCEPTION',
      ran
        ? `This ${name} call ran, but ${where} did not finish within ${budgetMs} ms, so its result is withheld. This is not caused by your arguments; check the current state before retrying.`
        : `This ${name} call did not run: ${where} did not answer within ${budgetMs} ms. This is not caused by your arguments; retry the call once, and report the problem if it stalls again.`,
    ),
  timeout: (name: string, timeoutMs: number) =>
    failure(
      'timeout',
      'TOOL_TIMEOUT',
      `This ${name} call timed out after ${timeoutMs} ms and was stopped; it may have partially completed. Retry with a smaller task, or a longer timeout if the tool accepts one.`,
    ),
  exception: (name: string, where: string, detail: string) =>
    failure(
      'exception',
      where === 'tool' ? 'TOOL_EXCEPTION' : 'LISTENER_EXCEPTION',
      `The ${name} tool failed unexpectedly (${where === 'tool' ? 'internal error' : `${where} failed`}: ${errorDetail(detail)}). This is not caused by your arguments; you may retry once, then report the problem.`,
    ),
  invalidOutput: (name: string, detail: string) =>
    failure(
      'invalid_output',
      'INVALID_TOOL_OUTPUT',
      `The ${name} tool produced an invalid result (${detail}). This is a bug in the tool, not in your arguments; you may retry once, then report the problem.`,
    ),
  toolError: (message: string, info?: ErrorInfo, code = 'TOOL_ERROR') =>
    failure('tool_error', code, message, info),
} as const

function endSentence(text: string): string {
  const trimmed = text.trim()
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`
}

const MAX_DETAIL = 200
// An absolute path (POSIX, Windows drive, UNC or file: URL) of two or more segments; its last
// segment is kept so the model still knows which file, not where the host keeps it.
const ABSOLUTE_PATH =
  /(?<![^\s'"`(<[{=,])(?:file:\/\/)?(?:[A-Za-z]:[\\/]|\\\\|\/)(?:[^\s'"`()<>[\]{},;:]+[\\/])+([^\s'"`()<>[\]{},;:]*)/g

/**
 * The detail of an unexpected failure as the model may read it: the first line only (a stack
 * never reaches the model), absolute host paths cut to their last segment (`…/name`; core knows
 * no workspace, so none is kept), at most 200 characters. The session log keeps the full error.
 */
export function errorDetail(detail: string): string {
  const firstLine = detail.split(/\r?\n/, 1)[0]!.trim()
  const cleaned = firstLine.replace(ABSOLUTE_PATH, (_m, last: string) => `…/${last}`)
  const text = cleaned === '' ? 'no message' : cleaned
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 1)}…` : text
}

/**
 * One-line text of any thrown value, for failure details (never a stack trace). Host code may
 * throw anything: a Proxy whose traps throw (then even `instanceof` throws), an Error whose
 * `message` getter throws. Whatever cannot be read is "an unprintable value".
 */
export function describeThrown(error: unknown): string {
  try {
    if (typeof error === 'string') return error
    if (error instanceof Error) {
      const { message } = error
      if (typeof message === 'string' && message !== '') return message
      const { name } = error
      return typeof name === 'string' ? name : String(name)
    }
    return String(error)
  } catch {
    return UNPRINTABLE
  }
}

const UNPRINTABLE = 'an unprintable value was thrown'

/** `value instanceof type`, false when asking throws (a Proxy's getPrototypeOf trap). */
export function isInstance<T>(value: unknown, type: abstract new (...args: never[]) => T): value is T {
  try {
    return value instanceof type
  } catch {
    return false
  }
}
