import type { JsonValue } from '@toolgate/core'
import type { DispatchOutcome, SandboxDispatch, SandboxOptions, SandboxResult } from '../src/index.js'
import { runSandboxed } from '../src/index.js'

export interface DispatchRecord {
  readonly name: string
  readonly argsJson: string
  readonly subIndex: number
  readonly signal: AbortSignal
}

/** A dispatcher that records every call and answers with `answer` (default: echo the arguments). */
export function recordingDispatch(
  answer: (name: string, args: JsonValue, subIndex: number) => DispatchOutcome | Promise<DispatchOutcome> = (
    name,
    args,
  ) => ({ ok: true, value: { tool: name, args } }),
): { dispatch: SandboxDispatch; calls: DispatchRecord[] } {
  const calls: DispatchRecord[] = []
  const dispatch: SandboxDispatch = async (name, argsJson, subIndex, signal) => {
    calls.push({ name, argsJson, subIndex, signal })
    return answer(name, JSON.parse(argsJson) as JsonValue, subIndex)
  }
  return { dispatch, calls }
}

export function run(code: string, options: Partial<SandboxOptions> = {}): Promise<SandboxResult> {
  return runSandboxed({
    code,
    tools: ['echo'],
    dispatch: recordingDispatch().dispatch,
    // generous: the first run in a test file waits for a worker to start, and the machine is shared
    timeoutMs: 10_000,
    ...options,
  })
}

/** Drop the timing field so results can be compared exactly. */
export function plain(result: SandboxResult): Omit<SandboxResult, 'durationMs'> {
  const { durationMs: _ignored, ...rest } = result
  return rest
}

export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => {
    open = resolve
  })
  return { promise, open }
}
