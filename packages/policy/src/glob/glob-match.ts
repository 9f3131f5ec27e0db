import { RE2JS } from 're2js'

// The one glob matcher of toolgate (issue 14 §4): permission rules (`read(src/**)`), the
// protected-path table, and the search tools' `glob` / grep `glob` all compile here, so a pattern
// means the same thing wherever it is written. It lives in policy because policy is the lowest
// package both users reach (tools depends on policy; core is runtime-agnostic and has no path
// semantics), and it depends on nothing but re2js.
//
// Matching is linear (issue 13 §3): the pattern is translated to a regular expression run by RE2JS
// (the JavaScript port of RE2: a DFA/NFA simulation, no backtracking), so a test costs
// O(path length x pattern size) whatever the pattern. JavaScript's RegExp (and picomatch's or
// minimatch's regexes) backtrack: `*a*a*a*a*a*a*a*a*a*a*.md` against a 60-character name took 90 s.
//
// Syntax, over `/`-separated paths (README "Glob syntax" has the table):
//   `*`        any characters except `/` (zero included)
//   `?`        one character except `/`
//   `**`       as a whole path segment: any number of segments, zero included — `**/x` is `x` at
//              any depth, `a/**/b` is `a/b` or deeper, `a/**` is `a` itself and everything below,
//              `**` alone is everything; elsewhere (`a**b`, `***`) it is `*`
//   `[abc]` `[a-z]` `[!abc]` `[^abc]` `[[:alpha:]]`   one character of (not of) a class; never `/`
//   `{a,b}`    alternatives, nested, may hold `/` and `**`; an unclosed `{` or a stray `}` is an
//              error (write `\{` for a literal brace)
//   `\x`       the character x literally
//   dotfiles   not special: `*` matches `.env` (a deny rule must not miss a hidden file)
//   case       exact by default; `caseInsensitive` folds case (the protected-path table uses it:
//              on a case-insensitive file system `.GIT/config` IS `.git/config`)

/** Patterns longer than this are refused: compiling is linear in the pattern, matching too. */
export const GLOB_MAX_PATTERN_CHARS = 4096

export class GlobPatternError extends Error {
  override readonly name = 'GlobPatternError'
}

export interface GlobOptions {
  /** Fold case when matching (Unicode simple case folding). Default false. */
  readonly caseInsensitive?: boolean
}

export interface GlobMatcher {
  readonly pattern: string
  /** RE2's program size: a test costs about this many steps per character of the path. */
  readonly cost: number
  /** Whether the whole path matches. */
  test(path: string): boolean
}

/** Characters escaped outside a class (RE2 and JavaScript agree on every one of these escapes). */
const SPECIAL = /[\\^$.*+?()[\]{}|/]/
/** Characters escaped inside a class. */
const CLASS_SPECIAL = /[\\\]^[-]/

function literal(ch: string): string {
  return SPECIAL.test(ch) ? `\\${ch}` : ch
}

type Range = readonly [lo: number, hi: number]

/** POSIX classes, ASCII only (as RE2's `[[:name:]]`), spelled out so `/` can be taken out. */
const NAMED_CLASSES: Readonly<Record<string, readonly Range[]>> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
}

const SLASH = 0x2f

/**
 * A class starting at `chars[start]` (`[`): its end index and RE2 source, or undefined when it is
 * not closed (then `[` is a literal, as in the shell).
 */
function parseClass(chars: readonly string[], start: number): { end: number; source: string } | undefined {
  let i = start + 1
  let negated = false
  if (chars[i] === '!' || chars[i] === '^') {
    negated = true
    i++
  }
  const ranges: Range[] = []
  let first = true
  for (; i < chars.length; i++) {
    let ch = chars[i]!
    if (ch === ']' && !first) {
      const kept = ranges.flatMap(([lo, hi]): Range[] =>
        lo <= SLASH && SLASH <= hi
          ? (
              [
                [lo, SLASH - 1],
                [SLASH + 1, hi],
              ] satisfies Range[]
            ).filter(([a, b]) => a <= b)
          : [[lo, hi]],
      )
      if (!negated && kept.length === 0) {
        throw new GlobPatternError(
          "a character class here matches only '/', which a class never matches (it stands for one character of a name)",
        )
      }
      const body = kept.map(([lo, hi]) => (lo === hi ? classChar(lo) : `${classChar(lo)}-${classChar(hi)}`))
      return { end: i, source: negated ? `[^/${body.join('')}]` : `[${body.join('')}]` }
    }
    first = false
    if (ch === '[' && chars[i + 1] === ':') {
      const close = chars.indexOf(':', i + 2)
      if (close > 0 && chars[close + 1] === ']') {
        const name = chars.slice(i + 2, close).join('')
        const named = NAMED_CLASSES[name]
        if (named === undefined) {
          throw new GlobPatternError(
            `'[:${name}:]' is not a character class name (use one of ${Object.keys(NAMED_CLASSES).join(', ')})`,
          )
        }
        ranges.push(...named)
        i = close + 1
        continue
      }
    }
    if (ch === '\\' && i + 1 < chars.length) ch = chars[++i]!
    const lo = ch.codePointAt(0)!
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']') {
      let hiCh = chars[i + 2]!
      i += 2
      if (hiCh === '\\' && i + 1 < chars.length) hiCh = chars[++i]!
      const hi = hiCh.codePointAt(0)!
      if (hi < lo) throw new GlobPatternError(`the class range '${ch}-${hiCh}' is backwards`)
      ranges.push([lo, hi])
      continue
    }
    ranges.push([lo, lo])
  }
  return undefined
}

function classChar(code: number): string {
  const ch = String.fromCodePoint(code)
  if (CLASS_SPECIAL.test(ch)) return `\\${ch}`
  // Control characters and the like: RE2 and JavaScript both read `\xHH` for the first 256.
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`
  return ch
}

/** Whether a whole-segment `**` starts at `i` (it follows a `/`). */
function globstarAt(chars: readonly string[], i: number, inGroup: boolean): boolean {
  if (chars[i] !== '*' || chars[i + 1] !== '*') return false
  const next = chars[i + 2]
  return next === undefined || next === '/' || (inGroup && (next === '}' || next === ','))
}

/** The pattern as a regular expression source that RE2 and JavaScript (flag `s`) read alike. */
export function globSource(pattern: string): string {
  const chars = Array.from(pattern)
  let out = ''
  // Per open `{`: whether it came at a segment start (then so does each of its alternatives).
  const groups: boolean[] = []
  // A `**` is a globstar only as a whole segment: after the start, `/`, `{` or `,` (in braces),
  // and before the end, `/`, `}` or `,` (in braces).
  let segmentStart = true
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!
    const startHere: boolean = segmentStart
    segmentStart = false
    if (ch === '*') {
      if (chars[i + 1] !== '*') {
        out += '[^/]*'
        continue
      }
      let end = i + 2
      while (chars[end] === '*') end++
      const next = chars[end]
      const closes = next === undefined || (groups.length > 0 && (next === '}' || next === ','))
      // Exactly two stars make a globstar; a longer run is one `*` (gitignore's rule).
      const globstar = startHere && end === i + 2
      if (globstar && next === '/' && globstarAt(chars, end + 1, groups.length > 0)) {
        // `**/**` is `**`: drop the first, so `a/**/**` still matches `a` itself.
        i = end
        segmentStart = true
      } else if (globstar && next === '/') {
        out += '(?:[^/]*/)*' // `**/`: zero or more directories
        i = end
        segmentStart = true
      } else if (globstar && closes) {
        // `a/**`: the directory itself or anything below it (the `/` was already written).
        if (out.endsWith('/')) out = `${out.slice(0, -1)}(?:/.*)?`
        else out += '.*'
        i = end - 1
      } else {
        out += '[^/]*' // `a**b` is just `a*b`, `***` is `*`
        i = end - 1
      }
    } else if (ch === '?') {
      out += '[^/]'
    } else if (ch === '[') {
      const cls = parseClass(chars, i)
      if (cls === undefined) out += '\\['
      else {
        out += cls.source
        i = cls.end
      }
    } else if (ch === '{') {
      groups.push(startHere)
      out += '(?:'
      segmentStart = startHere
    } else if (ch === '}') {
      if (groups.pop() === undefined)
        throw new GlobPatternError("unexpected '}' (write '\\}' for a literal brace)")
      out += ')'
    } else if (ch === ',' && groups.length > 0) {
      out += '|'
      segmentStart = groups[groups.length - 1]!
    } else if (ch === '/') {
      out += '/'
      segmentStart = true
    } else if (ch === '\\' && i + 1 < chars.length) {
      out += literal(chars[++i]!)
    } else {
      out += literal(ch)
    }
  }
  if (groups.length > 0) throw new GlobPatternError("unclosed '{' (write '\\{' for a literal brace)")
  return out
}

/** The checked source of one pattern: refused when too long or malformed (GlobPatternError). */
export function checkedSource(pattern: string): string {
  if (pattern.length > GLOB_MAX_PATTERN_CHARS) {
    throw new GlobPatternError(
      `the pattern is ${pattern.length} characters long, over the limit of ${GLOB_MAX_PATTERN_CHARS}`,
    )
  }
  return globSource(pattern)
}

/** A source anchored at both ends, compiled by RE2 (DOTALL: a name may hold any character, `\n` too). */
export function compileAnchored(source: string, options: GlobOptions): RE2JS {
  try {
    return RE2JS.compile(
      `^(?:${source})$`,
      options.caseInsensitive === true ? RE2JS.DOTALL | RE2JS.CASE_INSENSITIVE : RE2JS.DOTALL,
    )
  } catch (error) {
    throw new GlobPatternError(error instanceof Error ? error.message : String(error))
  }
}

/** Compile a glob; throws GlobPatternError (with a message that says what to fix) when malformed. */
export function compileGlob(pattern: string, options: GlobOptions = {}): GlobMatcher {
  const re = compileAnchored(checkedSource(pattern), options)
  return { pattern, cost: Math.max(1, re.programSize()), test: (path) => re.test(path) }
}
