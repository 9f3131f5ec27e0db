import type { JsonValue } from '@toolgate/core'
import { PROGRAM_FILENAME, PROGRAM_PREFIX } from './strip.js'
import type { ThrownDescription, VmOutcome } from './vm-protocol.js'

// How a run ended, in the words the model reads (render.ts adds the next step). The worker
// reports facts (vm-protocol.ts VmOutcome); the host decides what they mean here.

export type SandboxFailureKind =
  | 'exception'
  | 'timeout'
  | 'abort'
  | 'memory'
  | 'output-limit'
  | 'invalid-output'
  | 'syntax'

export type RunEnd =
  | { readonly ok: true; readonly result?: JsonValue }
  | { readonly ok: false; readonly kind: SandboxFailureKind; readonly message: string }

export interface Limits {
  readonly timeoutMs: number
  readonly memoryBytes: number
  readonly maxOutputBytes: number
}

export const failed = (kind: SandboxFailureKind, message: string): RunEnd => ({ ok: false, kind, message })

export const messages = {
  timeout: (limits: Limits) => `The program ran longer than ${limits.timeoutMs} ms and was stopped.`,
  notStarted: (limits: Limits) =>
    `The program did not start within ${limits.timeoutMs} ms: no sandbox worker was ready in time (the machine may be busy). Nothing ran; run it again, with a larger timeout_ms if this repeats.`,
  abort: () => 'The run was cancelled before the program finished.',
  memory: (limits: Limits) =>
    `The program exceeded the memory limit of ${Math.round(limits.memoryBytes / (1024 * 1024))} MB.`,
  outputLimit: (limits: Limits) =>
    `The program's output exceeded ${limits.maxOutputBytes} bytes and it was stopped.`,
  engineFailed: (detail: string) =>
    `The sandbox engine failed while running the program (${detail}). Simplify the program (less recursion, smaller data) and try again.`,
  engineUnavailable: (detail: string) => `The sandbox engine could not be loaded: ${detail}`,
} as const

/**
 * The longest failure message a run reports, in UTF-16 code units. Everything in it but our own
 * words comes from the program (an error's name and message, its stack, a value's path), and the
 * output limit does not cover it: a `throw` of a 20 MB string was 20 MB of model text.
 */
export const MESSAGE_MAX_CHARS = 4_000

/** `text` cut to MESSAGE_MAX_CHARS (never inside a surrogate pair), with a marker saying how much. */
export function capMessage(text: string): string {
  if (text.length <= MESSAGE_MAX_CHARS) return text
  let end = MESSAGE_MAX_CHARS
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}… [${(text.length - end).toLocaleString('en-US')} more characters cut]`
}

/** What the worker reported, as a run's end; a failure's message is at most MESSAGE_MAX_CHARS (+ the marker). */
export function endOf(outcome: VmOutcome, limits: Limits): RunEnd {
  const end = describeEnd(outcome, limits)
  return end.ok ? end : failed(end.kind, capMessage(end.message))
}

function describeEnd(outcome: VmOutcome, limits: Limits): RunEnd {
  switch (outcome.kind) {
    case 'void':
      return { ok: true }
    case 'value':
      return { ok: true, result: JSON.parse(outcome.json) as JsonValue }
    case 'thrown': {
      const d = describeThrown(outcome.json)
      return d.memory ? failed('memory', messages.memory(limits)) : failed('exception', d.message)
    }
    case 'invalid':
      return failed('invalid-output', outcome.message)
    case 'syntax':
      return failed('syntax', describeThrown(outcome.json).message.replace(/^Uncaught /, ''))
    case 'output-limit':
      return failed('output-limit', messages.outputLimit(limits))
    case 'stopped':
      // only answers a stop the host asked for, after it had already ended the run
      return failed('abort', messages.abort())
    case 'stuck':
      // nothing can ever change: the runner was killed (memory) or the program awaits forever
      if (outcome.lastError === 'out of memory') return failed('memory', messages.memory(limits))
      if (outcome.lastError !== undefined)
        return failed('exception', `The program stopped: ${outcome.lastError}`)
      return failed(
        'exception',
        'The program is waiting for a promise that can never settle (no tool call is pending). Await only tools.* calls and promises you resolve yourself; there are no timers.',
      )
    case 'engine':
      return failed('exception', messages.engineFailed(outcome.message))
  }
}

const MAX_STACK_LINES = 8

/** QuickJS stack lines for the model's own frames, with line-1 columns corrected for the wrapper. */
function programStack(stack: string): string[] {
  const lines: string[] = []
  let last = ''
  let repeats = 0
  for (const raw of stack.split('\n')) {
    const line = raw.trim()
    if (!line.includes(`(${PROGRAM_FILENAME}:`) && !line.startsWith(`at ${PROGRAM_FILENAME}:`)) continue
    const fixed = line.replace(
      new RegExp(`${PROGRAM_FILENAME.replace('.', '\\.')}:1:(\\d+)`),
      (_m, col: string) => `${PROGRAM_FILENAME}:1:${Math.max(1, Number(col) - PROGRAM_PREFIX.length)}`,
    )
    if (fixed.startsWith('at <eval>')) continue
    if (fixed === last) {
      repeats++
      continue
    }
    if (repeats > 0) lines.push(`  (previous line repeated ${repeats} more times)`)
    repeats = 0
    last = fixed
    lines.push(`  ${fixed.replace(/^at <anonymous> \((.*)\)$/, 'at $1')}`)
    if (lines.length >= MAX_STACK_LINES) break
  }
  if (repeats > 0) lines.push(`  (previous line repeated ${repeats} more times)`)
  return lines
}

function describeThrown(json: string): { message: string; memory: boolean } {
  let d: ThrownDescription
  try {
    d = JSON.parse(json) as ThrownDescription
  } catch {
    return { message: 'Uncaught exception', memory: false }
  }
  const memory = d.name === 'InternalError' && d.head === 'InternalError: out of memory'
  return { message: [`Uncaught ${d.head}`, ...programStack(d.stack)].join('\n'), memory }
}
