import type { Judgement, Word } from './types.js'

/**
 * What a program rule knows about where it runs: how deep in wrappers it is, and what its
 * standard input is (a shell with no script reads its code from there: `... | sh`, `sh <<EOF`).
 */
export interface JudgeContext {
  readonly depth: number
  readonly stdin: Stdin
}

export type Stdin =
  /** Inherited from the caller (unknown content). */
  | { readonly kind: 'inherit' }
  /** The output of the previous command of a pipeline. */
  | { readonly kind: 'pipe' }
  /** A file (`< script.sh`). */
  | { readonly kind: 'file' }
  /** A here-document or here-string, with its expanded text. */
  | { readonly kind: 'text'; readonly text: Word }

export const TOP: JudgeContext = Object.freeze({ depth: 0, stdin: Object.freeze({ kind: 'inherit' }) })

/** Judge the command `words` (program name first) run by another command. */
export type InnerJudge = (words: readonly Word[], ctx: JudgeContext) => Judgement

/** Nested wrappers (`timeout 5 nice env sudo ...`) deeper than this are not analysed. */
export const MAX_WRAP_DEPTH = 8
