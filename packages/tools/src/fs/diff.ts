// Unified diff of two texts, line based (Myers' O(ND) algorithm after trimming the common prefix
// and suffix). UI and meta only (seed 001 §6.12: diffs never go into model content).

export interface UnifiedDiff {
  readonly diff: string
  readonly added: number
  readonly removed: number
}

type Op = { readonly kind: ' ' | '-' | '+'; readonly text: string }

const CONTEXT = 3
/** Past this many differences the middle is shown as one replaced block (bounded time). */
const MAX_EDIT_DISTANCE = 4000
/** The diff text is cut here (meta stays bounded; the card says it was cut). */
const MAX_DIFF_CHARS = 256 * 1024

function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

function myers(a: readonly string[], b: readonly string[]): Op[] | undefined {
  const n = a.length
  const m = b.length
  const max = n + m
  const offset = max + 1
  const v = new Int32Array(2 * max + 3)
  const trace: Int32Array[] = []
  for (let d = 0; d <= max; d++) {
    if (d > MAX_EDIT_DISTANCE) return undefined
    trace.push(v.slice())
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[offset + k] = x
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d)
    }
  }
  return undefined
}

function backtrack(
  trace: Int32Array[],
  a: readonly string[],
  b: readonly string[],
  offset: number,
  dEnd: number,
): Op[] {
  const ops: Op[] = []
  let x = a.length
  let y = b.length
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!
    const k = x - y
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
    const prevK = down ? k + 1 : k - 1
    const prevX = v[offset + prevK]!
    const prevY = prevX - prevK
    while (x > prevX && y > prevY) {
      ops.push({ kind: ' ', text: a[--x]! })
      y--
    }
    if (down) ops.push({ kind: '+', text: b[--y]! })
    else ops.push({ kind: '-', text: a[--x]! })
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: ' ', text: a[--x]! })
    y--
  }
  return ops.reverse()
}

/** A `diff -u` style diff with `--- a/path` / `+++ b/path` headers and 3 lines of context. */
export function unifiedDiff(path: string, before: string, after: string): UnifiedDiff {
  const a = splitLines(before)
  const b = splitLines(after)
  let prefix = 0
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++
  let suffix = 0
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++
  const midA = a.slice(prefix, a.length - suffix)
  const midB = b.slice(prefix, b.length - suffix)
  const middle = myers(midA, midB) ?? [
    ...midA.map((text) => ({ kind: '-' as const, text })),
    ...midB.map((text) => ({ kind: '+' as const, text })),
  ]
  const ops: Op[] = [
    ...a.slice(0, prefix).map((text) => ({ kind: ' ' as const, text })),
    ...middle,
    ...a.slice(a.length - suffix).map((text) => ({ kind: ' ' as const, text })),
  ]
  let added = 0
  let removed = 0
  for (const op of ops) {
    if (op.kind === '+') added++
    else if (op.kind === '-') removed++
  }
  if (added === 0 && removed === 0) return { diff: '', added, removed }

  const out: string[] = [`--- a/${path}`, `+++ b/${path}`]
  // Group changes into hunks separated by more than 2*CONTEXT unchanged lines.
  let i = 0
  const aLine = new Int32Array(ops.length + 1)
  const bLine = new Int32Array(ops.length + 1)
  for (let j = 0, la = 0, lb = 0; j < ops.length; j++) {
    aLine[j] = la
    bLine[j] = lb
    if (ops[j]!.kind !== '+') la++
    if (ops[j]!.kind !== '-') lb++
  }
  let chars = 0
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === ' ') i++
    if (i >= ops.length) break
    const start = Math.max(0, i - CONTEXT)
    let end = i
    let quiet = 0
    for (let j = i; j < ops.length; j++) {
      if (ops[j]!.kind === ' ') {
        quiet++
        if (quiet > 2 * CONTEXT) break
      } else {
        quiet = 0
        end = j
      }
    }
    const stop = Math.min(ops.length, end + 1 + CONTEXT)
    let aCount = 0
    let bCount = 0
    for (let j = start; j < stop; j++) {
      if (ops[j]!.kind !== '+') aCount++
      if (ops[j]!.kind !== '-') bCount++
    }
    const aStart = aCount === 0 ? aLine[start]! : aLine[start]! + 1
    const bStart = bCount === 0 ? bLine[start]! : bLine[start]! + 1
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`)
    for (let j = start; j < stop; j++) {
      const line = `${ops[j]!.kind}${ops[j]!.text}`
      chars += line.length + 1
      if (chars > MAX_DIFF_CHARS) {
        out.push(`[diff cut at ${MAX_DIFF_CHARS} characters]`)
        return { diff: out.join('\n'), added, removed }
      }
      out.push(line)
    }
    i = stop
  }
  return { diff: out.join('\n'), added, removed }
}
