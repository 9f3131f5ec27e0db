// Server-sent events over a fetch body. The parser is eventsource-parser (spec-compliant line
// handling, CR/LF splits across chunks). It reports only dispatched events: comments, blank lines,
// `id:`/`retry:` and unknown fields never reach the caller, so they can never count as progress.
// Its `maxBufferSize` bounds one event (data lines plus any unterminated line): past it the read
// ends with ProviderLimitError('maxEventChars').
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser'
import { ProviderLimitError } from './errors.js'
import { TRANSPORT_DEFAULTS } from './settings.js'

export type SseMessage = EventSourceMessage

/** Parse a complete SSE text into messages (tests, bench). */
export function parseSseText(text: string): SseMessage[] {
  const out: SseMessage[] = []
  const parser = createParser({ onEvent: (e) => out.push(e) })
  parser.feed(text)
  parser.reset({ consume: true })
  return out
}

/**
 * Read SSE messages from a byte stream, one batch per network chunk (one await per chunk rather than
 * per message: the per-message async hop dominated decode time). `read` wraps each read so the caller
 * can apply its idle timeout and abort; the reader is cancelled when the consumer stops early.
 */
export async function* readSseBatches(
  body: ReadableStream<Uint8Array>,
  read: (reader: ReadableStreamDefaultReader<Uint8Array>) => Promise<ReadableStreamReadResult<Uint8Array>>,
  options: { readonly maxEventChars?: number } = {},
): AsyncGenerator<SseMessage[]> {
  const maxEventChars = options.maxEventChars ?? TRANSPORT_DEFAULTS.maxEventChars
  let pending: SseMessage[] = []
  let overflow = false
  const parser = createParser({
    onEvent: (e) => pending.push(e),
    onError: (error: ParseError) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = true
    },
    maxBufferSize: maxEventChars,
  })
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let finished = false
  try {
    for (;;) {
      const { done, value } = await read(reader)
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
      if (overflow) throw new ProviderLimitError('maxEventChars', maxEventChars)
      if (pending.length > 0) {
        const batch = pending
        pending = []
        yield batch
      }
    }
    // An event without its terminating blank line is incomplete (the connection was cut): dropped.
    parser.feed(decoder.decode())
    if (pending.length > 0) yield pending
    finished = true
  } finally {
    // Not awaited: a body whose cancel never settles must not hold the caller.
    if (!finished) reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}

/** Same as readSseBatches, one message at a time. */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  read: (reader: ReadableStreamDefaultReader<Uint8Array>) => Promise<ReadableStreamReadResult<Uint8Array>>,
  options: { readonly maxEventChars?: number } = {},
): AsyncGenerator<SseMessage> {
  for await (const batch of readSseBatches(body, read, options)) yield* batch
}
