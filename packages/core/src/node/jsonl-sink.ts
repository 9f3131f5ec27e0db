import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs'
import { stringifyJson } from '../json/stringify.js'
import type { SessionEvent, SessionSink } from '../session/log.js'

// JSONL session files: append-only, one event per line, each written with one write(2) so a
// crash can tear at most the last line. Reading skips (and reports) a torn last line; a bad
// line anywhere else is corruption and is reported with its line number, never silently lost.

export interface JsonlSink extends SessionSink {
  readonly path: string
  close(): void
}

/** Append events to `path` (created if missing; an existing log is continued, not truncated). */
export function jsonlSink(path: string, options?: { keep?: boolean }): JsonlSink {
  const fd = openSync(path, 'a')
  const kept: SessionEvent[] = []
  const keep = options?.keep ?? false
  let closed = false
  return {
    path,
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

export interface SessionLogReadResult {
  readonly events: readonly SessionEvent[]
  /** A torn final line (crash while writing): skipped, reported here. */
  readonly tornTail?: { readonly line: number; readonly text: string }
}

export class SessionLogError extends Error {
  override readonly name = 'SessionLogError'
}

/** Read a JSONL session log; hostile input gets a clear error naming the line. */
export function readSessionLog(path: string): SessionLogReadResult {
  if (!existsSync(path)) throw new SessionLogError(`session log ${path} does not exist`)
  const text = readFileSync(path, 'utf8')
  const lines = text.split('\n')
  const endsClean = text.endsWith('\n') || text === ''
  if (endsClean) lines.pop()
  const events: SessionEvent[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const last = i === lines.length - 1
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      if (last && !endsClean) return { events, tornTail: { line: i + 1, text: line } }
      throw new SessionLogError(`session log ${path} line ${i + 1} is not valid JSON; the file is corrupt`)
    }
    if (!isEvent(parsed)) {
      if (last && !endsClean) return { events, tornTail: { line: i + 1, text: line } }
      throw new SessionLogError(
        `session log ${path} line ${i + 1} is not a session event ({ seq, type, ... })`,
      )
    }
    events.push(parsed)
  }
  return { events }
}

function isEvent(value: unknown): value is SessionEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const v = value as { seq?: unknown; type?: unknown }
  return typeof v.seq === 'number' && Number.isInteger(v.seq) && typeof v.type === 'string'
}
