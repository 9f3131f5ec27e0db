import type { ApprovalService } from '../approval/service.js'
import type { InProcessJobsService, JobsServiceOptions } from '../jobs/index.js'
import type { RuntimeOptions } from '../runtime.js'
import type { BatchOptions } from '../scheduler/batch.js'
import type { SessionSink } from '../session/log.js'
import type { ToolCall } from '../types.js'

// Options are host input: a wrong one is a TypeError that names the option and what it accepts,
// thrown before anything is logged or run — never a value silently "fixed" (a NaN pool once
// resolved a batch to an array of holes without running a call). Each option is read exactly
// once (a getter cannot answer the check one thing and the use another) into a plain copy.

/** setTimeout fires at once for delays above 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647

type Check<T> = (value: unknown) => value is T

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const positiveInteger: Check<number> = (v): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 1
const graceMs: Check<number> = (v): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_TIMER_MS
const budgetMs: Check<number> = (v): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_TIMER_MS
const boolean: Check<boolean> = (v): v is boolean => typeof v === 'boolean'
const fn: Check<(...args: never[]) => unknown> = (v): v is (...args: never[]) => unknown =>
  typeof v === 'function'

/** AbortSignal by shape (polyfills and other realms included): what the pipeline uses of it. */
export const isAbortSignal: Check<AbortSignal> = (v): v is AbortSignal =>
  isObject(v) &&
  typeof v.aborted === 'boolean' &&
  typeof v.addEventListener === 'function' &&
  typeof v.removeEventListener === 'function'

const approvalService: Check<ApprovalService> = (v): v is ApprovalService =>
  isObject(v) && typeof v.request === 'function'
const sessionSink: Check<SessionSink> = (v): v is SessionSink => isObject(v) && typeof v.write === 'function'
const jobs: Check<InProcessJobsService | JobsServiceOptions> = (
  v,
): v is InProcessJobsService | JobsServiceOptions => isObject(v)

/** A short, safe description of what was given (never throws, never prints a whole object). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  switch (typeof value) {
    case 'number':
      return Number.isNaN(value) ? 'NaN' : String(value)
    case 'string':
      return value.length > 40 ? `a string (${JSON.stringify(value.slice(0, 40))}…)` : JSON.stringify(value)
    case 'function':
      return 'a function'
    case 'object':
      return 'an object'
    case 'undefined':
      return 'undefined'
    case 'bigint':
      return `${value}n (a bigint)`
    default:
      return `a ${typeof value}`
  }
}

type Spec = Readonly<Record<string, readonly [Check<unknown>, string]>>

/**
 * Check an options object against its spec and return a plain copy of the given keys. Unknown
 * keys are refused too: a misspelt option (`maxparallel`) would otherwise be silently ignored.
 */
function checkOptions<T>(where: string, options: unknown, spec: Spec): T {
  if (options === undefined) return {} as T
  if (!isObject(options))
    throw new TypeError(`${where}: options must be an object or undefined, got ${describeValue(options)}`)
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(spec, key))
      throw new TypeError(
        `${where}: unknown option ${JSON.stringify(key)}; the options are ${Object.keys(spec).join(', ')}`,
      )
  }
  // Every known option is read as the runtime would read it (inherited values and getters too).
  const copy: Record<string, unknown> = {}
  for (const [key, [valid, accepted]] of Object.entries(spec)) {
    const value = options[key]
    if (value === undefined) continue
    if (!valid(value))
      throw new TypeError(`${where}: options.${key} must be ${accepted}, got ${describeValue(value)}`)
    copy[key] = value
  }
  return Object.freeze(copy) as T
}

const RUNTIME_OPTIONS: Spec = {
  approval: [approvalService, 'an approval service (createApprovalService()) or undefined'],
  session: [sessionSink, 'a session sink ({ write(event) }, e.g. memorySink()) or undefined'],
  maxParallel: [positiveInteger, 'a positive integer (the most calls a batch runs at once; default 10)'],
  abortGraceMs: [graceMs, `a number of milliseconds from 0 to ${MAX_TIMER_MS} (default 2000)`],
  listenerTimeoutMs: [budgetMs, `a number of milliseconds above 0, at most ${MAX_TIMER_MS} (default 60000)`],
  timeouts: [boolean, 'true or false (default true)'],
  jobs: [jobs, 'a jobs service (createJobsService()) or its options object'],
}

export function checkRuntimeOptions(options: unknown): RuntimeOptions {
  return checkOptions('createRuntime', options, RUNTIME_OPTIONS)
}

const BATCH_OPTIONS: Spec = {
  signal: [isAbortSignal, 'an AbortSignal or undefined'],
  maxParallel: [positiveInteger, 'a positive integer (the most calls to run at once) or undefined'],
  onSettled: [fn, 'a function (result) => void or undefined'],
}

export function checkBatchOptions(options: unknown): BatchOptions {
  return checkOptions('executeBatch', options, BATCH_OPTIONS)
}

/**
 * A call must be an object whose signal (if any) is an AbortSignal and agent (if any) a string:
 * those are the host's. Everything else about it is the model's and ends in a result (an odd name
 * is UNKNOWN_TOOL, odd arguments INVALID_ARGS).
 */
export function checkCall(where: string, call: unknown): asserts call is ToolCall {
  if (!isObject(call))
    throw new TypeError(
      `${where} must be a tool call object { callId, name, arguments }, got ${describeValue(call)}`,
    )
  const signal = call.signal
  if (signal !== undefined && !isAbortSignal(signal))
    throw new TypeError(`${where}.signal must be an AbortSignal or undefined, got ${describeValue(signal)}`)
  const agent = call.agent
  if (agent !== undefined && typeof agent !== 'string')
    throw new TypeError(
      `${where}.agent must be a string (the agent's id) or undefined, got ${describeValue(agent)}`,
    )
}

/** executeBatch's calls: an array of call objects, all checked before any is logged. */
export function checkCalls(calls: unknown): asserts calls is readonly ToolCall[] {
  if (!Array.isArray(calls))
    throw new TypeError(`executeBatch: calls must be an array of tool calls, got ${describeValue(calls)}`)
  for (let i = 0; i < calls.length; i++) checkCall(`executeBatch: calls[${i}]`, calls[i])
}
