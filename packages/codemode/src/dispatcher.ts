import {
  type ContentBlock,
  type JsonObject,
  type JsonValue,
  linkSignals,
  type ParentToken,
  type Runtime,
  type ToolCall,
  type ToolResult,
  type ToolRunContext,
} from '@toolgate/core'
import type { SandboxDispatch, SettleSubCall } from './sandbox-options.js'

// Sub-calls of one run_code program. Each is an ordinary pipeline call (policy, guards,
// approvals, timeouts, post-execute) carrying the outer call's parent token, scheduled by the
// same rules as a batch: parallel-safe calls overlap up to a limit, an exclusive one waits for
// everything dispatched before it and holds a barrier until it is committed. When the program
// ends, queued calls are abandoned (never started) and in-flight ones drained, so every
// started sub-call has its settle event (seed 002, Code Mode paragraph).

/** The logged copy of a settled sub-call; a `tools/code-dispatch-log` listener may rewrite it. */
export interface DispatchLogEntry {
  readonly subCallId: string
  readonly name: string
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
  readonly code?: string
}

export type DispatchLogListener = (entry: DispatchLogEntry, next: () => DispatchLogEntry) => DispatchLogEntry

type Pending = {
  readonly index: number
  readonly callId: string
  readonly name: string
  /** The pipeline call, built once (mode and execute see the same object). */
  readonly call: ToolCall
  readonly parallel: boolean
  /** the sandbox's answer channel (shared by every sub-call of the run) */
  readonly answer: SettleSubCall
}

export interface SubCallDispatcher {
  readonly dispatch: SandboxDispatch
  /** Abandon what never started, wait for what is running. */
  finish(): Promise<void>
}

export function createDispatcher(options: {
  readonly runtime: Runtime
  readonly exec: ToolRunContext
  readonly maxParallel: number
  readonly logListeners: readonly DispatchLogListener[]
}): SubCallDispatcher {
  const { runtime, exec, maxParallel, logListeners } = options
  const parent: ParentToken = exec.parentToken()
  const queue: Pending[] = []
  const running = new Set<Promise<void>>()
  let exclusiveRunning = false
  let finished = false

  const emit = (payload: JsonObject) => exec.emit('tool/code-dispatch', payload)

  const logCopy = (entry: DispatchLogEntry): DispatchLogEntry => {
    // A waterfall over the logged copy only: what the program receives is never changed.
    const run = (i: number): DispatchLogEntry => {
      const listener = logListeners[i]
      return listener ? listener(entry, () => run(i + 1)) : entry
    }
    try {
      return run(0)
    } catch {
      return entry
    }
  }

  const settle = (p: Pending, result: ToolResult) => {
    const entry: { -readonly [K in keyof DispatchLogEntry]: DispatchLogEntry[K] } = {
      subCallId: p.callId,
      name: p.name,
      isError: result.isError,
      content: result.content,
    }
    if (result.error) entry.code = result.error.code
    const logged = logListeners.length === 0 ? entry : logCopy(entry)
    const event: Record<string, JsonValue> = {
      phase: 'settle',
      subCallId: p.callId,
      name: p.name,
      isError: logged.isError,
      content: logged.content as unknown as JsonObject[],
    }
    if (logged.code) event.code = logged.code
    emit(event)
    // Contexts from sub-calls travel with the outer result, after it (not interleaved).
    for (const message of result.additionalContexts ?? []) exec.deferContext(message)
    // A sub-call that concludes the turn concludes the run_code call around it (seed 001): the
    // outer result carries it when the program itself succeeds.
    if (result.concludesTurn === true && !result.isError) exec.concludeTurn()
    if (!result.isError) p.answer(p.index, { ok: true, value: result.value ?? null })
    else
      p.answer(p.index, {
        ok: false,
        message: result.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n'),
      })
  }

  // One linked signal for the whole run: every sub-call is cancelled by the same two sources (the
  // outer call and the sandbox's run-ended signal), and a link per sub-call (an AbortController
  // and two listeners, added and removed) was a measurable part of the per-call cost.
  let link: { readonly source: AbortSignal; readonly linked: ReturnType<typeof linkSignals> } | undefined
  const signalFor = (runSignal: AbortSignal): AbortSignal => {
    if (link?.source !== runSignal) {
      link?.linked.dispose()
      link = { source: runSignal, linked: linkSignals(exec.signal, runSignal) }
    }
    return link.linked.signal
  }

  const start = (p: Pending) => {
    if (!p.parallel) exclusiveRunning = true
    const done = () => {
      running.delete(work)
      if (!p.parallel) exclusiveRunning = false
      pump()
    }
    const work: Promise<void> = runtime.execute(p.call).then(
      (result) => {
        settle(p, result)
        done()
      },
      (error: unknown) => {
        // execute never rejects for tool failures; this is a runtime bug, said plainly.
        emit({ phase: 'settle', subCallId: p.callId, name: p.name, isError: true, code: 'DISPATCH_FAILED' })
        p.answer(p.index, {
          ok: false,
          message: `The ${p.name} call could not be dispatched (${String(error)}).`,
        })
        done()
      },
    )
    running.add(work)
  }

  const pump = () => {
    while (queue.length > 0 && !finished) {
      const head = queue[0]!
      if (exclusiveRunning) return
      if (head.parallel) {
        if (running.size >= maxParallel) return
      } else if (running.size > 0) return
      queue.shift()
      start(head)
    }
  }

  const dispatch: SandboxDispatch = (name, argsJson, subIndex, signal, answer) => {
    if (finished) {
      answer(subIndex, { ok: false, message: 'The program already ended; this tool call was not started.' })
      return
    }
    const callId = `${exec.callId}:code:${subIndex + 1}`
    const call: { -readonly [K in keyof ToolCall]: ToolCall[K] } = {
      callId,
      name,
      arguments: argsJson,
      parent,
      signal: signalFor(signal),
    }
    if (exec.agent !== undefined) call.agent = exec.agent
    const parallel = runtime.mode(call).kind === 'parallel'
    emit({ phase: 'start', subCallId: callId, name, mode: parallel ? 'parallel' : 'exclusive' })
    queue.push({ index: subIndex, callId, name, call, parallel, answer })
    pump()
  }

  return {
    dispatch,
    async finish() {
      finished = true
      for (const p of queue.splice(0)) {
        emit({ phase: 'settle', subCallId: p.callId, name: p.name, isError: true, code: 'ABANDONED' })
        p.answer(p.index, {
          ok: false,
          message: 'The program ended before this tool call started; it was not run.',
        })
      }
      while (running.size > 0) await Promise.all([...running])
      link?.linked.dispose()
      link = undefined
    },
  }
}
