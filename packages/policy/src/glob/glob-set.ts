import { checkedSource, compileAnchored, type GlobOptions } from './glob-match.js'

/**
 * Many globs as one automaton: does ANY of them match? The same answer as testing each
 * `compileGlob(p, options)` in turn (it is their alternation), in one linear pass. RE2JS costs
 * about 1 µs per test of a compiled pattern however many alternatives it holds, where testing
 * the 38 default protected patterns one by one costs about 40 µs (Node 20 and 24, measured while
 * writing this): the protected-path table uses a set to skip the ordered scan for the common path
 * that matches nothing.
 */
export interface GlobSet {
  readonly patterns: readonly string[]
  test(path: string): boolean
}

export function compileGlobSet(patterns: readonly string[], options: GlobOptions = {}): GlobSet {
  if (patterns.length === 0) return { patterns, test: () => false }
  const re = compileAnchored(patterns.map((p) => `(?:${checkedSource(p)})`).join('|'), options)
  return { patterns, test: (path) => re.test(path) }
}
