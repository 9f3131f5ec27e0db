// The transport's options, their defaults and their bounds. Every wait has a deadline and every
// buffer a cap (DESIGN §7: no response body grows memory without a cap), so none of these can be
// switched off; an invalid value (NaN, 0, negative, fractional, Infinity) is a clear error when the
// client is made, never a silently changed number.
import type { RetryInfo } from './http.js'

export interface TransportOptions {
  /** Default globalThis.fetch. */
  readonly fetch?: typeof fetch
  /** Longest wait for the response headers, and for new output inside a stream. Default 120 000. */
  readonly timeoutMs?: number
  /** Longest time one request may take from the first attempt to the end of its body, retries included. Default 900 000. */
  readonly totalTimeoutMs?: number
  /** Bytes of an error response's body read for its message; the rest is discarded. Default 65 536. */
  readonly maxErrorBodyBytes?: number
  /** Bytes of one response body (a stream or a JSON reply). Default 67 108 864. */
  readonly maxResponseBytes?: number
  /** Characters of one server-sent event (its data lines and any unterminated line). Default 16 777 216. */
  readonly maxEventChars?: number
  /** Characters of text, reasoning and tool arguments in one reply (a tool call also counts 64). Default 4 194 304. */
  readonly maxOutputChars?: number
  /** Retries after the first attempt, for 408/409/429/5xx/529 and network failures. Default 2. */
  readonly retries?: number
  /** First backoff delay; doubles per attempt, with jitter (50-100%). Default 500. */
  readonly retryBaseDelayMs?: number
  /** Longest wait before a retry. A retry-after beyond it ends the retries. Default 30 000. */
  readonly retryMaxDelayMs?: number
  /** Called before each retry wait (for a "rate limited, retrying in 2 s" line). */
  readonly onRetry?: (info: RetryInfo) => void
}

type NumericOption = {
  [K in keyof TransportOptions]-?: NonNullable<TransportOptions[K]> extends number ? K : never
}[keyof TransportOptions]

/** setTimeout fires at once for delays above 2^31 - 1 ms: that is the longest wait a timer can hold. */
const MAX_TIMER_MS = 2_147_483_647

export const TRANSPORT_DEFAULTS = {
  timeoutMs: 120_000,
  totalTimeoutMs: 900_000,
  maxErrorBodyBytes: 65_536,
  maxResponseBytes: 67_108_864,
  maxEventChars: 16_777_216,
  maxOutputChars: 4_194_304,
  retries: 2,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 30_000,
} as const satisfies Record<NumericOption, number>

/** Allowed range per option (whole numbers only). */
const RANGES = {
  timeoutMs: [1, MAX_TIMER_MS],
  totalTimeoutMs: [1, MAX_TIMER_MS],
  maxErrorBodyBytes: [1, 2 ** 30],
  maxResponseBytes: [1, 2 ** 32],
  // V8's longest string is about 2^29 characters: a larger cap could never be reached.
  maxEventChars: [1, 2 ** 28],
  maxOutputChars: [1, 2 ** 28],
  retries: [0, 100],
  retryBaseDelayMs: [0, MAX_TIMER_MS],
  retryMaxDelayMs: [0, MAX_TIMER_MS],
} as const satisfies Record<NumericOption, readonly [number, number]>

export type TransportSettings = { readonly [K in NumericOption]: number } & {
  readonly fetch: typeof fetch
  readonly onRetry?: (info: RetryInfo) => void
}

/** Defaults filled in and every value checked; throws a RangeError naming the option. */
export function resolveTransport(options: TransportOptions): TransportSettings {
  const out: Record<string, unknown> = {
    fetch: options.fetch ?? globalThis.fetch,
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  }
  for (const key of Object.keys(TRANSPORT_DEFAULTS) as NumericOption[]) {
    const value = options[key] ?? TRANSPORT_DEFAULTS[key]
    const [min, max] = RANGES[key]
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      throw new RangeError(
        `${key} must be a whole number from ${min} to ${max} (default ${TRANSPORT_DEFAULTS[key]}); got ${String(value)}.`,
      )
    out[key] = value
  }
  return out as TransportSettings
}
