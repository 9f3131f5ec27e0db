// Errors of the transport and the codecs. Each message says what happened and what to do next.
import { assertNever } from '@toolgate/core'

export type ProviderErrorKind =
  | 'http'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'stream'
  | 'decode'
  | 'limit'
  /** The server does not speak the protocol asked for (JSON where an event stream was requested). */
  | 'protocol'

export class ProviderError extends Error {
  override readonly name: string = 'ProviderError'
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    /** HTTP status when there was a response. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The server answered with a non-success status (after the retries allowed for 429/5xx). */
export class ProviderHttpError extends ProviderError {
  override readonly name = 'ProviderHttpError'
  constructor(
    readonly provider: string,
    override readonly status: number,
    /** The provider's own error message, when the body had one (at most 300 characters). */
    readonly providerMessage: string,
    readonly attempts: number,
    /** The error body was not read to its end: which limit stopped the reading. */
    readonly bodyCut?: ErrorBodyCut,
  ) {
    super(
      'http',
      `${provider} returned HTTP ${status}${providerMessage ? `: ${providerMessage}` : ''}${bodyCut ? ` (${cutNote(bodyCut)})` : ''}. ${hint(provider, status, attempts)}`,
      status,
    )
  }
}

/** Why an error body was read only in part: its size, or the time it took. */
export type ErrorBodyCut =
  | { readonly limit: 'maxErrorBodyBytes'; readonly bytes: number }
  | { readonly limit: 'timeoutMs'; readonly ms: number }

function cutNote(cut: ErrorBodyCut): string {
  switch (cut.limit) {
    case 'maxErrorBodyBytes':
      return `error body cut at ${cut.bytes} bytes, maxErrorBodyBytes`
    case 'timeoutMs':
      return `error body cut after ${cut.ms} ms, timeoutMs`
    default:
      return assertNever(cut)
  }
}

function hint(provider: string, status: number, attempts: number): string {
  const tries = attempts > 1 ? ` (gave up after ${attempts} attempts)` : ''
  // 0: a browser fetch's opaque redirect with `redirect: 'manual'`
  if (status === 0 || (status >= 300 && status < 400))
    return 'The server answered with a redirect, which is not followed: it would send the API key and the conversation to another address. Set the base URL to the address that answers.'
  if (status === 401 || status === 403)
    return 'Check the API key (ANTHROPIC_API_KEY / OPENAI_API_KEY) and its permissions.'
  if (status === 404)
    return provider === 'anthropic'
      ? 'Check the base URL (the host root, e.g. https://api.anthropic.com, without /v1: requests go to <base>/v1/messages) and the model name.'
      : 'Check the base URL (it should end before /chat/completions or /responses, e.g. http://127.0.0.1:8080/v1) and the model name.'
  if (status === 429) return `Rate limited${tries}; wait and try again, or lower the request rate.`
  if (status >= 500) return `The provider failed${tries}; try again later.`
  if (status === 400 || status === 422) return 'The request was rejected; the message above names the field.'
  return `Unexpected status${tries}.`
}

export class ProviderNetworkError extends ProviderError {
  override readonly name = 'ProviderNetworkError'
  constructor(url: string, attempts: number, cause: unknown) {
    const why =
      cause instanceof Error
        ? cause.cause instanceof Error
          ? cause.cause.message
          : cause.message
        : String(cause)
    super(
      'network',
      `could not reach ${url} (${why}) after ${attempts} attempt(s). Check that the server is running and the base URL is right.`,
      undefined,
      { cause },
    )
  }
}

/** Which wait ran out: the response headers, new output inside a stream, or the whole request. */
export type TimeoutPhase = 'response' | 'stream' | 'total'

const TIMEOUT_TEXT = {
  response: (ms) =>
    `no response within ${ms} ms (timeoutMs). The server may be overloaded; try again or raise timeoutMs.`,
  stream: (ms) =>
    `no new output for ${ms} ms (timeoutMs; keep-alive comments and pings do not count); the reply is incomplete. The server may be overloaded; try again or raise timeoutMs.`,
  total: (ms) =>
    `the request took longer than ${ms} ms in total (totalTimeoutMs, retries included); the reply is incomplete. Try again, ask for a shorter reply (lower maxTokens), or raise totalTimeoutMs.`,
} as const satisfies Record<TimeoutPhase, (ms: number) => string>

export class ProviderTimeoutError extends ProviderError {
  override readonly name = 'ProviderTimeoutError'
  constructor(
    readonly timeoutMs: number,
    readonly phase: TimeoutPhase,
  ) {
    super('timeout', TIMEOUT_TEXT[phase](timeoutMs))
  }
}

/** A cap on what one response may bring (DESIGN §7); each names itself and how to raise it. */
export type ResponseLimit = 'maxResponseBytes' | 'maxEventChars' | 'maxOutputChars'

const LIMIT_TEXT = {
  maxResponseBytes: (n) =>
    `the response body passed ${n} bytes (maxResponseBytes); the reply is incomplete and was not used. If the server is sound and its replies really are that large, raise maxResponseBytes.`,
  maxEventChars: (n) =>
    `one server-sent event passed ${n} characters (maxEventChars); the reply is incomplete and was not used. If the server is sound and its events really are that large, raise maxEventChars.`,
  maxOutputChars: (n) =>
    `the reply passed ${n} characters of text, reasoning and tool arguments (maxOutputChars); it was cut off and must not be used. Ask for a shorter reply (lower maxTokens), or raise maxOutputChars.`,
} as const satisfies Record<ResponseLimit, (n: number) => string>

export class ProviderLimitError extends ProviderError {
  override readonly name = 'ProviderLimitError'
  constructor(
    readonly limit: ResponseLimit,
    readonly max: number,
  ) {
    super('limit', LIMIT_TEXT[limit](max))
  }
}

export class ProviderAbortedError extends ProviderError {
  override readonly name = 'ProviderAbortedError'
  constructor(cause?: unknown) {
    super('aborted', 'the request was aborted by the caller.', undefined, { cause })
  }
}

/** The server answered in another protocol than the one asked for (JSON to a streaming request). */
export class ProviderProtocolError extends ProviderError {
  override readonly name = 'ProviderProtocolError'
  constructor(message: string) {
    super('protocol', message)
  }
}

/** The stream broke or carried an error event: the reply is incomplete and must not be used. */
export class ProviderStreamError extends ProviderError {
  override readonly name = 'ProviderStreamError'
  constructor(message: string, status?: number) {
    super('stream', message, status)
  }
}
