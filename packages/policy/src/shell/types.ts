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

/** A word of a command after static resolution. */
export type Word =
  | { readonly kind: 'static'; readonly value: string }
  | { readonly kind: 'dynamic'; readonly why: string }

/** The verdict of one program rule on its arguments. */
export type Verdict =
  | { readonly readOnly: true; readonly reason: string; readonly subcommand?: string }
  | {
      readonly readOnly: false
      readonly reason: string
      readonly subcommand?: string
      readonly writes?: readonly string[]
      readonly unsure?: true
    }
