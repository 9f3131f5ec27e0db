import type { CommandClassification, Judgement, SimpleCommandInfo, Word } from './types.js'

/**
 * What the permission engine needs beyond the public classification (internal to the package):
 * per simple command, the directory it runs in, its words, the program tables' judgement (reads,
 * writes, commands and code it runs), its redirects, and the analyses of shell code it runs
 * (`sh -c '...'`, `eval ...`).
 */

/**
 * The directory a command runs in, relative to where the whole command starts: the candidates
 * (`.`, `sub`, `/abs`, `~/x`) after the `cd`s before it, or `unknown` (`cd "$X"`, `cd -`, popd).
 * A `cd` may fail, so the directory before it stays a candidate.
 */
export interface Cwd {
  readonly dirs: readonly string[]
  readonly unknown: boolean
}

export const START: Cwd = Object.freeze({ dirs: Object.freeze(['.']), unknown: false })

export function movedAway(cwd: Cwd): boolean {
  return cwd.unknown || cwd.dirs.some((d) => d !== '.')
}

export interface CommandFacts {
  readonly info: SimpleCommandInfo
  readonly cwd: Cwd
  /** The command's words (program first) after static resolution. */
  readonly words: readonly Word[]
  readonly judgement: Judgement
  /** Sources of input redirects (`< file`). */
  readonly redirectReads: readonly Word[]
  /** Targets of output redirects, also those only known at run time. */
  readonly redirectWrites: readonly Word[]
  /** Values of environment prefixes (`A=~/x cmd`). */
  readonly assignments: readonly Word[]
  /** Analyses of the shell code the command runs. */
  readonly inner: readonly Analysis[]
}

export interface PlacedWord {
  readonly word: Word
  readonly cwd: Cwd
}

export interface Analysis {
  readonly classification: CommandClassification
  readonly facts: readonly CommandFacts[]
  /** The simple commands cover the whole input (what splitCompound requires). */
  readonly complete: boolean
  /** Redirects of compound statements (`while read l; do ...; done < f`, `(ls) > out`). */
  readonly reads: readonly PlacedWord[]
  readonly writes: readonly PlacedWord[]
  /** Something may change how globs expand (`shopt`, `GLOBIGNORE`, `set`): assume the worst. */
  readonly globOptions: boolean
}
