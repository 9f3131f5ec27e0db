import type { FileHandle } from 'node:fs/promises'
import { z } from 'zod'

// The one result shape both grep backends fill, so they cannot drift in format: a collector that
// keeps the first entries up to the cap and counts the rest.

export const GREP_MODES = ['content', 'files_with_matches', 'count'] as const
export type GrepMode = (typeof GREP_MODES)[number]

/** Entries listed per mode: matching lines (content) or files (files_with_matches, count). */
export const GREP_MAX_ENTRIES = {
  content: 500,
  files_with_matches: 1000,
  count: 1000,
} as const satisfies Record<GrepMode, number>
/** Matching lines are shown up to this many characters. */
export const GREP_MAX_LINE_CHARS = 500

export const grepValueSchema = z.object({
  pattern: z.string(),
  path: z.string(),
  glob: z.string().optional(),
  mode: z.enum(GREP_MODES),
  files: z.array(
    z.object({
      path: z.string(),
      count: z.number().int().optional(),
      matches: z.array(z.object({ line: z.number().int(), text: z.string() })).optional(),
    }),
  ),
  /** Files with at least one match. */
  totalFiles: z.number().int(),
  /** Matching lines, in content and count modes. */
  totalLines: z.number().int().optional(),
  /** Entries not listed because of the cap (lines in content mode, files otherwise). */
  omitted: z.number().int(),
})
export type GrepValue = z.infer<typeof grepValueSchema>

/**
 * What to search, already opened and checked (`openSearchTarget`): a directory by its real path
 * (the walk starts there; paths are shown under the name the call gave), or one regular file by
 * its descriptor (both backends read that descriptor, never the name again).
 */
export type GrepTarget =
  | { readonly kind: 'directory'; readonly lexical: string; readonly real: string }
  | { readonly kind: 'file'; readonly lexical: string; readonly handle: FileHandle; readonly size: number }

export interface GrepRequest {
  readonly pattern: string
  readonly mode: GrepMode
  readonly target: GrepTarget
  readonly glob?: string
  /** Turns an absolute path (as the call named it) into the path shown to the model. */
  readonly display: (absolute: string) => string
  /** Files (real paths) a directory search must not read or report (protected for reading). */
  readonly excludes: (absolute: string) => boolean
  readonly signal: AbortSignal
}

export function cutLine(text: string): string {
  const bare = text.endsWith('\n') ? text.slice(0, -1) : text
  const line = bare.endsWith('\r') ? bare.slice(0, -1) : bare
  return line.length > GREP_MAX_LINE_CHARS ? `${line.slice(0, GREP_MAX_LINE_CHARS)}…` : line
}

export class GrepCollector {
  readonly files: { path: string; count?: number; matches?: { line: number; text: string }[] }[] = []
  totalFiles = 0
  totalLines = 0
  omitted = 0
  #current: { path: string; matches?: { line: number; text: string }[] } | undefined
  readonly #max: number

  constructor(readonly mode: GrepMode) {
    this.#max = GREP_MAX_ENTRIES[mode]
  }

  /** A matching line (content mode); calls for one file must be consecutive. */
  line(path: string, line: number, text: string): void {
    if (this.#current?.path !== path) {
      this.totalFiles++
      this.#current = { path }
    }
    this.totalLines++
    if (this.totalLines > this.#max) {
      this.omitted++
      return
    }
    if (this.#current.matches === undefined) {
      this.#current.matches = []
      this.files.push(this.#current as { path: string; matches: { line: number; text: string }[] })
    }
    this.#current.matches.push({ line, text: cutLine(text) })
  }

  /** A matching file (files_with_matches) or a file's count of matching lines (count). */
  file(path: string, lines?: number): void {
    this.totalFiles++
    if (lines !== undefined) this.totalLines += lines
    if (this.files.length >= this.#max) {
      this.omitted++
      return
    }
    this.files.push(lines === undefined ? { path } : { path, count: lines })
  }
}
