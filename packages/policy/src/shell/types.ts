/**
 * Result types of the shell classifier (seed 003 §8.4: parse, split compound commands, judge each
 * simple command, collect redirect targets). Fail closed: anything not understood is not read-only.
 */

/** One simple command found in the input (`git status`, `grep -rn x src`), in source order. */
export interface SimpleCommandInfo {
  /** Source text of the simple command with its env prefixes and its own redirects. */
  readonly text: string
  /**
   * Canonical text: the command's tokens (assignments, words, redirects) joined by one space, so
   * `ls  \\\n -la` and `ls -la` compare equal. Quoting inside a token is kept as written. Use it as
   * the key of per-subcommand grants.
   */
  readonly canonical: string
  /** The words after shell quote removal, present only when every word is statically known. */
  readonly argv?: readonly string[]
  /** The program name (first word) when statically known, otherwise `undefined`. */
  readonly program?: string
  /** The subcommand for subcommand-aware tools (`git status` -> `status`). */
  readonly subcommand?: string
  readonly readOnly: boolean
  /** Why it is (not) read-only; stable text, suitable for a person or the model. */
  readonly reason: string
  /** Files this command would write (redirect targets, `-o FILE`, `tee FILE`, `rm FILE` ...). */
  readonly writes: readonly string[]
}

/**
 * What `classifyCommand` returns. `readOnly: true` only when the whole command certainly cannot
 * write files, change processes or repository state, reach the network or run arbitrary code.
 */
export type CommandClassification =
  | {
      readonly readOnly: true
      readonly reason: string
      readonly commands: readonly SimpleCommandInfo[]
      readonly writes: readonly []
    }
  | {
      readonly readOnly: false
      /** The first reason found, in source order. */
      readonly reason: string
      /** Every distinct reason, in source order (`reason` is the first). */
      readonly reasons: readonly string[]
      readonly commands: readonly SimpleCommandInfo[]
      /** Every write target that is statically known (redirects and write flags). */
      readonly writes: readonly string[]
      /**
       * Present when the classifier could not fully understand the command (unknown syntax, a
       * parse error, a dynamic word where it matters): the command may be harmless, but nobody
       * checked. Absent when it is known to write, run code or reach the network.
       */
      readonly unsure?: true
    }

// ---- internal: the words and judgements the front-end and the program tables exchange ---------

/**
 * A word of a command after static resolution (quote removal, brace handling).
 *
 * - `static`: known exactly.
 * - `glob`: pathname expansion at run time. `pattern` is a bash pattern in which every character
 *   that was quoted is escaped with a backslash; `text` is the word if nothing matches.
 * - `dynamic`: only known at run time (expansions, substitutions). `prefix` is the static text
 *   before the first expansion; `split` says whether it may become several words (an unquoted
 *   expansion or a glob) or exactly one; `values`, when known, lists what it can be (a `for`
 *   variable); `path`, for `$HOME/...`, is the path it names.
 */
export type Word =
  | { readonly kind: 'static'; readonly value: string }
  | { readonly kind: 'glob'; readonly pattern: string; readonly text: string }
  | {
      readonly kind: 'dynamic'
      readonly why: string
      readonly prefix: string
      readonly split: boolean
      readonly values?: readonly Word[]
      /** `$HOME/x`: the path with `~` for the home directory (for the protected-path checks). */
      readonly path?: string
    }

export type DynamicWord = Extract<Word, { kind: 'dynamic' }>

/** A file whose content a command reads; `recursive` for a directory walked below. */
export interface ContentRead {
  readonly word: Word
  readonly recursive?: { readonly followLinks: boolean; readonly skipHidden: boolean }
}

/**
 * Code a command runs that it was given rather than found by name: `inline` (`sh -c`, `eval`,
 * `python3 -c`), `stdin` (`| sh`), `dynamic` (code computed at run time), `file` (a script).
 */
export type CodeKind = 'inline' | 'stdin' | 'dynamic' | 'file'

/** A command another command runs: its words (`xargs rm`, `timeout 5 git log`) or shell code. */
export type InnerCommand =
  | { readonly kind: 'argv'; readonly words: readonly Word[]; readonly opaque?: true }
  | { readonly kind: 'shell'; readonly code: Word; readonly via: string }

/** The verdict of the program tables on one command's words. */
export interface Judgement {
  readonly readOnly: boolean
  readonly reason: string
  /** Not understood (as opposed to known to write, run code or reach the network). */
  readonly unsure?: boolean
  readonly subcommand?: string
  /** Files it writes (statically known or not). */
  readonly writes: readonly Word[]
  /** Files whose content it reads. */
  readonly reads: readonly ContentRead[]
  /** Commands it runs (wrappers, `find -exec`, `xargs`, `sh -c`). */
  readonly runs: readonly InnerCommand[]
  /** It runs code it was given (interpreters and shells); see CodeKind. */
  readonly code?: CodeKind
  /** The program is an interpreter or a shell (never granted for a whole session). */
  readonly interpreter?: boolean
  /**
   * The program is not known, so any of its arguments may be a command it runs (`mytool rm -rf
   * x`): deny rules and destructive checks look for a command starting at every argument.
   */
  readonly opaque?: true
  /**
   * Words that may name files inside code the command runs (string literals and paths in
   * `python3 -c` code or an awk program): checked against the protected paths as reads and writes.
   */
  readonly mentions?: readonly Word[]
}
