import type { RE2JS } from 're2js'

// The grep fallback's matcher: RE2JS (the JavaScript port of RE2, MIT, no dependencies), whose
// matching is linear in the text (a lazy DFA within a memory budget, else an NFA simulation):
// `(a+)+$` cannot backtrack. Its syntax is RE2's, close to ripgrep's Rust regex (inline flags like
// `(?i)`, `\pL`, no look-around or back-references), closer than JavaScript's RegExp was.
//
// These two functions are also the code of the match worker (`match-worker.ts` sends their
// source): they must not use anything outside their parameters.

export interface LineSearch {
  /** Tests one line (without its `\n`). */
  readonly line: RE2JS
  /**
   * The same pattern over many lines at once (`^`/`$` at line ends): a line that matches makes
   * the text match, so a text it rejects has no matching line. Absent when the pattern could tell
   * a line from a whole text (`\A`, `\z`, a flag turned off).
   */
  readonly whole: RE2JS | undefined
  /** RE2's program size: matching costs about this many steps per character. */
  readonly cost: number
}

/** Compile for line search; throws RE2JS's syntax errors. */
export function compileLineSearch(engine: typeof RE2JS, pattern: string): LineSearch {
  const line = engine.compile(pattern)
  const unsafe = /\\[Az]|\(\?[a-zA-Z]*-/.test(pattern)
  return {
    line,
    whole: unsafe ? undefined : engine.compile(pattern, engine.MULTILINE),
    cost: Math.max(1, line.programSize()),
  }
}

/**
 * 0-based numbers of the matching lines of `text` (lines split at `\n`; a final `\n` ends the
 * last line, it does not start another). `first`: stop at the first match.
 */
export function searchLines(search: LineSearch, text: string, first: boolean): number[] {
  const found: number[] = []
  if (text === '' || (search.whole !== undefined && !search.whole.test(text))) return found
  let start = 0
  for (let index = 0; start < text.length; index++) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    if (search.line.test(text.slice(start, end))) {
      found.push(index)
      if (first) break
    }
    start = end + 1
  }
  return found
}
