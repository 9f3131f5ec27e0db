import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { assertNever } from '../errors/assert-never.js'
import type { SessionEvent } from '../session/log.js'

// Reading a JSONL session log as a stream: line by line, from a fixed-size read buffer, so a log of
// any size is read in constant memory (a log read into one string failed past V8's 512 MiB string
// limit). Each line is bounded (`maxLineBytes`); a line that is not a session event is skipped and
// reported with its line number, never fatal: a crash leaves one such line per torn write, and the
// sink closes it with a newline before a new session is appended. What is fatal: a missing or
// unreadable file, and a file where bad lines outnumber `maxBadLines` (not a session log at all).

export type SessionLogIssueKind = 'torn-tail' | 'not-json' | 'not-an-event' | 'too-long'

/** A line that was skipped, and why. */
export interface SessionLogIssue {
  /** 1-based line number. */
  readonly line: number
  readonly kind: SessionLogIssueKind
  /** The start of the line (at most 200 characters; none for a line over the cap). */
  readonly text: string
  /** One sentence for a person: which line, what is wrong with it, that it was skipped. */
  readonly message: string
}

export type SessionLogEntry =
  | { readonly kind: 'event'; readonly line: number; readonly event: SessionEvent }
  | { readonly kind: 'issue'; readonly issue: SessionLogIssue }

export interface ReadSessionLogOptions {
  /** Longest line read; a longer one is skipped (and reported) without being held. Default 64 MiB. */
  readonly maxLineBytes?: number
  /** More bad lines than this and the file is not a session log: SessionLogError. Default 1000. */
  readonly maxBadLines?: number
  /** Stops the reading (the generator throws the signal's reason). */
  readonly signal?: AbortSignal
}

export const SESSION_LOG_READ_DEFAULTS = {
  maxLineBytes: 64 * 2 ** 20,
  maxBadLines: 1000,
} as const satisfies Required<Omit<ReadSessionLogOptions, 'signal'>>

export class SessionLogError extends Error {
  override readonly name = 'SessionLogError'
}

const NEWLINE = 0x0a
const PREVIEW = 200

/**
 * The log's events and skipped lines, in file order, read as a stream. Throws SessionLogError for
 * a missing or unreadable file and for a file that is not a session log.
 */
export async function* readSessionEntries(
  path: string,
  options: ReadSessionLogOptions = {},
): AsyncGenerator<SessionLogEntry> {
  const maxLineBytes = options.maxLineBytes ?? SESSION_LOG_READ_DEFAULTS.maxLineBytes
  const maxBadLines = options.maxBadLines ?? SESSION_LOG_READ_DEFAULTS.maxBadLines
  for (const [name, value] of [
    ['maxLineBytes', maxLineBytes],
    ['maxBadLines', maxBadLines],
  ] as const)
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`${name} must be a whole number of at least 1; got ${String(value)}.`)
  const handle = await openLog(path)

  let bad = 0
  const issue = (line: number, kind: SessionLogIssueKind, text: string): SessionLogEntry => {
    bad++
    if (bad > maxBadLines)
      throw new SessionLogError(
        `session log ${path}: more than ${maxBadLines} lines are not session events; it is not a session log, or it is badly damaged.`,
      )
    return { kind: 'issue', issue: { line, kind, text, message: describeIssue(line, kind, maxLineBytes) } }
  }
  const entry = (line: number, bytes: Buffer, terminated: boolean): SessionLogEntry | undefined => {
    if (bytes.length === 0) return undefined // an empty line carries nothing
    const text = bytes.toString('utf8')
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return issue(line, terminated ? 'not-json' : 'torn-tail', text.slice(0, PREVIEW))
    }
    if (!isEvent(parsed))
      return issue(line, terminated ? 'not-an-event' : 'torn-tail', text.slice(0, PREVIEW))
    return { kind: 'event', line, event: parsed }
  }

  let line = 1
  let parts: Buffer[] = []
  let size = 0
  let tooLong = false
  const stream = handle.createReadStream({ highWaterMark: 1 << 16 })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (options.signal?.aborted) throw options.signal.reason
      let from = 0
      for (let nl = chunk.indexOf(NEWLINE, from); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
        const piece = chunk.subarray(from, nl)
        from = nl + 1
        if (tooLong || size + piece.length > maxLineBytes) yield issue(line, 'too-long', '')
        else {
          const bytes = parts.length === 0 ? piece : Buffer.concat([...parts, piece], size + piece.length)
          const out = entry(line, bytes, true)
          if (out) yield out
        }
        line++
        parts = []
        size = 0
        tooLong = false
      }
      const rest = chunk.subarray(from)
      if (rest.length === 0 || tooLong) continue
      if (size + rest.length > maxLineBytes) {
        // Over the cap: stop holding this line and skip to its end.
        tooLong = true
        parts = []
        size = 0
        continue
      }
      parts.push(rest)
      size += rest.length
    }
  } catch (error) {
    if (error instanceof SessionLogError || error === options.signal?.reason) throw error
    throw new SessionLogError(`cannot read session log ${path}: ${describe(error)}`)
  } finally {
    stream.destroy()
  }
  // The last line has no newline: torn by a crash mid-write, unless it is a whole event.
  if (tooLong) yield issue(line, 'too-long', '')
  else if (size > 0) {
    const out = entry(line, Buffer.concat(parts, size), false)
    if (out) yield out
  }
}

export interface SessionLogReadResult {
  readonly events: readonly SessionEvent[]
  /** Lines that were skipped (torn, not JSON, not an event, too long), in file order. */
  readonly issues: readonly SessionLogIssue[]
}

/**
 * The whole log in memory (tests, small logs). Anything that may read a large log should iterate
 * readSessionEntries instead and keep only what it needs.
 */
export async function readSessionLog(
  path: string,
  options?: ReadSessionLogOptions,
): Promise<SessionLogReadResult> {
  const events: SessionEvent[] = []
  const issues: SessionLogIssue[] = []
  for await (const e of readSessionEntries(path, options)) {
    if (e.kind === 'event') events.push(e.event)
    else issues.push(e.issue)
  }
  return { events, issues }
}

/**
 * Open the log and check what was opened: only a regular file is a log (a FIFO or a device would
 * block or never end). O_NONBLOCK makes the open of a FIFO return at once; it changes nothing for
 * a regular file. The check is on the descriptor, so a name swapped after it cannot matter.
 */
async function openLog(path: string): Promise<FileHandle> {
  let handle: FileHandle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SessionLogError(`session log ${path} does not exist`)
    throw new SessionLogError(`cannot read session log ${path}: ${describe(error)}`)
  }
  const info = await handle.stat().catch(async (error: unknown) => {
    await handle.close()
    throw new SessionLogError(`cannot read session log ${path}: ${describe(error)}`)
  })
  if (!info.isFile()) {
    await handle.close()
    throw new SessionLogError(`session log ${path} is not a regular file`)
  }
  return handle
}

function describeIssue(line: number, kind: SessionLogIssueKind, maxLineBytes: number): string {
  switch (kind) {
    case 'torn-tail':
      return `line ${line} is incomplete (the session was cut off while writing); it was skipped.`
    case 'not-json':
      return `line ${line} is not valid JSON (a session cut off while writing leaves one such line); it was skipped.`
    case 'not-an-event':
      return `line ${line} is not a session event ({ seq, type, ... }); it was skipped.`
    case 'too-long':
      return `line ${line} is longer than ${maxLineBytes} bytes (maxLineBytes); it was skipped.`
    default:
      return assertNever(kind, 'issue')
  }
}

function isEvent(value: unknown): value is SessionEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const v = value as { seq?: unknown; type?: unknown }
  return typeof v.seq === 'number' && Number.isInteger(v.seq) && typeof v.type === 'string'
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
