import { own } from './own.js'
import type { Word } from './types.js'
import { mayBeOption } from './words.js'

/**
 * A small typed description of a program's option grammar and one parser over it (issue 12 §2:
 * each program table follows the program's real option grammar). It covers what getopt_long, git's
 * parse-options and most hand-written parsers share:
 *
 * - short options, clustered (`-uo FILE`, `-ofile`), each a flag or taking a required or an
 *   optional argument (an optional one is only ever attached: `-i.bak`, `--abbrev=7`);
 * - long options `--name`, `--name=value`, `--name value` (required arguments only), and unique
 *   prefixes of long names where the program accepts them (`--out` for `--output`);
 * - `--` ends the options; a lone `-` is an operand;
 * - permutation (GNU: options may follow operands) or stopping at the first operand (POSIX, git
 *   config). A GNU program run with POSIXLY_CORRECT stops too, so judges look at both readings.
 *
 * A word that is only known at run time (`$X`, a glob that may match `-o`) may be any option; a
 * program whose grammar has options with effects is then not judged read-only.
 */

/** `two`: two separate words follow (`jq --arg NAME VALUE`). */
export type Arity = 'none' | 'required' | 'optional' | 'two'

/** What an option does beyond reading its input and printing. */
export type Effect =
  /** Writes the file named by its value (`sort -o FILE`). */
  | { readonly kind: 'writes-value' }
  /** Writes files or state in another way (`tree -R` with `-H`, `git branch -D`). */
  | { readonly kind: 'writes'; readonly why: string }
  /** Runs another program or a configured command (`sort --compress-program`, `--show-signature`). */
  | { readonly kind: 'runs'; readonly why: string }
  | { readonly kind: 'network'; readonly why: string }
  /** Not analysed (reads a script from a file, interactive, ...). */
  | { readonly kind: 'unsure'; readonly why: string }
  /** Reads the file named by its value (for the protected-path checks). */
  | { readonly kind: 'reads-value' }

export interface OptionSpec {
  readonly arity: Arity
  readonly effect?: Effect
  /** A program-specific meaning the judge looks for (`recursive`, `list`, `null-input`). */
  readonly tag?: string
}

export interface Grammar {
  readonly short: Readonly<Record<string, OptionSpec>>
  readonly long: Readonly<Record<string, OptionSpec>>
  /** Options may follow operands (GNU getopt); false: the first operand ends the options. */
  readonly permute: boolean
  /** A unique prefix of a long option names it (getopt_long, git parse-options). */
  readonly abbreviate: boolean
  /** `-5` means this option with value 5 (`head -5`, `nice -5`). */
  readonly numeric?: OptionSpec
  /**
   * Unknown options are flags (for programs with no option that writes or runs anything, where
   * the grammar only needs to know which options take a value).
   */
  readonly lenient?: boolean
}

export interface ParsedOption {
  /** `-o` or `--output` (the full long name, also when abbreviated). */
  readonly name: string
  readonly spec: OptionSpec
  readonly value?: Word
  /** The second value of a `two` option. */
  readonly second?: Word
}

export type Parsed =
  | {
      readonly ok: true
      readonly options: readonly ParsedOption[]
      readonly operands: readonly Word[]
      /** Words only known at run time that stood where an option may stand. */
      readonly unknown: readonly Word[]
    }
  | { readonly ok: false; readonly reason: string }

// Shorthands for grammar tables.
export const flag: OptionSpec = Object.freeze({ arity: 'none' })
export const arg: OptionSpec = Object.freeze({ arity: 'required' })
export const optArg: OptionSpec = Object.freeze({ arity: 'optional' })
export const tagged = (spec: OptionSpec, tag: string): OptionSpec => ({ ...spec, tag })
export const writesValue: OptionSpec = Object.freeze({
  arity: 'required',
  effect: { kind: 'writes-value' },
} as const)
export const readsValue: OptionSpec = Object.freeze({
  arity: 'required',
  effect: { kind: 'reads-value' },
} as const)
export const effect = (arity: Arity, e: Effect): OptionSpec => ({ arity, effect: e })

/** Build a grammar; `short` is getopt-style (`'ab:c::'`: a flag, b required, c optional). */
export function grammar(spec: {
  readonly short?: string
  readonly shortSpecs?: Readonly<Record<string, OptionSpec>>
  readonly long?: Readonly<Record<string, OptionSpec>>
  readonly permute?: boolean
  readonly abbreviate?: boolean
  readonly numeric?: OptionSpec
  readonly lenient?: boolean
}): Grammar {
  const short: Record<string, OptionSpec> = {}
  const s = spec.short ?? ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (s[i + 1] === ':' && s[i + 2] === ':') {
      short[c] = optArg
      i += 2
    } else if (s[i + 1] === ':') {
      short[c] = arg
      i += 1
    } else short[c] = flag
  }
  Object.assign(short, spec.shortSpecs ?? {})
  return Object.freeze({
    short: Object.freeze(short),
    long: Object.freeze({ ...(spec.long ?? {}) }),
    permute: spec.permute ?? true,
    abbreviate: spec.abbreviate ?? true,
    ...(spec.numeric !== undefined ? { numeric: spec.numeric } : {}),
    ...(spec.lenient === true ? { lenient: true } : {}),
  })
}

/** Does any option write, run or reach the network (then an unknown word may be that option)? */
export function hasEffects(g: Grammar): boolean {
  const risky = (s: OptionSpec | undefined) => s?.effect !== undefined && s.effect.kind !== 'reads-value'
  for (const s of Object.values(g.short)) if (risky(s)) return true
  for (const s of Object.values(g.long)) if (risky(s)) return true
  return risky(g.numeric)
}

/**
 * Parse `args` (the words after the program name) by `g`. `permute` overrides the grammar's
 * default (to read a GNU command as a POSIXLY_CORRECT environment would).
 */
export function parseOptions(g: Grammar, args: readonly Word[], permute = g.permute): Parsed {
  const options: ParsedOption[] = []
  const operands: Word[] = []
  const unknown: Word[] = []
  let done = false
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (done) {
      operands.push(w)
      continue
    }
    if (w.kind !== 'static') {
      if (mayBeOption(w)) unknown.push(w)
      operands.push(w)
      if (!permute && !mayBeOption(w)) done = true
      continue
    }
    const a = w.value
    if (a === '--') {
      done = true
      continue
    }
    if (!a.startsWith('-') || a === '-') {
      operands.push(w)
      if (!permute) done = true
      continue
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq)
      const found = findLong(g, name) ?? (g.lenient === true ? ([name, optArg] as const) : undefined)
      if (found === undefined) return { ok: false, reason: `option --${name} is not known` }
      const [full, spec] = found
      if (eq >= 0) {
        if (spec.arity === 'none' || spec.arity === 'two')
          return { ok: false, reason: `option --${full} takes no value` }
        options.push({ name: `--${full}`, spec, value: { kind: 'static', value: a.slice(eq + 1) } })
        continue
      }
      if (spec.arity === 'required' || spec.arity === 'two') {
        const v = args[++i]
        if (v === undefined) return { ok: false, reason: `option --${full} needs a value` }
        if (splits(v)) unknown.push(v)
        if (spec.arity === 'two') {
          const second = args[++i]
          if (second === undefined) return { ok: false, reason: `option --${full} needs two values` }
          if (splits(second)) unknown.push(second)
          options.push({ name: `--${full}`, spec, value: v, second })
          continue
        }
        options.push({ name: `--${full}`, spec, value: v })
        continue
      }
      options.push({ name: `--${full}`, spec })
      continue
    }
    // A short cluster.
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!
      const spec =
        own(g.short, c) ??
        (g.lenient === true && !(g.numeric !== undefined && c >= '0' && c <= '9') ? flag : undefined)
      if (spec === undefined) {
        if (g.numeric !== undefined && c >= '0' && c <= '9') {
          let k = j
          while (k < a.length && a[k]! >= '0' && a[k]! <= '9') k++
          options.push({ name: '-NUM', spec: g.numeric, value: { kind: 'static', value: a.slice(j, k) } })
          j = k - 1
          continue
        }
        return { ok: false, reason: `option -${c} is not known` }
      }
      if (spec.arity === 'none') {
        options.push({ name: `-${c}`, spec })
        continue
      }
      const rest = a.slice(j + 1)
      if (spec.arity === 'two') return { ok: false, reason: `option -${c} is not analysed` }
      if (rest !== '') {
        options.push({ name: `-${c}`, spec, value: { kind: 'static', value: rest } })
      } else if (spec.arity === 'required') {
        const v = args[++i]
        if (v === undefined) return { ok: false, reason: `option -${c} needs a value` }
        if (splits(v)) unknown.push(v)
        options.push({ name: `-${c}`, spec, value: v })
      } else options.push({ name: `-${c}`, spec })
      break
    }
  }
  return { ok: true, options, operands, unknown }
}

/** An unquoted glob or expansion may become several words; the next ones may be options. */
function splits(w: Word): boolean {
  return w.kind === 'glob' || (w.kind === 'dynamic' && w.split)
}

/**
 * A long option by exact name, else (when the program accepts abbreviations) by unique prefix. An
 * ambiguous prefix is an error for the program; the reading with an effect is kept (worst case).
 */
function findLong(g: Grammar, name: string): readonly [string, OptionSpec] | undefined {
  const exact = own(g.long, name)
  if (exact !== undefined) return [name, exact]
  if (!g.abbreviate || name === '') return undefined
  let found: readonly [string, OptionSpec] | undefined
  for (const [full, spec] of Object.entries(g.long)) {
    if (!full.startsWith(name)) continue
    if (found === undefined || (found[1].effect === undefined && spec.effect !== undefined))
      found = [full, spec]
  }
  return found
}

/** Options with a given tag. */
export function withTag(p: Extract<Parsed, { ok: true }>, tag: string): ParsedOption[] {
  return p.options.filter((o) => o.spec.tag === tag)
}
