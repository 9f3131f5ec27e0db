import { compileGlob, type GlobMatcher } from './glob-match.js'

export interface FileGlob {
  readonly matcher: GlobMatcher
  /** The part of a walked file the glob is matched against. */
  readonly subject: (relative: string, name: string) => string
}

/**
 * ripgrep's `-g` semantics (gitignore style): a glob without a `/` matches the file name at any
 * depth; with one it matches the path relative to the search root (a leading `/` anchors it).
 */
export function fileGlob(glob: string): FileGlob {
  const trimmed = glob.endsWith('/') ? glob.slice(0, -1) : glob
  if (!trimmed.includes('/')) return { matcher: compileGlob(trimmed), subject: (_relative, name) => name }
  const matcher = compileGlob(trimmed.startsWith('/') ? trimmed.slice(1) : trimmed)
  return { matcher, subject: (relative) => relative }
}
