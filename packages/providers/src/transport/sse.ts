// Server-sent events over a fetch body, with an idle timeout and abort. The parser is
// eventsource-parser (spec-compliant line handling, CR/LF splits across chunks).
import { createParser, type EventSourceMessage } from 'eventsource-parser'

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
): AsyncGenerator<SseMessage[]> {
  let pending: SseMessage[] = []
  const parser = createParser({ onEvent: (e) => pending.push(e) })
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let finished = false
  try {
    for (;;) {
      const { done, value } = await read(reader)
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
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
    if (!finished) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}

/** Same as readSseBatches, one message at a time. */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  read: (reader: ReadableStreamDefaultReader<Uint8Array>) => Promise<ReadableStreamReadResult<Uint8Array>>,
): AsyncGenerator<SseMessage> {
  for await (const batch of readSseBatches(body, read)) yield* batch
}
