// Errors of the transport and the codecs. Each message says what happened and what to do next.

export type ProviderErrorKind = 'http' | 'network' | 'timeout' | 'aborted' | 'stream' | 'decode'

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
    /** The provider's own error message, when the body had one. */
    readonly providerMessage: string,
    readonly attempts: number,
  ) {
    super(
      'http',
      `${provider} returned HTTP ${status}${providerMessage ? `: ${providerMessage}` : ''}. ${hint(status, attempts)}`,
      status,
    )
  }
}

function hint(status: number, attempts: number): string {
  const tries = attempts > 1 ? ` (gave up after ${attempts} attempts)` : ''
  if (status === 401 || status === 403)
    return 'Check the API key (ANTHROPIC_API_KEY / OPENAI_API_KEY) and its permissions.'
  if (status === 404)
    return 'Check the base URL (it should end before /messages or /chat/completions) and the model name.'
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

export class ProviderTimeoutError extends ProviderError {
  override readonly name = 'ProviderTimeoutError'
  constructor(
    readonly timeoutMs: number,
    phase: 'response' | 'stream',
  ) {
    super(
      'timeout',
      phase === 'response'
        ? `no response within ${timeoutMs} ms. The server may be overloaded; try again or raise timeoutMs.`
        : `the stream stalled for ${timeoutMs} ms. The server may be overloaded; try again or raise timeoutMs.`,
    )
  }
}

export class ProviderAbortedError extends ProviderError {
  override readonly name = 'ProviderAbortedError'
  constructor(cause?: unknown) {
    super('aborted', 'the request was aborted by the caller.', undefined, { cause })
  }
}

/** The stream broke or carried an error event: the reply is incomplete and must not be used. */
export class ProviderStreamError extends ProviderError {
  override readonly name = 'ProviderStreamError'
  constructor(message: string, status?: number) {
    super('stream', message, status)
  }
}
