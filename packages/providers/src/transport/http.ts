// POST a JSON request with timeouts, abort, caps and retries (exponential backoff with jitter on
// 429/5xx, honouring retry-after). Any fetch-compatible function works (tests, proxies, undici agents).
//
// Waits, all of them bounded (issue 13 §4): the response headers (`timeoutMs`), new output inside a
// stream (`timeoutMs`, counted only while the body is being read, and reset only by `progress()`:
// bytes alone are not progress, so keep-alive comments cannot hold a stream open), an error body
// (`timeoutMs` for the whole body), and the whole request, retries included (`totalTimeoutMs`).
// Sizes: an error body is read up to `maxErrorBodyBytes` and the rest discarded; a success body
// ends with ProviderLimitError past `maxResponseBytes`.
import { Attempt } from './attempt.js'
import {
  type ErrorBodyCut,
  ProviderAbortedError,
  ProviderError,
  ProviderHttpError,
  ProviderLimitError,
  ProviderNetworkError,
  ProviderStreamError,
  ProviderTimeoutError,
} from './errors.js'
import { resolveTransport, type TransportOptions, type TransportSettings } from './settings.js'

export type { TransportOptions } from './settings.js'

export interface RetryInfo {
  readonly attempt: number
  readonly delayMs: number
  readonly status?: number
  readonly reason: string
}

export interface Connection {
  readonly response: Response
  /**
   * Read one chunk of the body, under the idle timer, the total deadline, the body cap and the
   * caller's abort. Throws the ProviderError that ended the read.
   */
  read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<ReadableStreamReadResult<Uint8Array>>
  /** The reply advanced (the decoder produced output): the idle timer starts again. */
  progress(): void
  /** Done with the response: timers and listeners go; an unread body's connection is closed. */
  close(): void
}

const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504, 529])

export async function postJson(
  provider: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  options: TransportOptions,
  signal: AbortSignal | undefined,
): Promise<Connection> {
  const s = resolveTransport(options)
  const payload = JSON.stringify(body)
  const deadlineAt = performance.now() + s.totalTimeoutMs
  for (let attempt = 1; ; attempt++) {
    const current = new Attempt(signal, deadlineAt, s.totalTimeoutMs)
    if (current.stopped) {
      current.dispose()
      throw current.stopped
    }
    let response: Response
    const clearFirstByte = current.timer(s.timeoutMs, () => new ProviderTimeoutError(s.timeoutMs, 'response'))
    try {
      response = await current.race(
        s.fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream, application/json',
            ...headers,
          },
          body: payload,
          // Never followed: a 307/308 re-sends the conversation, and headers such as x-api-key
          // survive a change of origin (issue 13, red team). A 3xx is an HTTP error (errors.ts).
          redirect: 'manual',
          signal: current.signal,
        }),
      )
    } catch (error) {
      current.dispose()
      if (error instanceof ProviderError) throw error
      const failure = new ProviderNetworkError(url, attempt, error)
      if (attempt > s.retries) throw failure
      await retryWait(
        s,
        { attempt, delayMs: backoff(s, attempt), reason: 'network error' },
        failure,
        signal,
        deadlineAt,
      )
      continue
    } finally {
      clearFirstByte()
    }
    if (!response.ok) {
      let read: { text: string; cut?: ErrorBodyCut }
      try {
        read = await readErrorBody(response, current, s)
      } finally {
        current.dispose()
      }
      const message = providerMessage(read.text)
      const failure = new ProviderHttpError(provider, response.status, message, attempt, read.cut)
      if (RETRYABLE.has(response.status) && attempt <= s.retries) {
        const asked = retryAfterMs(response.headers)
        if (asked === undefined || asked <= s.retryMaxDelayMs) {
          const delayMs = asked ?? backoff(s, attempt)
          const reason = message || `HTTP ${response.status}`
          await retryWait(
            s,
            { attempt, delayMs, status: response.status, reason },
            failure,
            signal,
            deadlineAt,
          )
          continue
        }
      }
      throw failure
    }
    return connection(response, current, s)
  }
}

/** The success response: reads under the idle timer (silence while reading) and the byte cap. */
function connection(response: Response, attempt: Attempt, s: TransportSettings): Connection {
  let silentMs = 0
  let received = 0
  return {
    response,
    async read(reader) {
      const started = performance.now()
      const clearIdle = attempt.timer(
        Math.max(0, s.timeoutMs - silentMs),
        () => new ProviderTimeoutError(s.timeoutMs, 'stream'),
      )
      try {
        const result = await attempt.race(reader.read())
        if (!result.done) {
          received += result.value.byteLength
          if (received > s.maxResponseBytes) {
            const error = new ProviderLimitError('maxResponseBytes', s.maxResponseBytes)
            attempt.stop(error)
            throw error
          }
        }
        return result
      } catch (error) {
        if (error instanceof ProviderError) throw error
        throw new ProviderStreamError(
          `the connection broke mid-stream (${describe(error)}); the reply is incomplete, send the request again.`,
        )
      } finally {
        clearIdle()
        silentMs += performance.now() - started
      }
    },
    progress() {
      silentMs = 0
    },
    close: () => attempt.dispose(),
  }
}

/**
 * An error body, for its message: at most `maxErrorBodyBytes`, for at most `timeoutMs` (then what
 * arrived is used), and the rest is never read (the body is cancelled, the connection closed).
 */
async function readErrorBody(
  response: Response,
  attempt: Attempt,
  s: TransportSettings,
): Promise<{ text: string; cut?: ErrorBodyCut }> {
  const body = response.body
  if (!body) return { text: '' }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let cut: ErrorBodyCut | undefined
  let expire!: () => void
  const expired = new Promise<ReadableStreamReadResult<Uint8Array>>((resolve) => {
    expire = () => {
      cut ??= { limit: 'timeoutMs', ms: s.timeoutMs }
      resolve({ done: true, value: undefined })
    }
  })
  const timer = setTimeout(expire, s.timeoutMs)
  try {
    for (;;) {
      const result = await attempt.race(Promise.race([reader.read(), expired]))
      if (result.done) break
      const room = s.maxErrorBodyBytes - size
      chunks.push(result.value.byteLength > room ? result.value.subarray(0, room) : result.value)
      size += Math.min(room, result.value.byteLength)
      if (result.value.byteLength >= room) {
        cut = { limit: 'maxErrorBodyBytes', bytes: s.maxErrorBodyBytes }
        break
      }
    }
  } catch (error) {
    // The caller's abort and the total deadline end the request; a broken body only ends the message.
    if (error instanceof ProviderError) throw error
  } finally {
    clearTimeout(timer)
    reader.cancel().catch(() => {})
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.byteLength
  }
  return { text: new TextDecoder().decode(bytes), ...(cut ? { cut } : {}) }
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message
  return String(error)
}

function backoff(s: TransportSettings, attempt: number): number {
  const full = Math.min(s.retryMaxDelayMs, s.retryBaseDelayMs * 2 ** (attempt - 1))
  return Math.round(full * (0.5 + Math.random() * 0.5))
}

/** `retry-after-ms` (OpenAI), then `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms))
  const value = headers.get('retry-after')
  if (value === null) return undefined
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The provider's own message in an error body (`{error: {message}}` or `{error: "..."}`), else the text; clipped. */
export function providerMessage(text: string): string {
  try {
    const json: unknown = JSON.parse(text)
    if (typeof json === 'object' && json !== null && 'error' in json) {
      const err = (json as { error: unknown }).error
      if (typeof err === 'string') return clipMessage(err)
      if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string')
        return clipMessage(err.message)
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return clipMessage(text)
}

/** A provider's message goes into an error that people and models read: 300 characters at most. */
function clipMessage(text: string): string {
  const trimmed = text.trim()
  return trimmed.length > 300 ? `${trimmed.slice(0, 299)}…` : trimmed
}

/**
 * Wait before a retry, unless the wait would run past the request's total deadline: then the
 * failure that asked for the retry is the answer (it says more than a timeout would).
 */
async function retryWait(
  s: TransportSettings,
  info: RetryInfo,
  failure: ProviderError,
  signal: AbortSignal | undefined,
  deadlineAt: number,
): Promise<void> {
  if (performance.now() + info.delayMs >= deadlineAt) throw failure
  s.onRetry?.(info)
  if (signal?.aborted) throw new ProviderAbortedError(signal.reason)
  if (info.delayMs <= 0) return
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(new ProviderAbortedError(signal?.reason))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, info.delayMs)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
