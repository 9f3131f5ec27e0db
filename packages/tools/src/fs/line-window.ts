import { createHash } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'
import { StringDecoder } from 'node:string_decoder'

// Streams a text file once: counts its lines, keeps only the requested window (each line cut to
// `maxLineChars`) and hashes every byte for the read-before-edit stamp. Memory is bounded by the
// window, never by the file (a 2 GB log or a 100 MB one-line bundle reads in constant memory).
// Time is bounded too (issue 13, red team): it reads only the bytes the file held when it was
// opened (a file another program keeps appending to never reached its end) and stops when the
// call's signal aborts (a sparse terabyte made by `truncate` read on for hours after an abort).

export interface LineWindow {
  /** Lines start..start+lines.length-1 (1-based), without their line terminators. */
  readonly lines: string[]
  /** 1-based numbers of window lines that were cut, with each line's full length in characters. */
  readonly truncated: { line: number; chars: number }[]
  readonly totalLines: number
  readonly sha256: string
}

const CHUNK = 64 * 1024

export interface ReadBound {
  /** read at most this many bytes from the start: the size the opened file had */
  readonly bytes: number
  /** checked before each chunk; its reason is thrown */
  readonly signal: AbortSignal
}

export async function readLineWindow(
  handle: FileHandle,
  start: number,
  limit: number,
  maxLineChars: number,
  bound: ReadBound,
): Promise<LineWindow> {
  const hash = createHash('sha256')
  const decoder = new StringDecoder('utf8')
  const end = start + limit - 1
  const lines: string[] = []
  const truncated: { line: number; chars: number }[] = []
  let lineNo = 1
  let current = ''
  let currentChars = 0
  let sawAny = false
  let lastWasNewline = false

  const inWindow = () => lineNo >= start && lineNo <= end
  let lastChar = ''
  const take = (piece: string) => {
    if (piece === '') return
    currentChars += piece.length
    lastChar = piece[piece.length - 1]!
    if (inWindow() && current.length <= maxLineChars)
      current += piece.slice(0, maxLineChars + 1 - current.length)
  }
  const finishLine = () => {
    if (inWindow()) {
      let text = current
      let chars = currentChars
      // CRLF files: the \r belongs to the terminator, not to the line.
      if (lastChar === '\r') {
        chars--
        if (text.length === chars + 1) text = text.slice(0, -1)
      }
      if (chars > maxLineChars) {
        truncated.push({ line: lineNo, chars })
        text = text.slice(0, maxLineChars)
      }
      lines.push(text)
    }
    lineNo++
    current = ''
    currentChars = 0
    lastChar = ''
  }
  const feed = (text: string) => {
    let from = 0
    for (;;) {
      const nl = text.indexOf('\n', from)
      if (nl === -1) {
        if (from < text.length) take(text.slice(from))
        break
      }
      take(text.slice(from, nl))
      finishLine()
      from = nl + 1
    }
  }

  const buffer = Buffer.allocUnsafe(CHUNK)
  for (let position = 0; position < bound.bytes; ) {
    bound.signal.throwIfAborted()
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, bound.bytes - position), position)
    if (bytesRead === 0) break
    position += bytesRead
    const chunk = buffer.subarray(0, bytesRead)
    hash.update(chunk)
    sawAny = true
    lastWasNewline = chunk[bytesRead - 1] === 0x0a
    feed(decoder.write(chunk))
  }
  feed(decoder.end())
  // A last line without a terminator still counts; a trailing newline does not start a new line.
  if (sawAny && !lastWasNewline) finishLine()
  return { lines, truncated, totalLines: lineNo - 1, sha256: hash.digest('hex') }
}
