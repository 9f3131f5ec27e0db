// The first model request of `run`, sent before the session is built (issue 15 §3). What a first
// request holds is known from the start: the system prompt (the command's paragraph, the policy's
// rules text, the Code Mode declaration), the task, and the tool declarations, which are the same
// in every session without MCP (first-request.generated.ts, checked by a test against a real
// session). So `run` sends it at once and builds the session (tools, zod, policy, parser, sandbox
// probe, Code Mode, the log) while the model works on it.
//
// The agent loop stays the one that decides: its first `stream()` call adopts the early request
// only when the request it built is the same, field for field (the same JSON), so the model sees
// exactly what the eager path sends, once. Anything else (a stale snapshot, a loop that stopped
// before its first request) aborts the early request; a different request is then sent as usual,
// and the mismatch is reported (`onMismatch`), because it means the snapshot must be regenerated.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { ModelClient, ModelRequest, ModelStreamEvent } from '@toolgate/providers'

type EarlyOutcome = 'pending' | 'adopted' | 'resent' | 'discarded'

export interface EarlyRequest {
  /** The model for the session: its first `stream()` adopts the early request when it is the same. */
  readonly model: ModelClient
  /** Abort the early request unless it was adopted (the run ended before its first request). */
  discard(reason: string): void
  readonly outcome: () => EarlyOutcome
  /**
   * Settles once the request's body is written to the socket, or the request has failed or been
   * answered, or `wireWaitMs` after fetch created it, whichever is first; never rejects. Loading the session is
   * synchronous work that would hold the request back if it started before the bytes are out.
   */
  readonly onWire: Promise<void>
}

export interface EarlyRequestOptions {
  /** Called at the session's first `stream()`, adopted or not (e.g. to release held log lines). */
  readonly onFirstStream?: () => void
  /** The loop built another first request: the early one was aborted and this one is sent. */
  readonly onMismatch?: (detail: string) => void
  /** The longest `onWire` waits once fetch has created the request (default WIRE_WAIT_MS). */
  readonly wireWaitMs?: number
}

/** A connection and TLS handshake to a remote API fit in this; loopback needs a millisecond. */
const WIRE_WAIT_MS = 250
/** When fetch never reports a request (another fetch implementation): load the session anyway. */
const NO_REQUEST_MS = 2_000

// Node's fetch (undici) reports each request's life on these channels (Node >= 18).
const CREATED = 'undici:request:create'
const SENT = 'undici:request:bodySent'
const FAILED = 'undici:request:error'

/** Send `request` now through `inner`; see the top of this file for what the session gets. */
export function startEarlyRequest(
  inner: ModelClient,
  request: ModelRequest,
  options: EarlyRequestOptions = {},
): EarlyRequest {
  const controller = new AbortController()
  const wire = onTheWire(options.wireWaitMs ?? WIRE_WAIT_MS)
  const iterator = inner.stream(request, controller.signal)[Symbol.asyncIterator]()
  // Asking for the first event is what starts the HTTP request.
  const first = iterator.next()
  // Its outcome ends the wire wait; handling it here also keeps a failure nobody adopts from being an
  // unhandled rejection (an adopted one rethrows it to the loop).
  first.then(wire.done, wire.done)
  const sent = JSON.stringify(request)
  let state: EarlyOutcome = 'pending'

  const discard = (reason: string) => {
    if (state !== 'pending') return
    state = 'discarded'
    controller.abort(new Error(`the early first request was not used: ${reason}`))
    // Closes the response; a generator still waiting for its first event settles through the abort.
    void first.then(
      () => Promise.resolve(iterator.return?.()).catch(() => undefined),
      () => undefined,
    )
  }

  async function* adopted(signal: AbortSignal | undefined): AsyncGenerator<ModelStreamEvent> {
    // The loop's signal now governs the request (its reason, as if it had been passed to stream()).
    const onAbort = () => controller.abort(signal?.reason)
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
    let finished = false
    try {
      for (let step = await first; !step.done; step = await iterator.next()) yield step.value
      finished = true
    } finally {
      signal?.removeEventListener('abort', onAbort)
      // A consumer that stops early closes the response, as with any stream.
      if (!finished) await iterator.return?.()
    }
  }

  return {
    outcome: () => state,
    onWire: wire.promise,
    discard,
    model: {
      provider: inner.provider,
      model: inner.model,
      stream(next, signal) {
        if (state !== 'pending') return inner.stream(next, signal)
        options.onFirstStream?.()
        if (JSON.stringify(next) === sent) {
          state = 'adopted'
          return adopted(signal)
        }
        discard('the first request the session built is different')
        state = 'resent'
        options.onMismatch?.(firstDifference(JSON.parse(sent) as ModelRequest, next))
        return inner.stream(next, signal)
      },
    },
  }
}

/** Where two requests differ first, in a few words (for the mismatch note). */
function firstDifference(sent: ModelRequest, built: ModelRequest): string {
  const sentTools = (sent.tools ?? []).map((t) => t.name)
  const builtTools = (built.tools ?? []).map((t) => t.name)
  if (sentTools.join() !== builtTools.join())
    return `tools sent [${sentTools.join(', ')}], the session has [${builtTools.join(', ')}]`
  const tool = (sent.tools ?? []).find((t, i) => JSON.stringify(t) !== JSON.stringify((built.tools ?? [])[i]))
  if (tool) return `the declaration of ${tool.name} differs`
  if (JSON.stringify(sent.messages) !== JSON.stringify(built.messages)) return 'the messages differ'
  return 'the request options differ'
}

/**
 * When the next request this process makes through fetch has its body written (the first one
 * created after this call: nothing else talks HTTP while `run` starts). Bounded twice: `ms` from
 * the request's creation (fetch is loaded by then, so this is the connection and the write), and
 * NO_REQUEST_MS from now for a fetch that reports nothing on these channels.
 */
function onTheWire(ms: number): { promise: Promise<void>; done: () => void } {
  let mine: object | undefined
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  const timers: ReturnType<typeof setTimeout>[] = []
  const created = (message: unknown) => {
    if (mine !== undefined) return
    mine = (message as { request?: object }).request
    timers.push(setTimeout(() => done(), ms))
  }
  const ended = (message: unknown) => {
    if (mine !== undefined && (message as { request?: object }).request === mine) done()
  }
  const done = () => {
    for (const timer of timers) clearTimeout(timer)
    unsubscribe(CREATED, created)
    unsubscribe(SENT, ended)
    unsubscribe(FAILED, ended)
    resolve()
  }
  timers.push(setTimeout(() => done(), NO_REQUEST_MS))
  subscribe(CREATED, created)
  subscribe(SENT, ended)
  subscribe(FAILED, ended)
  return { promise, done: () => done() }
}
