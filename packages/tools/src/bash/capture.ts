import { createWriteStream, type WriteStream } from 'node:fs'

// Bounded capture of one output stream (issue 4 §4; DESIGN §7 "a 100 MB output never exists twice
// in memory"): the last `max` bytes stay in memory; once the stream outgrows `max`, every byte goes
// to a spill file as it arrives (the head it held first included), with backpressure: `write`
// returns false while the file is behind, and the caller pauses the pipe until `onDrain`.

export interface CaptureResult {
  /** The kept tail (the whole output when it fit), decoded as UTF-8. */
  readonly text: string
  /** Total bytes the stream produced. */
  readonly bytes: number
  /** Present when the output outgrew the cap: where all of it is. */
  readonly spill?: { readonly path: string; readonly bytes: number; readonly lines: number }
  /** Why the spill file is incomplete, if writing it failed (disk full, ...). */
  readonly spillError?: string
}

export class OutputCapture {
  readonly #max: number
  readonly #spillPath: () => string
  #held: Buffer[] = []
  #heldBytes = 0
  #bytes = 0
  #newlines = 0
  #lastByte = -1
  #spill: WriteStream | undefined
  #path: string | undefined
  #spillError: string | undefined
  #drainWaiters: (() => void)[] = []

  constructor(max: number, spillPath: () => string) {
    this.#max = max
    this.#spillPath = spillPath
  }

  /** Take a chunk; false means "pause the source until onDrain". */
  write(chunk: Buffer): boolean {
    if (chunk.length === 0) return true
    this.#bytes += chunk.length
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.#newlines++
    this.#lastByte = chunk[chunk.length - 1]!
    let ok = true
    if (this.#spill === undefined && this.#bytes > this.#max) this.#openSpill()
    if (this.#spill !== undefined && this.#spillError === undefined) ok = this.#spill.write(chunk)
    this.#held.push(chunk)
    this.#heldBytes += chunk.length
    while (this.#held.length > 1 && this.#heldBytes - this.#held[0]!.length >= this.#max) {
      this.#heldBytes -= this.#held.shift()!.length
    }
    return ok
  }

  onDrain(resume: () => void): void {
    if (this.#spill === undefined || this.#spillError !== undefined || !this.#spill.writableNeedDrain) {
      resume()
      return
    }
    this.#drainWaiters.push(resume)
  }

  #openSpill(): void {
    this.#path = this.#spillPath()
    const stream = createWriteStream(this.#path, { mode: 0o600 })
    stream.on('drain', () => this.#releaseWaiters())
    stream.on('error', (error) => {
      this.#spillError = error.message
      this.#releaseWaiters()
    })
    this.#spill = stream
    // Everything so far is still held (nothing is dropped before the cap is passed).
    for (const held of this.#held) stream.write(held)
  }

  #releaseWaiters(): void {
    const waiters = this.#drainWaiters
    this.#drainWaiters = []
    for (const resume of waiters) resume()
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
    const spill = this.#spill
    if (spill === undefined || this.#path === undefined) return { text, bytes: this.#bytes }
    if (this.#spillError === undefined) {
      await new Promise<void>((resolve) => {
        spill.end(() => resolve())
        spill.once('error', () => resolve())
      })
    } else {
      spill.destroy()
    }
    const lines = this.#newlines + (this.#lastByte !== 10 ? 1 : 0)
    return {
      text,
      bytes: this.#bytes,
      spill: { path: this.#path, bytes: this.#bytes, lines },
      ...(this.#spillError === undefined ? {} : { spillError: this.#spillError }),
    }
  }
}
