import { lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { assertNever } from '@toolgate/core'
import type { ProtectedPath } from './protected.js'

/**
 * Which protected paths a bash word may reach without naming them (issue 12 §4):
 *
 * - a glob (`cat ~/.ss?/id_*`): does the pattern share a match with a protected pattern? Bash's
 *   wildcards do not match a leading `.` unless dotglob is on; when something in the command may
 *   change glob options, they do (the worst case);
 * - a directory read recursively (`grep -r KEY ~`): can a protected pattern match a path below it
 *   (skipping hidden names for programs that do, like ripgrep), and, when it can, does one of the
 *   files actually below it match (a bounded walk of the directory);
 * - a directory a command that is not read-only names (`cp -r ~ x`, `tar czf a.tgz ~`): is it an
 *   ancestor of a protected tree anchored at a fixed place (`~/.ssh/**`)?
 *
 * Patterns are split into path segments; a protected pattern's `**` spans any number of segments,
 * `{a,b}` alternates. Characters are compared with small automata over the two patterns.
 */

type Token =
  | { readonly t: 'lit'; readonly c: string }
  | { readonly t: 'any' }
  | { readonly t: 'star' }
  | {
      readonly t: 'set'
      readonly test: (c: string) => boolean
      readonly negated: boolean
      readonly chars: string
    }

type Segment = readonly Token[] | 'globstar'

/** A bash pattern segment (`\x` escapes, `[...]` classes). */
function bashSegment(s: string): Token[] {
  const out: Token[] = []
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (c === '\\' && i + 1 < s.length) {
      out.push({ t: 'lit', c: s[++i]! })
      continue
    }
    if (c === '*') {
      if (out[out.length - 1]?.t !== 'star') out.push({ t: 'star' })
      continue
    }
    if (c === '?') {
      out.push({ t: 'any' })
      continue
    }
    if (c === '[') {
      const end = classEnd(s, i)
      if (end > 0) {
        out.push(charClass(s.slice(i + 1, end)))
        i = end
        continue
      }
    }
    out.push({ t: 'lit', c })
  }
  return out
}

function classEnd(s: string, start: number): number {
  let i = start + 1
  if (s[i] === '!' || s[i] === '^') i++
  if (s[i] === ']') i++
  while (i < s.length) {
    if (s[i] === '[' && s[i + 1] === ':') {
      const close = s.indexOf(':]', i + 2)
      if (close < 0) return -1
      i = close + 2
      continue
    }
    if (s[i] === ']') return i
    i++
  }
  return -1
}

function charClass(body: string): Token {
  let negated = false
  let b = body
  if (b.startsWith('!') || b.startsWith('^')) {
    negated = true
    b = b.slice(1)
  }
  // Named classes ([:alpha:]) and ranges: keep a test; `chars` lists literal members for intersections.
  const tests: ((c: string) => boolean)[] = []
  let chars = ''
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!
    if (c === '[' && b[i + 1] === ':') {
      const close = b.indexOf(':]', i + 2)
      const name = b.slice(i + 2, close)
      const re =
        {
          alpha: /[A-Za-z]/,
          digit: /[0-9]/,
          alnum: /[A-Za-z0-9]/,
          upper: /[A-Z]/,
          lower: /[a-z]/,
          space: /\s/,
          punct: /[!-/:-@[-`{-~]/,
          xdigit: /[0-9A-Fa-f]/,
        }[name] ?? /./s
      tests.push((x) => re.test(x))
      chars += name === 'punct' ? '.' : ''
      i = close + 1
      continue
    }
    if (b[i + 1] === '-' && i + 2 < b.length) {
      const lo = c
      const hi = b[i + 2]!
      tests.push((x) => x >= lo && x <= hi)
      // Overlapping ranges share an end point: enough candidates for an intersection.
      chars += lo + hi
      if ('.' >= lo && '.' <= hi) chars += '.'
      i += 2
      continue
    }
    chars += c
    tests.push((x) => x === c)
  }
  const test = (x: string) => tests.some((t) => t(x)) !== negated
  return { t: 'set', test, negated, chars }
}

/** A protected-table glob segment (`*`, `?`, literal; braces already expanded). */
function tableSegment(s: string): Segment {
  if (s === '**') return 'globstar'
  const out: Token[] = []
  for (const c of s) {
    if (c === '*') {
      if (out[out.length - 1]?.t !== 'star') out.push({ t: 'star' })
    } else if (c === '?') out.push({ t: 'any' })
    else out.push({ t: 'lit', c })
  }
  return out
}

/** Expand `{a,b}` alternatives (the table's patterns are small). */
function expandBraces(pattern: string): string[] {
  const open = pattern.indexOf('{')
  if (open < 0) return [pattern]
  const close = pattern.indexOf('}', open)
  if (close < 0) return [pattern]
  const head = pattern.slice(0, open)
  const tail = pattern.slice(close + 1)
  return pattern
    .slice(open + 1, close)
    .split(',')
    .flatMap((alt) => expandBraces(`${head}${alt}${tail}`))
}

/** The protected patterns of an entry as absolute segment lists (`~/` made each home). */
export function entrySegments(entry: ProtectedPath, homes: readonly string[]): Segment[][] {
  const out: Segment[][] = []
  for (const p of expandBraces(entry.pattern)) {
    const bases = p.startsWith('~/') ? homes.map((h) => `${h}/${p.slice(2)}`) : [p]
    for (const b of bases)
      out.push(
        b
          .split('/')
          .filter((s) => s !== '')
          .map(tableSegment),
      )
  }
  return out
}

/** Whether the entry is anchored at a fixed directory (`~/.ssh/**`, `/etc/x`), not `**\/.env*`. */
export function anchored(entry: ProtectedPath): boolean {
  return !entry.pattern.startsWith('**')
}

// ---- segment intersection --------------------------------------------------------------------

/** Can some string match both token lists? `noLeadingDot`: the bash side's wildcards skip a leading `.`. */
function segmentsMeet(a: readonly Token[], b: readonly Token[], noLeadingDot: boolean): boolean {
  const seen = new Set<number>()
  const key = (i: number, j: number, start: boolean) => (i * (b.length + 1) + j) * 2 + (start ? 1 : 0)
  const stack: [number, number, boolean][] = [[0, 0, true]]
  while (stack.length > 0) {
    const [i, j, start] = stack.pop()!
    const k = key(i, j, start)
    if (seen.has(k)) continue
    seen.add(k)
    if (i === a.length && j === b.length) return true
    const ta = a[i]
    const tb = b[j]
    if (ta?.t === 'star') stack.push([i + 1, j, start])
    if (tb?.t === 'star') stack.push([i, j + 1, start])
    // Consume one character: one that both current tokens accept.
    if (ta === undefined || tb === undefined) continue
    const c = common(ta, tb, start && noLeadingDot)
    if (c === undefined) continue
    stack.push([ta.t === 'star' ? i : i + 1, tb.t === 'star' ? j : j + 1, false])
  }
  return false
}

/** A character accepted by both tokens (the bash side is `a`), or undefined. */
function common(a: Token, b: Token, firstNoDot: boolean): string | undefined {
  const wildA = a.t !== 'lit'
  const candidates = new Set<string>()
  for (const tok of [a, b]) {
    if (tok.t === 'lit') candidates.add(tok.c)
    if (tok.t === 'set') for (const c of tok.chars) candidates.add(c)
  }
  for (const c of 'aZ0_-.~') candidates.add(c)
  for (const c of candidates) {
    if (firstNoDot && wildA && c === '.') continue
    if (accepts(a, c) && accepts(b, c)) return c
  }
  return undefined
}

function accepts(t: Token, c: string): boolean {
  switch (t.t) {
    case 'lit':
      return t.c === c
    case 'any':
    case 'star':
      return c !== '/'
    case 'set':
      return t.test(c)
    default:
      return assertNever(t, 'token')
  }
}

export interface MeetOptions {
  /** Bash wildcards match a leading `.` (dotglob, or unknown glob options). */
  readonly dotglob: boolean
  /** Also true when `a` matches only a prefix of `b`'s match (`a` names an ancestor directory). */
  readonly ancestor: boolean
  /** Segments of `b` after `a`'s prefix must not be hidden (a reader that skips hidden names). */
  readonly skipHiddenBelow: boolean
  /** `**` in `a` spans segments (globstar, or unknown glob options). */
  readonly globstar: boolean
}

/**
 * Whether a bash path pattern (absolute, `a`) and a protected pattern (`b`) share a match; with
 * `ancestor`, also when a match of `a` is a directory above a match of `b`.
 */
export function pathsMeet(a: string, b: readonly Segment[], o: MeetOptions): boolean {
  const sa: Segment[] = a
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s === '**' && o.globstar ? 'globstar' : bashSegment(s)))
  const seen = new Set<number>()
  const stack: [number, number][] = [[0, 0]]
  while (stack.length > 0) {
    const [i, j] = stack.pop()!
    const k = i * (b.length + 1) + j
    if (seen.has(k)) continue
    seen.add(k)
    if (i === sa.length) {
      if (j === b.length) return true
      if (o.ancestor && restReachable(b.slice(j), o.skipHiddenBelow)) return true
      if (b.slice(j).every((s) => s === 'globstar')) return true
    }
    const x = sa[i]
    const y = b[j]
    if (y === 'globstar') {
      stack.push([i, j + 1])
      if (x !== undefined) stack.push([i + 1, j])
    }
    if (x === 'globstar') {
      stack.push([i + 1, j])
      if (y !== undefined) stack.push([i, j + 1])
    }
    if (
      x !== undefined &&
      y !== undefined &&
      x !== 'globstar' &&
      y !== 'globstar' &&
      segmentsMeet(x, y, !o.dotglob)
    )
      stack.push([i + 1, j + 1])
  }
  return false
}

/** Can the rest of a protected pattern match names below a directory (without hidden ones)? */
function restReachable(rest: readonly Segment[], skipHidden: boolean): boolean {
  if (!skipHidden) return true
  return rest.every((s) => s === 'globstar' || s[0]?.t !== 'lit' || s[0].c !== '.')
}

// ---- bounded walks ---------------------------------------------------------------------------

export const WALK_LIMIT = 10_000

export type WalkResult =
  | { readonly kind: 'done' }
  | { readonly kind: 'found'; readonly path: string }
  | { readonly kind: 'limit' }

/**
 * Visit the files and directories below `root` (not following symbolic links; a link is reported
 * to `visit` as itself), skipping hidden names when asked, until `visit` returns true or the
 * budget of entries runs out.
 */
export function walkBelow(
  root: string,
  skipHidden: boolean,
  budget: { left: number },
  visit: (path: string, isLink: boolean) => boolean,
): WalkResult {
  const queue = [root]
  while (queue.length > 0) {
    const dir = queue.shift()!
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names.sort()) {
      if (skipHidden && name.startsWith('.')) continue
      if (--budget.left < 0) return { kind: 'limit' }
      const path = join(dir, name)
      let isDir = false
      let isLink = false
      try {
        const st = lstatSync(path)
        isDir = st.isDirectory()
        isLink = st.isSymbolicLink()
      } catch {
        continue
      }
      if (visit(path, isLink)) return { kind: 'found', path }
      if (isDir) queue.push(path)
    }
  }
  return { kind: 'done' }
}

/**
 * Expand a bash glob (absolute, `\` escapes for literal characters) on the file system, as bash
 * would now; `undefined` when the budget runs out.
 */
export function expandGlob(
  pattern: string,
  dotglob: boolean,
  budget: { left: number },
): string[] | undefined {
  const segs = pattern.split('/').filter((s) => s !== '')
  let current = ['/']
  for (const seg of segs) {
    const tokens = bashSegment(seg)
    const wild = tokens.some((t) => t.t !== 'lit')
    const next: string[] = []
    for (const dir of current) {
      if (!wild) {
        next.push(join(dir, tokens.map((t) => (t as { c: string }).c).join('')))
        continue
      }
      let names: string[]
      try {
        names = readdirSync(dir)
      } catch {
        continue
      }
      for (const name of names) {
        if (--budget.left < 0) return undefined
        if (!dotglob && name.startsWith('.') && tokens[0]?.t !== 'lit') continue
        if (matchTokens(tokens, name)) next.push(join(dir, name))
      }
    }
    current = next
    if (current.length === 0) return []
  }
  return current
}

function matchTokens(tokens: readonly Token[], s: string): boolean {
  const memo = new Map<number, boolean>()
  const go = (i: number, j: number): boolean => {
    const k = i * (s.length + 1) + j
    const hit = memo.get(k)
    if (hit !== undefined) return hit
    let r: boolean
    if (i === tokens.length) r = j === s.length
    else {
      const t = tokens[i]!
      if (t.t === 'star') r = go(i + 1, j) || (j < s.length && go(i, j + 1))
      else r = j < s.length && accepts(t, s[j]!) && go(i + 1, j + 1)
    }
    memo.set(k, r)
    return r
  }
  return go(0, 0)
}

/** Escape a literal path for use inside a bash pattern. */
export function escapeForGlob(path: string): string {
  return path.replace(/[*?[\]\\]/g, (c) => `\\${c}`)
}
