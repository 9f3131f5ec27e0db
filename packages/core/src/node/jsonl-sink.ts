import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs'
import { stringifyJson } from '../json/stringify.js'
import type { SessionEvent, SessionSink } from '../session/log.js'

// JSONL session files: append-only, one event per line, each written with one write(2) so a
// crash can tear at most the last line. A log is continued, never truncated: when its last line
// is torn (no final newline), a newline is appended first, so the torn text stays one bad line
// that readers skip and report, and the first new event starts a line of its own. Without it the
// new event would be glued to the torn text and both would be lost.

export interface JsonlSink extends SessionSink {
  readonly path: string
  /** The file ended in a torn line when it was opened; a newline was appended to close it. */
  readonly repairedTornTail: boolean
  close(): void
}

/** Append events to `path` (created if missing; an existing log is continued, not truncated). */
export function jsonlSink(path: string, options?: { keep?: boolean }): JsonlSink {
  // Read-write append (reads of the last byte are positional; writes always go to the end).
  // O_NONBLOCK: opening a FIFO must not wait for a reader; a regular file is unaffected.
  const fd = openSync(
    path,
    constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK,
    0o644,
  )
  let repairedTornTail = false
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`session log ${path} is not a regular file`)
    repairedTornTail = terminateTornTail(fd)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  const kept: SessionEvent[] = []
  const keep = options?.keep ?? false
  let closed = false
  return {
    path,
    repairedTornTail,
    write(event) {
      if (closed) throw new Error(`session log ${path} is closed`)
      writeSync(fd, `${stringifyJson(event)}\n`)
      if (keep) kept.push(event)
    },
    events: () => kept,
    close() {
      if (closed) return
      closed = true
      closeSync(fd)
    },
  }
}

/** If the file's last byte is not a newline, append one. True when it did. */
function terminateTornTail(fd: number): boolean {
  const { size } = fstatSync(fd)
  if (size === 0) return false
  const last = Buffer.alloc(1)
  readSync(fd, last, 0, 1, size - 1)
  if (last[0] === 0x0a) return false
  writeSync(fd, '\n')
  return true
}
