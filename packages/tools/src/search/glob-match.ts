import { RE2JS } from 're2js'

// Glob patterns over `/`-separated relative paths, matched in linear time (issue 13 §3): the
// pattern is translated to a regular expression and run by RE2JS (the JavaScript port of RE2:
// a lazy DFA with a memory budget, falling back to an NFA simulation — no backtracking), so a
// match costs O(path length x pattern size) whatever the pattern. JavaScript's RegExp (and the
// picomatch/minimatch regexes) backtrack: `*a*a*a*a*a*a*a*a*a*a*.md` against a long name took 90 s.
//
// Syntax: `*` any characters but `/`, `?` one character but `/`, `**/` any number of directories
// (zero included), a trailing `/**` everything below, `a**b` is `a*b`, `[abc]` / `[!abc]` classes,
// `{a,b}` alternatives (nested, may contain `/`), `\x` a literal x. Dotfiles match like any file.
//
// Pure (no tools or file-system dependency): the permission engine can use the same matcher
// (issue 14 §4).

/** Patterns longer than this are refused: compiling is linear in the pattern, matching too. */
export const GLOB_MAX_PATTERN_CHARS = 4096

export class GlobPatternError extends Error {
  override readonly name = 'GlobPatternError'
}

export interface GlobMatcher {
  readonly pattern: string
  /** RE2's program size: a test costs about this many steps per character of the path. */
  readonly cost: number
  /** Whether the whole path matches. */
  test(path: string): boolean
}

const SPECIAL = /[\\^$.*+?()[\]{}|/]/

function literal(ch: string): string {
  return SPECIAL.test(ch) ? `\\${ch}` : ch
}

/** The pattern as an RE2 regular expression source (anchored by the caller). */
export function globSource(pattern: string): string {
  let out = ''
  let depth = 0
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        const atStart = i === 0 || pattern[i - 1] === '/'
        const slashAfter = pattern[i + 2] === '/'
        if (atStart && slashAfter) {
          out += '(?:[^/]*/)*' // `**/`: zero or more directories
          i += 2
        } else if (atStart && i + 2 === pattern.length) {
          out += '.*' // trailing `**`: everything below
          i += 1
        } else {
          out += '[^/]*' // `a**b` is just `a*b`
          i += 1
        }
      } else {
        out += '[^/]*'
      }
    } else if (ch === '?') {
      out += '[^/]'
    } else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2)
      if (close === -1) {
        out += '\\['
      } else {
        let body = pattern.slice(i + 1, close)
        if (body.startsWith('!')) body = `^${body.slice(1)}`
        out += `[${body.replace(/\\/g, '\\\\')}]`
        i = close
      }
    } else if (ch === '{') {
      depth++
      out += '(?:'
    } else if (ch === '}' && depth > 0) {
      depth--
      out += ')'
    } else if (ch === ',' && depth > 0) {
      out += '|'
    } else if (ch === '\\' && i + 1 < pattern.length) {
      out += literal(pattern[++i]!)
    } else {
      out += literal(ch)
    }
  }
  while (depth-- > 0) out += ')'
  return out
}

/** Compile a glob; throws GlobPatternError for a pattern too long or with an invalid class. */
export function compileGlob(pattern: string): GlobMatcher {
  if (pattern.length > GLOB_MAX_PATTERN_CHARS) {
    throw new GlobPatternError(
      `the pattern is ${pattern.length} characters long, over the limit of ${GLOB_MAX_PATTERN_CHARS}`,
    )
  }
  let re: RE2JS
  try {
    // DOTALL: a name may hold any character, a newline included.
    re = RE2JS.compile(`^(?:${globSource(pattern)})$`, RE2JS.DOTALL)
  } catch (error) {
    throw new GlobPatternError(error instanceof Error ? error.message : String(error))
  }
  return { pattern, cost: Math.max(1, re.programSize()), test: (path) => re.test(path) }
}
