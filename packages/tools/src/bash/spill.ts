import { type FileHandle, open, rm } from 'node:fs/promises'

// A capped spill file (issue 11 §7: "one call cannot fill the disk"). It keeps the first `head`
// bytes of a stream and its last `tail` bytes; what lies between is dropped and a marker line says
// how much. The tail is kept in two alternating segment files of `tail` bytes each (the older one
// is truncated when the newer one fills up), so the disk holds at most head + 2 x tail bytes while
// the command runs and head + tail (+ the marker) once it ended. Writes are queued and written in
// order; `write` returns false while more than HIGH_WATER bytes wait (the caller pauses its pipe).

const HIGH_WATER = 1024 * 1024

export interface SpillResult {
  readonly path: string
  /** Bytes in the file (head, marker, tail). */
  readonly bytes: number
  /** Lines in the file. */
  readonly lines: number
  /** Output bytes dropped between head and tail (0 when the file holds everything). */
  readonly omittedBytes: number
  /** Why the file is incomplete, if writing it failed (disk full, ...). */
  readonly error?: string
}

export class SpillFile {
  readonly #path: string
  readonly #head: number
  readonly #tail: number
  #main: Promise<FileHandle>
  #segments: [FileHandle | undefined, FileHandle | undefined] = [undefined, undefined]
  #segmentBytes: [number, number] = [0, 0]
  #current: 0 | 1 = 0
  #headBytes = 0
  #total = 0
  #headNewlines = 0
  #queue: Buffer[] = []
  #queued = 0
  #writing: Promise<void> | undefined
  #error: string | undefined
  #drainWaiters: (() => void)[] = []

  constructor(path: string, limits: { readonly head: number; readonly tail: number }) {
    this.#path = path
    this.#head = limits.head
    this.#tail = limits.tail
    this.#main = open(path, 'w', 0o600)
    this.#main.catch((error: Error) => {
      this.#error = error.message
    })
  }

  write(chunk: Buffer): boolean {
    if (this.#error !== undefined) return true
    this.#queue.push(chunk)
    this.#queued += chunk.length
    this.#writing ??= this.#flush()
    return this.#queued <= HIGH_WATER
  }

  onDrain(resume: () => void): void {
    if (this.#error !== undefined || this.#queued <= HIGH_WATER) resume()
    else this.#drainWaiters.push(resume)
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0 && this.#error === undefined) {
        const chunk = this.#queue.shift()!
        await this.#store(chunk)
        this.#queued -= chunk.length
        if (this.#queued <= HIGH_WATER) this.#release()
      }
    } catch (error) {
      this.#error = (error as Error).message
    } finally {
      this.#queue = []
      this.#queued = 0
      this.#writing = undefined
      this.#release()
    }
  }

  async #store(chunk: Buffer): Promise<void> {
    let rest = chunk
    this.#total += chunk.length
    if (this.#headBytes < this.#head) {
      const part = rest.subarray(0, this.#head - this.#headBytes)
      await (await this.#main).write(part)
      this.#headBytes += part.length
      this.#headNewlines += countNewlines(part)
      rest = rest.subarray(part.length)
    }
    while (rest.length > 0) {
      if (this.#segmentBytes[this.#current] >= this.#tail) {
        this.#current = other(this.#current)
        await this.#segments[this.#current]?.close()
        this.#segments[this.#current] = undefined
        this.#segmentBytes[this.#current] = 0
      }
      const i = this.#current
      let segment = this.#segments[i]
      if (segment === undefined) {
        segment = await open(`${this.#path}.tail${i}`, 'w+', 0o600)
        this.#segments[i] = segment
      }
      const part = rest.subarray(0, this.#tail - this.#segmentBytes[i])
      await segment.write(part)
      this.#segmentBytes[i] += part.length
      rest = rest.subarray(part.length)
    }
  }

  #release(): void {
    const waiters = this.#drainWaiters
    this.#drainWaiters = []
    for (const resume of waiters) resume()
  }

  /** Wait for the queue, join head and tail, remove the segments. */
  async finish(endsWithNewline: boolean): Promise<SpillResult> {
    while (this.#writing !== undefined) await this.#writing
    let main: FileHandle | undefined
    let bytes = this.#headBytes
    let newlines = this.#headNewlines
    const kept = this.#segmentBytes[0] + this.#segmentBytes[1]
    const tailBytes = Math.min(kept, this.#tail)
    const omittedBytes = this.#total - this.#headBytes - tailBytes
    try {
      main = await this.#main
      if (this.#error === undefined && kept > 0) {
        if (omittedBytes > 0) {
          const marker = Buffer.from(
            `\n[toolgate: ${omittedBytes} bytes of output omitted here; this file keeps the first ${this.#headBytes} and the last ${tailBytes} bytes]\n`,
          )
          await main.write(marker)
          bytes += marker.length
          newlines += 2
        }
        // Older segment first (only its last bytes, so that tail + current = `tail` bytes).
        const order = [other(this.#current), this.#current] as const
        let skip = kept - tailBytes
        for (const i of order) {
          const segment = this.#segments[i]
          const size = this.#segmentBytes[i]
          if (segment === undefined || size === 0) continue
          const from = Math.min(skip, size)
          skip -= from
          const buffer = Buffer.allocUnsafe(64 * 1024)
          for (let pos = from; pos < size; ) {
            const { bytesRead } = await segment.read(buffer, 0, Math.min(buffer.length, size - pos), pos)
            if (bytesRead === 0) break
            const part = buffer.subarray(0, bytesRead)
            await main.write(part)
            bytes += bytesRead
            newlines += countNewlines(part)
            pos += bytesRead
          }
        }
      }
    } catch (error) {
      this.#error ??= (error as Error).message
    } finally {
      await main?.close().catch(() => undefined)
      for (const [i, segment] of this.#segments.entries()) {
        await segment?.close().catch(() => undefined)
        await rm(`${this.#path}.tail${i}`, { force: true })
      }
    }
    const lines = newlines + (bytes > 0 && !endsWithNewline ? 1 : 0)
    return {
      path: this.#path,
      bytes,
      lines,
      omittedBytes: Math.max(0, omittedBytes),
      ...(this.#error === undefined ? {} : { error: this.#error }),
    }
  }
}

function other(i: 0 | 1): 0 | 1 {
  return i === 0 ? 1 : 0
}

function countNewlines(buffer: Buffer): number {
  let n = 0
  for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) n++
  return n
}
