import type { JsonValue } from '@toolgate/core'
import type { AbandonedSubCall, DispatchOutcome, SandboxDispatch, SettleSubCall } from './sandbox-options.js'

/**
 * The most sub-calls one run may have dispatched and unanswered, and the most characters of their
 * arguments. The VM's memory limit bounds what a program holds, not what it hands over: each call
 * it makes without awaiting crosses to the host and waits there (in the dispatcher's queue, behind
 * `maxParallel`), so a program firing 1 MB arguments in a loop grew the host by 440 MB in 8 s.
 * Past either bound a call is answered at once with a rejection and never dispatched.
 */
export const MAX_PENDING_SUB_CALLS = 1_000
export const MAX_PENDING_ARGS_CHARS = 16 * 1024 * 1024

// Formatted once: a program can make 200,000 calls in one turn, and toLocaleString costs ~20 µs.
const PENDING_TEXT = `${MAX_PENDING_SUB_CALLS.toLocaleString('en-US')} tool calls (or ${MAX_PENDING_ARGS_CHARS.toLocaleString('en-US')} characters of arguments) are already waiting for an answer, the most one program may have pending. Await earlier calls before making more (for example in batches of 50 with Promise.all).`
const callsText = (max: number) =>
  `the program already made ${max.toLocaleString('en-US')} tool calls, the most one run may make. Split the work across several run_code calls (each can continue where the last one stopped).`
/** A sub-call refused before it was dispatched: `This <tool> call was not started: <why>`. */
const notStarted = (name: string, why: string) => `This ${name} call was not started: ${why}`

/**
 * The limits as the prelude enforces them inside the VM (vm-protocol.ts `subCallLimits`), so
 * that a refused call never crosses: 100,000 refusals a turn, each settled from the host, held
 * the host's event loop 1.2 s (a structured clone of their texts). The bridge below checks the
 * same limits again on the host, which must not trust the VM to bound its memory.
 */
export function subCallLimits(maxSubCalls: number): string {
  return JSON.stringify({
    maxPending: MAX_PENDING_SUB_CALLS,
    maxPendingChars: MAX_PENDING_ARGS_CHARS,
    maxCalls: maxSubCalls,
    pendingText: PENDING_TEXT,
    callsText: callsText(maxSubCalls),
  })
}

/** What the bridge needs from its run. */
export interface SubCallRun {
  /** the tools the program sees, by the index its frames carry */
  readonly tools: readonly string[]
  readonly dispatch: SandboxDispatch
  /** the most sub-calls the run may dispatch (`SandboxOptions.maxSubCalls`) */
  readonly maxSubCalls: number
  /** aborts when the run ends for any reason: in-flight sub-calls can be cancelled */
  readonly signal: AbortSignal
  /** whether the run has ended: afterwards nothing is dispatched or settled */
  readonly ended: () => boolean
  /** sends one batch of settlements to the worker (vm-protocol.ts `settle`) */
  readonly send: (codes: number[], texts: string[]) => void
}

/** One run's sub-calls between the worker's frames and the host's `dispatch`. */
export interface SubCallBridge {
  /** The sub-calls of one VM turn, `<tool index>\n<args JSON>\n` each, dispatched in order. */
  dispatchFrames(frames: string): void
  /** how many sub-calls were dispatched */
  count(): number
  /** the sub-calls dispatched and not answered, in dispatch order */
  abandoned(): AbandonedSubCall[]
  /** the run ended: forget the pending sub-calls (their late answers are ignored) */
  close(): void
}

/**
 * The sub-call half of a run (sandbox.ts owns its lifecycle). Settlements are collected and sent
 * in one message per microtask checkpoint: every answer made before the next checkpoint crosses
 * together. A settlement is `codes[i]` = the sub-call's index (or `-index - 1` for a failure) and
 * `texts[i]` = the value's JSON text (or `["message", "tool name"]`), as the prelude's port reads them.
 */
export function subCallBridge(run: SubCallRun): SubCallBridge {
  let count = 0
  /** sub-calls handed to `dispatch` */
  let dispatched = 0
  const tooMany = callsText(run.maxSubCalls)
  /** sub-calls dispatched and not yet answered: subIndex -> tool name and argument characters */
  const pending = new Map<number, { readonly name: string; readonly chars: number }>()
  let pendingChars = 0
  const toolSet = new Set(run.tools)
  let codes: number[] = []
  let texts: string[] = []
  const flush = (): void => {
    if (run.ended() || codes.length === 0) return
    run.send(codes, texts)
    codes = []
    texts = []
  }
  const settle: SettleSubCall = (subIndex, outcome) => {
    const entry = pending.get(subIndex)
    if (run.ended() || entry === undefined) return
    pending.delete(subIndex)
    pendingChars -= entry.chars
    const { name } = entry
    const text = outcome.ok ? jsonText(outcome.value) : undefined
    if (codes.length === 0) queueMicrotask(flush)
    if (text !== undefined) {
      codes.push(subIndex)
      texts.push(text)
    } else {
      codes.push(-subIndex - 1)
      texts.push(JSON.stringify([outcome.ok ? NOT_JSON : outcome.message, name]))
    }
  }

  const dispatchFrames = (frames: string): void => {
    let at = 0
    // a dispatch whose synchronous part ended the run (it cancelled the outer call) ends the batch
    while (at < frames.length && !run.ended()) {
      const nl = frames.indexOf('\n', at)
      const close = nl < 0 ? -1 : frames.indexOf('\n', nl + 1)
      if (close < 0) break
      const name = run.tools[Number(frames.slice(at, nl))]
      const argsJson = frames.slice(nl + 1, close)
      at = close + 1
      const subIndex = count++
      const full =
        pending.size >= MAX_PENDING_SUB_CALLS || pendingChars + argsJson.length > MAX_PENDING_ARGS_CHARS
      pending.set(subIndex, { name: String(name), chars: argsJson.length })
      pendingChars += argsJson.length
      if (name === undefined || !toolSet.has(name)) {
        // unreachable: the prelude only frames listed tools; answered without dispatching
        settle(subIndex, { ok: false, message: `Tool '${String(name)}' is not available.` })
        continue
      }
      if (full) {
        settle(subIndex, { ok: false, message: notStarted(name, PENDING_TEXT) })
        continue
      }
      if (dispatched >= run.maxSubCalls) {
        settle(subIndex, { ok: false, message: notStarted(name, tooMany) })
        continue
      }
      dispatched++
      let answer: ReturnType<SandboxDispatch>
      try {
        answer = run.dispatch(name, argsJson, subIndex, run.signal, settle)
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

  return {
    dispatchFrames,
    count: () => count,
    abandoned: () => [...pending].map(([subIndex, { name }]) => ({ subIndex, name })),
    close: () => {
      pending.clear()
      pendingChars = 0
    },
  }
}

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

function unexpected(error: unknown): DispatchOutcome {
  return { ok: false, message: `The tool call failed unexpectedly: ${errorText(error)}` }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
