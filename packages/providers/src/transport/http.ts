// POST a JSON request with timeouts, abort and retries (exponential backoff with jitter on 429/5xx,
// honouring retry-after). Any fetch-compatible function works (tests, proxies, undici agents).
import {
  ProviderAbortedError,
  ProviderError,
  ProviderHttpError,
  ProviderNetworkError,
  ProviderStreamError,
  ProviderTimeoutError,
} from './errors.js'

export interface TransportOptions {
  /** Default globalThis.fetch. */
  readonly fetch?: typeof fetch
  /** Time allowed until the response headers, and the longest silence inside a stream. Default 120 000. */
  readonly timeoutMs?: number
  /** Retries after the first attempt, for 408/409/429/5xx/529 and network failures. Default 2. */
  readonly retries?: number
  /** First backoff delay; doubles per attempt, with jitter (50-100%). Default 500. */
  readonly retryBaseDelayMs?: number
  /** Longest wait before a retry. A retry-after beyond it ends the retries. Default 30 000. */
  readonly retryMaxDelayMs?: number
  /** Called before each retry wait (for a "rate limited, retrying in 2 s" line). */
  readonly onRetry?: (info: RetryInfo) => void
}

export interface RetryInfo {
  readonly attempt: number
  readonly delayMs: number
  readonly status?: number
  readonly reason: string
}

export interface Connection {
  readonly response: Response
  /** Read one chunk with the idle timeout and the caller's abort applied. */
  read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<ReadableStreamReadResult<Uint8Array>>
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
  const doFetch = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 120_000
  const retries = options.retries ?? 2
  const payload = JSON.stringify(body)
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw new ProviderAbortedError(signal.reason)
    const controller = new AbortController()
    let timedOut = false
    const onAbort = () => controller.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    const release = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
    let response: Response
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream, application/json',
          ...headers,
        },
        body: payload,
        signal: controller.signal,
      })
    } catch (error) {
      release()
      if (signal?.aborted) throw new ProviderAbortedError(signal.reason)
      if (timedOut) throw new ProviderTimeoutError(timeoutMs, 'response')
      if (attempt > retries) throw new ProviderNetworkError(url, attempt, error)
      await wait(options, { attempt, delayMs: backoff(options, attempt), reason: 'network error' }, signal)
      continue
    }
    clearTimeout(timer)
    if (!response.ok) {
      const text = await response.text().catch(() => '')
      release()
      const message = providerMessage(text)
      if (RETRYABLE.has(response.status) && attempt <= retries) {
        const asked = retryAfterMs(response.headers)
        const max = options.retryMaxDelayMs ?? 30_000
        if (asked === undefined || asked <= max) {
          const delayMs = asked ?? backoff(options, attempt)
          await wait(
            options,
            { attempt, delayMs, status: response.status, reason: message || `HTTP ${response.status}` },
            signal,
          )
          continue
        }
      }
      throw new ProviderHttpError(provider, response.status, message, attempt)
    }
    return {
      response,
      read: (reader) =>
        new Promise((resolve, reject) => {
          let stalled = false
          const idle = setTimeout(() => {
            stalled = true
            controller.abort()
          }, timeoutMs)
          reader.read().then(
            (r) => {
              clearTimeout(idle)
              if (r.done) release()
              resolve(r)
            },
            (error: unknown) => {
              clearTimeout(idle)
              release()
              if (signal?.aborted) reject(new ProviderAbortedError(signal.reason))
              else if (stalled) reject(new ProviderTimeoutError(timeoutMs, 'stream'))
              else if (error instanceof ProviderError) reject(error)
              else
                reject(
                  new ProviderStreamError(
                    `the connection broke mid-stream (${describe(error)}); the reply is incomplete, send the request again.`,
                  ),
                )
            },
          )
        }),
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message
  return String(error)
}

function backoff(options: TransportOptions, attempt: number): number {
  const base = options.retryBaseDelayMs ?? 500
  const max = options.retryMaxDelayMs ?? 30_000
  const full = Math.min(max, base * 2 ** (attempt - 1))
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

function providerMessage(text: string): string {
  try {
    const json: unknown = JSON.parse(text)
    if (typeof json === 'object' && json !== null && 'error' in json) {
      const err = (json as { error: unknown }).error
      if (typeof err === 'string') return err
      if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string')
        return err.message
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim().slice(0, 300)
}

async function wait(
  options: TransportOptions,
  info: RetryInfo,
  signal: AbortSignal | undefined,
): Promise<void> {
  options.onRetry?.(info)
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
