import type { JsonValue } from '@toolgate/core'
import {
  DefaultIntrinsics,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
} from 'quickjs-emscripten'
import { loadEngine, poisonEngine } from './engine.js'
import { PRELUDE_SOURCE } from './prelude.js'
import { formatStripIssues, PROGRAM_FILENAME, PROGRAM_PREFIX, stripTypes } from './strip.js'
import { openPort, takeErrorMessage, type VmPort } from './vm-port.js'

/** What the host dispatcher answers for one sub-call. `message` is model-facing: no internal codes. */
export type DispatchOutcome =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly message: string }

/**
 * The seam to the pipeline. `argsJson` is lossless JSON text produced inside the VM; `subIndex`
 * counts sub-calls of this run from 0 (phase 2 names them `${parent}:code:${subIndex}`); `signal`
 * aborts when the run ends for any reason (the program finished, failed, timed out or was
 * cancelled), so in-flight sub-calls can be cancelled; their late outcomes are ignored.
 *
 * A dispatcher answers either by returning a promise of the outcome, or by returning nothing and
 * calling `settle(subIndex, outcome)` once. The callback is the pipeline's way: one shared
 * function, where a promise per sub-call (and a `then` on it) was a measurable part of the
 * per-call cost. Only the first answer for a sub-call counts.
 */
export type SandboxDispatch = (
  name: string,
  argsJson: string,
  subIndex: number,
  signal: AbortSignal,
  settle: SettleSubCall,
  // biome-ignore lint/suspicious/noConfusingVoidType: a dispatcher that answers through settle returns nothing
) => Promise<DispatchOutcome> | void

export type SettleSubCall = (subIndex: number, outcome: DispatchOutcome) => void

export interface SandboxOptions {
  /** the model's program: erasable TypeScript, the body of an async function */
  readonly code: string
  /** names exposed on `tools` (already filtered to what this caller may see) */
  readonly tools: readonly string[]
  readonly dispatch: SandboxDispatch
  /** the outer call's signal: aborting it interrupts the program (kind 'abort') */
  readonly signal?: AbortSignal
  /** wall-clock budget for the whole run, including time spent awaiting sub-calls. Default 30 s */
  readonly timeoutMs?: number
  /** QuickJS heap limit. Default 64 MiB */
  readonly memoryBytes?: number
  /** console output + result, in UTF-8 bytes. Default 64 KiB */
  readonly maxOutputBytes?: number
  /**
   * QuickJS stack limit. Default 32 KiB (~150 frames of ordinary JS). Kept small on purpose:
   * QuickJS's natives recurse on the HOST's native stack, and with 64 KiB a deeply nested
   * JSON.stringify already overflowed Node's stack when less than half of it was free.
   */
  readonly maxStackBytes?: number
  /**
   * Cross into the VM through quickjs-emscripten's C functions directly when this build of the
   * library allows it (vm-port.ts). Default true; false forces the library's public API.
   */
  readonly directPort?: boolean
}

export type SandboxFailureKind =
  | 'exception'
  | 'timeout'
  | 'abort'
  | 'memory'
  | 'output-limit'
  | 'invalid-output'
  | 'syntax'

export interface AbandonedSubCall {
  readonly subIndex: number
  readonly name: string
}

interface RunReport {
  readonly logs: readonly string[]
  /** how many sub-calls were dispatched to the host */
  readonly subCalls: number
  /** sub-calls still pending when the run ended; their promises were dropped with the context */
  readonly abandoned: readonly AbandonedSubCall[]
  readonly durationMs: number
}

export type SandboxResult =
  | (RunReport & { readonly ok: true; readonly result?: JsonValue })
  | (RunReport & { readonly ok: false; readonly kind: SandboxFailureKind; readonly message: string })

export const SANDBOX_DEFAULTS = {
  timeoutMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  maxOutputBytes: 64 * 1024,
  maxStackBytes: 32 * 1024,
} as const

/** UTF-8 length without Node's Buffer (core-side code must run in browsers too). */
export function utf8Length(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4
        i++
      } else n += 3
    } else n += 3
  }
  return n
}

/**
 * Typed arrays are left out: measured with quickjs-emscripten 0.32, ArrayBuffer storage escaped the
 * runtime's memory limit (2 GB of Uint8Array under a 16 MB limit), and the shared wasm memory never
 * shrinks. Model programs work on JSON; they do not need binary buffers.
 */
const CONTEXT_INTRINSICS = { ...DefaultIntrinsics, TypedArrays: false } as const

type StopReason = 'timeout' | 'abort' | 'output-limit'

interface ErrorDescription {
  head: string
  name: string
  stack: string
  toolName?: string
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
      (_m, col: string) => {
        return `${PROGRAM_FILENAME}:1:${Math.max(1, Number(col) - PROGRAM_PREFIX.length)}`
      },
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
  let d: ErrorDescription
  try {
    d = JSON.parse(json) as ErrorDescription
  } catch {
    return { message: 'Uncaught exception', memory: false }
  }
  const memory = d.name === 'InternalError' && d.head === 'InternalError: out of memory'
  const stack = programStack(d.stack)
  return { message: [`Uncaught ${d.head}`, ...stack].join('\n'), memory }
}

/**
 * Run one program in a fresh QuickJS runtime + context. Never rejects: every outcome, including
 * engine failures, is a SandboxResult.
 */
export async function runSandboxed(options: SandboxOptions): Promise<SandboxResult> {
  const started = performance.now()
  const timeoutMs = options.timeoutMs ?? SANDBOX_DEFAULTS.timeoutMs
  const memoryBytes = options.memoryBytes ?? SANDBOX_DEFAULTS.memoryBytes
  const maxOutputBytes = options.maxOutputBytes ?? SANDBOX_DEFAULTS.maxOutputBytes
  const maxStackBytes = options.maxStackBytes ?? SANDBOX_DEFAULTS.maxStackBytes
  const logs: string[] = []
  let outputBytes = 0
  let subCalls = 0
  const pending = new Map<number, string>()
  const abandoned: AbandonedSubCall[] = []

  const report = (): RunReport => ({ logs, subCalls, abandoned, durationMs: performance.now() - started })
  const failure = (kind: SandboxFailureKind, message: string): SandboxResult => ({
    ok: false,
    kind,
    message,
    ...report(),
  })

  const stripped = stripTypes(options.code)
  if (!stripped.ok) return failure('syntax', formatStripIssues(stripped.issues))
  if (options.signal?.aborted) return failure('abort', abortMessage())

  let module: Awaited<ReturnType<typeof loadEngine>>
  try {
    module = await loadEngine()
  } catch (error) {
    return failure('exception', `The sandbox engine could not be loaded: ${String(error)}`)
  }
  if (options.signal?.aborted) return failure('abort', abortMessage())

  // ---- run state ----
  let stop: StopReason | undefined
  const deadline = started + timeoutMs
  const runEnded = new AbortController()
  const settled: { subIndex: number; outcome: DispatchOutcome }[] = []
  let wake: (() => void) | undefined
  const poke = (): void => {
    const w = wake
    wake = undefined
    w?.()
  }
  const settle: SettleSubCall = (subIndex, outcome) => {
    settled.push({ subIndex, outcome })
    poke()
  }
  const onAbort = (): void => {
    stop ??= 'abort'
    poke()
  }
  options.signal?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(
    () => {
      stop ??= 'timeout'
      poke()
    },
    Math.max(0, timeoutMs),
  )

  let runtime: QuickJSRuntime | undefined
  let ctx: QuickJSContext | undefined
  let lastError: string | undefined
  const handles: QuickJSHandle[] = []
  let opened: VmPort | undefined
  const keep = <T extends QuickJSHandle>(h: T): T => {
    handles.push(h)
    return h
  }

  try {
    runtime = module.newRuntime()
    runtime.setMemoryLimit(memoryBytes)
    runtime.setMaxStackSize(maxStackBytes)
    runtime.setInterruptHandler(() => {
      if (stop !== undefined) return true
      if (performance.now() > deadline) {
        stop = 'timeout'
        return true
      }
      return false
    })
    const vm = runtime.newContext({ intrinsics: CONTEXT_INTRINSICS })
    ctx = vm
    const toolSet = new Set(options.tools)

    const hostLog = keep(
      // answers true once the run is stopping: the prelude then rejects further tool calls itself
      vm.newFunction('hostLog', (levelHandle, textHandle) => {
        if (stop !== undefined) return vm.true
        const level = vm.getString(levelHandle)
        const text = vm.getString(textHandle)
        const line = level === 'warn' || level === 'error' ? `[${level}] ${text}` : text
        const size = utf8Length(line) + 1
        if (outputBytes + size > maxOutputBytes) {
          outputBytes = maxOutputBytes + 1
          stop = 'output-limit'
          return vm.true
        }
        outputBytes += size
        logs.push(line)
        return undefined
      }),
    )
    let outcome: RunnerOutcome | undefined
    const hostDone = keep(
      vm.newFunction('hostDone', (tagHandle, textHandle) => {
        if (outcome) return
        const tag = vm.getNumber(tagHandle)
        const text = vm.getString(textHandle)
        outcome =
          tag === 0
            ? { kind: 'void' }
            : tag === 1
              ? { kind: 'value', json: text }
              : tag === 2
                ? { kind: 'thrown', json: text }
                : { kind: 'invalid', message: text }
      }),
    )

    // ---- install the prelude, compile the program ----
    const preludeFn = keep(vm.unwrapResult(vm.evalCode(PRELUDE_SOURCE, 'prelude.js')))
    const namesHandle = keep(vm.newString(JSON.stringify(options.tools)))
    const bridge = keep(
      vm.unwrapResult(vm.callFunction(preludeFn, vm.undefined, hostLog, hostDone, namesHandle)),
    )
    const runFn = keep(vm.getProp(bridge, 0))
    // port[0]: the sub-calls made since the last read; port[1] and port[2]: settle one (id, then
    // text); port[3]: the last error settling raised (see prelude.ts)
    const port = keep(vm.getProp(bridge, 1))
    const crossing = openPort(module, runtime, vm, port, { direct: options.directPort })
    opened = crossing

    const bridgeError = (): string | undefined => {
      const h = vm.getProp(port, 3)
      const text = vm.typeof(h) === 'string' ? vm.getString(h) : undefined
      h.dispose()
      return text
    }

    // Dispatch the sub-calls the program made since the last look (prelude.ts: the outbox), in the
    // order it made them. Called after every job pump that did not stop the run. A stopping run
    // (deadline, cancel, output limit) is not entered again and dispatches nothing more: calls made
    // in the turn that was stopped are never started, so no tool starts while the run is torn down.
    const drain = (): void => {
      const frames = crossing.take()
      let at = 0
      // a dispatch that stops the run (its synchronous part cancelled the outer call) ends the batch
      while (at < frames.length && stop === undefined) {
        const nl = frames.indexOf('\n', at)
        const end = nl < 0 ? -1 : frames.indexOf('\n', nl + 1)
        if (end < 0) break
        const name = options.tools[Number(frames.slice(at, nl))]
        const argsJson = frames.slice(nl + 1, end)
        at = end + 1
        const subIndex = subCalls++
        if (name === undefined || !toolSet.has(name)) {
          // unreachable: the prelude only frames listed tools; answered without dispatching
          pending.set(subIndex, String(name))
          settle(subIndex, { ok: false, message: `Tool '${String(name)}' is not available.` })
          continue
        }
        pending.set(subIndex, name)
        let answer: ReturnType<SandboxDispatch>
        try {
          answer = options.dispatch(name, argsJson, subIndex, runEnded.signal, settle)
        } catch (error) {
          answer = Promise.reject(error)
        }
        if (answer) {
          Promise.resolve(answer).then(
            (outcome) => settle(subIndex, outcome),
            (error: unknown) => settle(subIndex, unexpected(error)),
          )
        }
      }
    }
    const compiled = vm.evalCode(stripped.js, PROGRAM_FILENAME)
    if (compiled.error) {
      const described = describeThrown(dumpError(vm, compiled.error))
      compiled.error.dispose()
      return failure('syntax', described.message.replace(/^Uncaught /, ''))
    }
    const programFn = keep(compiled.value)
    const started_ = vm.callFunction(runFn, vm.undefined, programFn)
    if (started_.error) lastError = takeErrorMessage(vm, started_.error)
    else started_.value.dispose()

    // ---- the event loop: pump jobs, dispatch new sub-calls, deliver settled ones, until the program settles ----
    for (;;) {
      const jobError = crossing.pump()
      if (jobError !== undefined) lastError = jobError
      if (stop !== undefined) return stopFailure(stop)
      drain()
      if (outcome) return finish(outcome)
      if (settled.length === 0) {
        if (pending.size === 0) {
          // nothing can ever change now: the runner was killed (memory) or the program awaits forever
          lastError ??= bridgeError()
          if (lastError === 'out of memory') return failure('memory', memoryMessage(memoryBytes))
          if (lastError !== undefined) return failure('exception', `The program stopped: ${lastError}`)
          return failure(
            'exception',
            'The program is waiting for a promise that can never settle (no tool call is pending). Await only tools.* calls and promises you resolve yourself; there are no timers.',
          )
        }
        await new Promise<void>((resolve) => {
          wake = resolve
        })
        if (stop !== undefined) return stopFailure(stop)
      }
      // every settlement collected so far crosses now; one job pump then runs them all
      for (const next of settled) {
        const name = pending.get(next.subIndex)
        if (name === undefined) continue
        pending.delete(next.subIndex)
        const outcome = next.outcome
        const text = outcome.ok ? jsonText(outcome.value) : undefined
        if (text !== undefined) crossing.settle(next.subIndex, true, text)
        else crossing.settle(next.subIndex, false, failureText(outcome.ok ? NOT_JSON : outcome.message, name))
      }
      settled.length = 0
      if (stop !== undefined) return stopFailure(stop)
    }
  } catch (error) {
    // A host-level error from inside wasm (trap, native stack overflow): the module may be corrupt.
    poisonEngine(module)
    ctx = undefined
    runtime = undefined
    return failure(
      'exception',
      `The sandbox engine failed while running the program (${errorText(error)}). Simplify the program (less recursion, smaller data) and try again.`,
    )
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
    for (const [subIndex, name] of pending) abandoned.push({ subIndex, name })
    pending.clear()
    runEnded.abort(stop ?? 'run-ended')
    if (ctx) {
      opened?.dispose()
      for (const h of handles) if (h.alive) h.dispose()
      try {
        ctx.dispose()
        runtime?.dispose()
      } catch {
        poisonEngine(module)
      }
    }
  }

  function stopFailure(reason: StopReason): SandboxResult {
    switch (reason) {
      case 'timeout':
        return failure('timeout', `The program ran longer than ${timeoutMs} ms and was stopped.`)
      case 'abort':
        return failure('abort', abortMessage())
      case 'output-limit':
        return failure(
          'output-limit',
          `The program's output exceeded ${maxOutputBytes} bytes and it was stopped.`,
        )
    }
  }

  function finish(outcome: RunnerOutcome): SandboxResult {
    switch (outcome.kind) {
      case 'void':
        return { ok: true, ...report() }
      case 'value': {
        const value = JSON.parse(outcome.json) as JsonValue
        const size = typeof value === 'string' ? utf8Length(value) : utf8Length(outcome.json)
        if (outputBytes + size > maxOutputBytes) {
          return failure(
            'output-limit',
            `The program's output exceeded ${maxOutputBytes} bytes and it was stopped.`,
          )
        }
        return { ok: true, result: value, ...report() }
      }
      case 'thrown': {
        const d = describeThrown(outcome.json)
        return failure(d.memory ? 'memory' : 'exception', d.memory ? memoryMessage(memoryBytes) : d.message)
      }
      case 'invalid':
        return failure('invalid-output', outcome.message)
    }
  }
}

type RunnerOutcome =
  | { kind: 'void' }
  | { kind: 'value'; json: string }
  | { kind: 'thrown'; json: string }
  | { kind: 'invalid'; message: string }

const NOT_JSON = 'The tool returned a value that is not JSON.'

/** A value's JSON text, or undefined when it has none (it cannot cross). */
function jsonText(value: JsonValue): string | undefined {
  try {
    const text = JSON.stringify(value)
    return typeof text === 'string' ? text : undefined
  } catch {
    return undefined
  }
}

/** What a failed sub-call settles with: the program's ToolCallError gets the message and the tool. */
function failureText(message: string, name: string): string {
  return JSON.stringify([message, name])
}

function dumpError(vm: QuickJSContext, error: QuickJSHandle): string {
  try {
    const d = vm.dump(error) as { name?: unknown; message?: unknown; stack?: unknown } | undefined
    const name = typeof d?.name === 'string' ? d.name : 'Error'
    const message = typeof d?.message === 'string' ? d.message : String(d)
    return JSON.stringify({
      head: `${name}: ${message}`,
      name,
      stack: typeof d?.stack === 'string' ? d.stack : '',
    })
  } catch {
    return JSON.stringify({ head: 'SyntaxError', name: 'SyntaxError', stack: '' })
  }
}

function unexpected(error: unknown): DispatchOutcome {
  return { ok: false, message: `The tool call failed unexpectedly: ${errorText(error)}` }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function abortMessage(): string {
  return 'The run was cancelled before the program finished.'
}

function memoryMessage(memoryBytes: number): string {
  return `The program exceeded the memory limit of ${Math.round(memoryBytes / (1024 * 1024))} MB.`
}
