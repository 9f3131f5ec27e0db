// A job's output: bounded by UTF-8 bytes, oldest dropped first, the drop counted (issue 3 §3).
// A long job keeps writing; the model only ever needs the recent tail plus an honest count of what
// went missing ("[N earlier bytes dropped]"), never an unbounded buffer.

import { dropUtf8Prefix, utf8Length } from './utf8.js'

export class OutputBuffer {
  readonly #maxBytes: number
  // Chunks from oldest to newest; `#head` skips dropped ones without an O(n) shift per drop.
  #chunks: string[] = []
  #sizes: number[] = []
  #head = 0
  #bytes = 0
  #dropped = 0

  constructor(maxBytes: number) {
    if (!Number.isInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxOutputBytes must be a non-negative integer, got ${maxBytes}`)
    }
    this.#maxBytes = maxBytes
  }

  /** Bytes currently kept. */
  get bytes(): number {
    return this.#bytes
  }

  /** Bytes dropped from the start so far. */
  get droppedBytes(): number {
    return this.#dropped
  }

  write(chunk: string): void {
    if (chunk.length === 0) return
    let text = chunk
    let size = utf8Length(text)
    if (size > this.#maxBytes) {
      // The chunk alone overflows: everything older goes, and so does the chunk's own start.
      this.#dropAll()
      const cut = dropUtf8Prefix(text, size - this.#maxBytes)
      this.#dropped += cut.dropped
      text = cut.rest
      size -= cut.dropped
      if (size === 0) return
    }
    this.#chunks.push(text)
    this.#sizes.push(size)
    this.#bytes += size
    this.#trim()
  }

  /** The kept output, oldest first. */
  text(): string {
    if (this.#head > 0 || this.#chunks.length > 1) this.#compact()
    return this.#chunks[0] ?? ''
  }

  #trim(): void {
    while (this.#bytes > this.#maxBytes) {
      const over = this.#bytes - this.#maxBytes
      const size = this.#sizes[this.#head]!
      if (size <= over) {
        this.#dropped += size
        this.#bytes -= size
        this.#chunks[this.#head] = ''
        this.#head += 1
        continue
      }
      // Only part of the oldest chunk has to go.
      const cut = dropUtf8Prefix(this.#chunks[this.#head]!, over)
      this.#chunks[this.#head] = cut.rest
      this.#sizes[this.#head] = size - cut.dropped
      this.#dropped += cut.dropped
      this.#bytes -= cut.dropped
    }
    if (this.#head > 1024 && this.#head * 2 > this.#chunks.length) this.#compact()
  }

  #dropAll(): void {
    this.#dropped += this.#bytes
    this.#bytes = 0
    this.#chunks = []
    this.#sizes = []
    this.#head = 0
  }

  #compact(): void {
    const joined = this.#chunks.slice(this.#head).join('')
    this.#chunks = joined.length > 0 ? [joined] : []
    this.#sizes = joined.length > 0 ? [this.#bytes] : []
    this.#head = 0
  }
}
