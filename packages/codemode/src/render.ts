import type { JsonValue } from '@toolgate/core'
import type { AbandonedSubCall, SandboxFailureKind, SandboxResult } from './sandbox-options.js'

export const NO_OUTPUT_TEXT = '(run_code completed with no output)'
export const CODE_RUN_FAILED = 'CODE_RUN_FAILED'

/** The canonical value of a successful run_code call (issue 6 §2). */
export interface RunCodeValue {
  readonly logs: readonly string[]
  readonly result?: JsonValue
}

/** What the model reads after a failure: the kind, the facts, what to do next. */
const NEXT_STEP = {
  exception:
    'Fix the program and run it again. A failed tool call rejects with ToolCallError (check e.toolName and e.message in a try/catch).',
  timeout:
    'Do less per run: fewer or smaller tool calls, no busy loops, or split the work across several run_code calls (a larger timeout_ms is possible if the work is genuinely long).',
  abort: 'Tool calls still running were cancelled. Do not retry unless you are asked to.',
  memory:
    'Process data in smaller pieces and keep only what you need: return summaries or the few fields you need, not whole files or results.',
  'output-limit':
    'Log less and return less: print counts or short summaries instead of whole values, and return only the fields you need.',
  'invalid-output':
    'Return plain JSON data (objects, arrays, strings, finite numbers, booleans, null) or nothing; convert Maps, Sets, Dates and class instances first.',
  syntax:
    'Fix these and run it again. The program is the body of an async function (top-level await and return work) written in TypeScript whose types can simply be erased.',
} as const satisfies Record<SandboxFailureKind, string>

function renderResult(result: JsonValue): string {
  return typeof result === 'string' ? result : JSON.stringify(result, null, 2)
}

/** The abandoned calls the note names one by one; the rest are counted (500 names were ~6 KB). */
const ABANDONED_NAMED = 20

function abandonedNote(abandoned: readonly AbandonedSubCall[]): string | undefined {
  if (abandoned.length === 0) return undefined
  const named = abandoned
    .slice(0, ABANDONED_NAMED)
    .map((a) => `${a.name} (#${a.subIndex})`)
    .join(', ')
  const rest = abandoned.length - ABANDONED_NAMED
  const list = rest > 0 ? `${named} and ${rest} more` : named
  return `Note: ${abandoned.length} tool call(s) were still pending when the program ended and were cancelled: ${list}. Await every tools.* call.`
}

/** Success: the logs, then the result (strings raw, other values as pretty JSON). */
export function renderRunCodeValue(value: RunCodeValue, abandoned: readonly AbandonedSubCall[] = []): string {
  const parts: string[] = [...value.logs]
  if (value.result !== undefined) parts.push(renderResult(value.result))
  const note = abandonedNote(abandoned)
  if (note) parts.push(note)
  return parts.length === 0 ? NO_OUTPUT_TEXT : parts.join('\n')
}

export interface RunCodeFailure {
  readonly kind: SandboxFailureKind
  readonly message: string
  readonly logs: readonly string[]
  readonly abandoned?: readonly AbandonedSubCall[]
}

/** `CODE_RUN_FAILED (<kind>): <message>`, the next step, then the output captured before it failed. */
export function renderRunCodeFailure(failure: RunCodeFailure): string {
  const header = `${CODE_RUN_FAILED} (${failure.kind}): ${failure.message}`
  const parts = [
    failure.kind === 'syntax'
      ? `${CODE_RUN_FAILED} (syntax): The program could not be compiled:\n${failure.message}`
      : header,
    NEXT_STEP[failure.kind],
  ]
  const note = abandonedNote(failure.abandoned ?? [])
  if (note && failure.kind !== 'abort') parts.push(note)
  if (failure.logs.length > 0) parts.push(`Output before the failure:\n${failure.logs.join('\n')}`)
  return parts.join('\n')
}

export function renderRunCodeOutput(result: SandboxResult): string {
  if (result.ok) {
    const value: RunCodeValue =
      result.result === undefined ? { logs: result.logs } : { logs: result.logs, result: result.result }
    return renderRunCodeValue(value, result.abandoned)
  }
  return renderRunCodeFailure(result)
}
