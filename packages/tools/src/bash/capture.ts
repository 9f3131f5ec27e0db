import { rm } from 'node:fs/promises'
import { SpillFile } from './spill.js'

// Bounded capture of one output stream (issue 4 §4; DESIGN §7 "a 100 MB output never exists twice
// in memory"): the last `max` bytes stay in memory; once the stream outgrows `max`, its bytes go to
// a spill file as they arrive (the head it held first included), with backpressure: `write`
// returns false while the file is behind, and the caller pauses the pipe until `onDrain`. The spill
// file itself is capped (issue 11 §7): it keeps the first and the last `maxSpill / 2` bytes.

export interface CaptureResult {
  /** The kept tail (the whole output when it fit), decoded as UTF-8. */
  readonly text: string
  /** Total bytes the stream produced. */
  readonly bytes: number
  /** Total lines the stream produced (a last line without a newline counts). */
  readonly lines: number
  /** Present when the output outgrew the in-memory cap: the file with its head and tail. */
  readonly spill?: {
    readonly path: string
    /** Bytes and lines in the file. */
    readonly bytes: number
    readonly lines: number
    /** Output bytes dropped between the head and the tail kept in the file. */
    readonly omittedBytes: number
  }
  /** Why the spill file is incomplete, if writing it failed (disk full, ...). */
  readonly spillError?: string
}

export class OutputCapture {
  readonly #max: number
  readonly #maxSpill: number
  readonly #spillPath: () => string
  readonly #publish: ((file: string) => Promise<string>) | undefined
  #held: Buffer[] = []
  #heldBytes = 0
  #bytes = 0
  #newlines = 0
  #lastByte = -1
  #spill: SpillFile | undefined

  /** `publish`: moves the finished spill file where the model can read it (ToolsEnv.publishSpill). */
  constructor(
    max: number,
    spillPath: () => string,
    maxSpill = Number.POSITIVE_INFINITY,
    publish?: (file: string) => Promise<string>,
  ) {
    this.#max = max
    this.#maxSpill = maxSpill
    this.#spillPath = spillPath
    this.#publish = publish
  }

  /** Take a chunk; false means "pause the source until onDrain". */
  write(chunk: Buffer): boolean {
    if (chunk.length === 0) return true
    this.#bytes += chunk.length
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.#newlines++
    this.#lastByte = chunk[chunk.length - 1]!
    let ok = true
    if (this.#spill === undefined && this.#bytes > this.#max) {
      const half = Math.max(1, Math.floor(this.#maxSpill / 2))
      this.#spill = new SpillFile(this.#spillPath(), { head: half, tail: half })
      // Everything so far is still held (nothing is dropped before the cap is passed).
      for (const held of this.#held) this.#spill.write(held)
    }
    if (this.#spill !== undefined) ok = this.#spill.write(chunk)
    this.#held.push(chunk)
    this.#heldBytes += chunk.length
    while (this.#held.length > 1 && this.#heldBytes - this.#held[0]!.length >= this.#max) {
      this.#heldBytes -= this.#held.shift()!.length
    }
    return ok
  }

  onDrain(resume: () => void): void {
    if (this.#spill === undefined) resume()
    else this.#spill.onDrain(resume)
  }

  async finish(): Promise<CaptureResult> {
    let buffer = Buffer.concat(this.#held)
    this.#held = []
    if (buffer.length > this.#max) buffer = buffer.subarray(buffer.length - this.#max)
    if (this.#spill !== undefined) {
      // A cut tail may start inside a UTF-8 sequence: drop the continuation bytes.
      let start = 0
      while (start < 3 && start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++
      buffer = buffer.subarray(start)
    }
    const text = buffer.toString('utf8')
    const lines = this.#newlines + (this.#bytes > 0 && this.#lastByte !== 10 ? 1 : 0)
    if (this.#spill === undefined) return { text, bytes: this.#bytes, lines }
    const spill = await this.#spill.finish(this.#lastByte === 10)
    let path = spill.path
    if (this.#publish !== undefined) {
      try {
        path = await this.#publish(spill.path)
        await rm(spill.path, { force: true })
      } catch {
        // It stays in the session directory (readable after an approval); see ToolsEnv.publishSpill.
      }
    }
    return {
      text,
      bytes: this.#bytes,
      lines,
      spill: { path, bytes: spill.bytes, lines: spill.lines, omittedBytes: spill.omittedBytes },
      ...(spill.error === undefined ? {} : { spillError: spill.error }),
    }
  }
}
