// createModelClient: a codec + the HTTP transport, for one provider, model and endpoint.
import { anthropicCodec } from './codecs/anthropic.js'
import type {
  DecodedResponse,
  EncodedRequest,
  SchemaFallback,
  SchemaOmission,
  WireCodec,
} from './codecs/codec.js'
import { openaiChatCodec } from './codecs/openai-chat.js'
import { openaiResponsesCodec } from './codecs/openai-responses.js'
import type { ModelClient, ModelRequest, ModelStreamEvent, Provider } from './model.js'
import {
  ProviderAbortedError,
  ProviderError,
  ProviderProtocolError,
  ProviderStreamError,
} from './transport/errors.js'
import { type Connection, postJson, providerMessage } from './transport/http.js'
import { OutputBudget } from './transport/output-budget.js'
import { resolveTransport, type TransportOptions } from './transport/settings.js'
import { readSseBatches } from './transport/sse.js'

export const CODECS = {
  anthropic: anthropicCodec,
  'openai-chat': openaiChatCodec,
  'openai-responses': openaiResponsesCodec,
} as const satisfies Record<Provider, WireCodec>

export interface ModelClientOptions extends TransportOptions {
  readonly provider: Provider
  /** e.g. http://127.0.0.1:8080/v1 for llama.cpp server; defaults to the vendor's API. */
  readonly baseUrl?: string
  readonly apiKey?: string
  readonly model: string
  /** Default output token limit when the request gives none. Default 8192. */
  readonly maxTokens?: number
  /** Send tools with the strict dialect of the family (per-tool fallback). Default false. */
  readonly strictTools?: boolean
  /** Extra headers (gateways, organisation ids). */
  readonly headers?: Readonly<Record<string, string>>
  /** Told about each tool that could not be sent strict (keyword and path). */
  readonly onSchemaFallback?: (fallback: SchemaFallback) => void
  /** Told about each tool left out of a request because its schema cannot be sent at all. */
  readonly onSchemaOmission?: (omission: SchemaOmission) => void
  /** Anthropic: the API's tool search for tools marked deferLoading (see EncodeOptions). */
  readonly nativeToolSearch?: 'bm25' | 'regex'
}

export interface HttpModelClient extends ModelClient {
  readonly provider: Provider
  /** One non-streamed request, decoded. */
  complete(request: ModelRequest, signal?: AbortSignal): Promise<DecodedResponse>
}

export function createModelClient(options: ModelClientOptions): HttpModelClient {
  const codec: WireCodec = CODECS[options.provider]
  const url = `${(options.baseUrl ?? codec.defaultBaseUrl).replace(/\/+$/, '')}${codec.path}`
  const headers = { ...codec.headers(options.apiKey), ...options.headers }
  const maxTokens = options.maxTokens ?? 8192
  // Invalid limits fail here, when the client is made, not on the first request.
  const limits = resolveTransport(options)
  // A request's own headers (a beta it uses) join a caller's list of the same header.
  const withRequest = (encoded: EncodedRequest): Record<string, string> => {
    const out: Record<string, string> = { ...headers }
    for (const [k, v] of Object.entries(encoded.headers ?? {})) {
      const key = Object.keys(out).find((h) => h.toLowerCase() === k.toLowerCase()) ?? k
      out[key] = out[key] === undefined ? v : `${out[key]},${v}`
    }
    return out
  }

  const encode = (request: ModelRequest, stream: boolean) => {
    const encoded = codec.encodeRequest(request, {
      model: options.model,
      maxTokens,
      stream,
      ...(options.strictTools !== undefined ? { strictTools: options.strictTools } : {}),
      ...(options.nativeToolSearch !== undefined ? { nativeToolSearch: options.nativeToolSearch } : {}),
    })
    for (const f of encoded.schemaFallbacks) options.onSchemaFallback?.(f)
    for (const o of encoded.schemaOmissions) options.onSchemaOmission?.(o)
    return encoded
  }

  const send = async (request: ModelRequest, stream: boolean, signal: AbortSignal | undefined) => {
    const encoded = encode(request, stream)
    const connection = await postJson(
      options.provider,
      url,
      withRequest(encoded),
      encoded.body,
      options,
      signal,
    )
    return { encoded, connection }
  }

  return {
    provider: options.provider,
    model: options.model,
    async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelStreamEvent> {
      const { encoded, connection } = await send(request, true, signal)
      try {
        const body = connection.response.body
        if (!body) throw new ProviderStreamError('the response has no body; the server does not stream.')
        if (isJson(connection.response)) {
          // A server (or a proxy in front of it) that ignores `stream: true` answers with one JSON
          // body: no SSE parser would ever see an event. Say so instead of "the stream ended early".
          const text = await readText(connection, limits.maxErrorBodyBytes)
          throw new ProviderProtocolError(
            `${options.provider} answered the streaming request at ${url} with JSON, not an event stream${jsonMessage(text)}. The server does not stream, or the base URL points at something else: check the base URL.`,
          )
        }
        const decoder = codec.createStreamDecoder(encoded.strictTools)
        const budget = new OutputBudget(limits.maxOutputChars)
        const batches = readSseBatches(body, connection.read, { maxEventChars: limits.maxEventChars })
        for await (const batch of batches) {
          for (const message of batch) {
            if (signal?.aborted) throw new ProviderAbortedError(signal.reason)
            const events = decoder.push(message)
            for (const event of events) {
              // Only output is progress: keep-alives decode to nothing, and an empty delta is not
              // output either (it is dropped), so neither can hold the idle timer off.
              if (!budget.charge(event)) continue
              connection.progress()
              yield event
            }
            if (decoder.finished) return
          }
        }
        if (signal?.aborted) throw new ProviderAbortedError(signal.reason)
        yield* decoder.end()
      } finally {
        connection.close()
      }
    },
    async complete(request: ModelRequest, signal?: AbortSignal): Promise<DecodedResponse> {
      const { connection } = await send(request, false, signal)
      let text: string
      try {
        text = await readText(connection)
      } finally {
        connection.close()
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        throw new ProviderError(
          'decode',
          `${options.provider} answered with a body that is not JSON: ${text.slice(0, 200)}`,
        )
      }
      const decoded = codec.decodeResponse(json)
      const budget = new OutputBudget(limits.maxOutputChars)
      for (const part of decoded.message.parts) budget.chargePart(part)
      return decoded
    },
  }
}

/**
 * A whole (non-streamed) body under the connection's caps; every chunk of it is progress. With
 * `maxBytes`, reading stops there (the rest is never read: the caller only quotes the start).
 */
async function readText(connection: Connection, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
  const body = connection.response.body
  if (!body) return ''
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for (;;) {
    const { done, value } = await connection.read(reader)
    if (done) return text + decoder.decode()
    if (value.byteLength > 0) connection.progress()
    size += value.byteLength
    text += decoder.decode(value, { stream: true })
    if (size >= maxBytes) {
      reader.cancel().catch(() => {})
      return text + decoder.decode()
    }
  }
}

function isJson(response: Response): boolean {
  const type = response.headers.get('content-type') ?? ''
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trim())
}

/** ": <the provider's message>" when the JSON is an error object, else the start of the body. */
function jsonMessage(text: string): string {
  const message = providerMessage(text)
  return message === '' ? '' : ` (${message.length > 200 ? `${message.slice(0, 199)}…` : message})`
}
