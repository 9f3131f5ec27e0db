import { structuredPatch } from 'diff'

// Unified diff of two texts for the diff card (seed 001 §6.12: diffs never go into model content;
// they are UI and meta only). The line diff is jsdiff's (the `diff` package: Myers' O(ND) with
// common prefix and suffix trimmed); this file only bounds it and writes the text in the shape the
// card has always had: `--- a/path` / `+++ b/path`, `@@ -a,n +b,m @@` hunks with 3 lines of
// context, no "\ No newline at end of file" markers (a missing final newline is not a change here).

export interface UnifiedDiff {
  readonly diff: string
  readonly added: number
  readonly removed: number
}

const CONTEXT = 3
/** Past this many differing lines the changed middle is shown as one replaced block (bounded time). */
export const MAX_EDIT_DISTANCE = 1000
/** The diff text is cut here (meta stays bounded; the card says it was cut). */
export const MAX_DIFF_CHARS = 256 * 1024

interface Hunk {
  readonly oldStart: number
  readonly oldLines: number
  readonly newStart: number
  readonly newLines: number
  readonly lines: readonly string[]
}

/** Lines without their `\n`; a final newline ends the last line, it does not start an empty one. */
function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

const joinLines = (lines: readonly string[]): string => (lines.length === 0 ? '' : `${lines.join('\n')}\n`)

/** A `diff -u` style diff with `--- a/path` / `+++ b/path` headers and 3 lines of context. */
export function unifiedDiff(path: string, before: string, after: string): UnifiedDiff {
  const a = splitLines(before)
  const b = splitLines(after)
  // The common first and last lines are trimmed before jsdiff sees the texts (keeping CONTEXT of
  // them): its tokenizer costs about 1.2 s on a 100,000-line file with one change, the trimmed
  // call well under a millisecond (measured on Node 20 while writing this; README "Diffs").
  let prefix = 0
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++
  if (prefix === a.length && prefix === b.length) return { diff: '', added: 0, removed: 0 }
  let suffix = 0
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++
  const head = Math.max(0, prefix - CONTEXT)
  const tail = Math.min(suffix, CONTEXT)
  const oldWindow = a.slice(head, a.length - suffix + tail)
  const newWindow = b.slice(head, b.length - suffix + tail)
  const patch = structuredPatch(
    path,
    path,
    joinLines(oldWindow),
    joinLines(newWindow),
    undefined,
    undefined,
    {
      context: CONTEXT,
      maxEditLength: MAX_EDIT_DISTANCE,
    },
  )
  // Hunks count lines from the window's start; the window starts at line `head + 1`.
  const hunks = (patch?.hunks ?? [replacedMiddle(oldWindow, newWindow, prefix - head, tail)]).map(
    (h: Hunk): Hunk => ({ ...h, oldStart: h.oldStart + head, newStart: h.newStart + head }),
  )
  let added = 0
  let removed = 0
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line[0] === '+') added++
      else if (line[0] === '-') removed++
    }
  }
  const out: string[] = [`--- a/${path}`, `+++ b/${path}`]
  let chars = 0
  for (const hunk of hunks) {
    // An empty side starts at the line before it (0 for an empty file), as `diff -u` writes it.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart
    out.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`)
    for (const line of hunk.lines) {
      chars += line.length + 1
      if (chars > MAX_DIFF_CHARS) {
        out.push(`[diff cut at ${MAX_DIFF_CHARS} characters]`)
        return { diff: out.join('\n'), added, removed }
      }
      out.push(line)
    }
  }
  return { diff: out.join('\n'), added, removed }
}

/**
 * Past MAX_EDIT_DISTANCE (jsdiff gave up): the window's leading and trailing context stay, every
 * line between is removed and added as one block — what the old and new texts are, not the
 * smallest edit between them.
 */
function replacedMiddle(
  oldWindow: readonly string[],
  newWindow: readonly string[],
  lead: number,
  trail: number,
): Hunk {
  const oldMiddle = oldWindow.slice(lead, oldWindow.length - trail)
  const newMiddle = newWindow.slice(lead, newWindow.length - trail)
  return {
    oldStart: 1,
    oldLines: oldWindow.length,
    newStart: 1,
    newLines: newWindow.length,
    lines: [
      ...oldWindow.slice(0, lead).map((l) => ` ${l}`),
      ...oldMiddle.map((l) => `-${l}`),
      ...newMiddle.map((l) => `+${l}`),
      ...oldWindow.slice(oldWindow.length - trail).map((l) => ` ${l}`),
    ],
  }
}
