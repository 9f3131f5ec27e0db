// Argument parsing: `node:util` `parseArgs` splits argv into tokens (long and short options, inline
// `--name=value`, groups of switches like `-yc`, the `--` terminator); this file checks the tokens
// against one option table per command (the same table drives --help), so every error says what was
// wrong and what to do instead. parseArgs runs non-strict because its own strict errors name neither
// the command nor a fix (`Unknown option '--provder'`); every check it would make is made here.
import { parseArgs as tokenize } from 'node:util'

type OptionKind = 'flag' | 'string' | 'int'

export interface OptionSpec {
  /** Long name without dashes, e.g. `max-turns`. */
  readonly name: string
  readonly short?: string
  readonly kind: OptionKind
  readonly description: string
  /** Placeholder shown in help, e.g. `<n>`. */
  readonly value?: string
  readonly choices?: readonly string[]
  /** Smallest accepted value of an `int` option. */
  readonly min?: number
}

interface PositionalSpec {
  readonly name: string
  readonly description: string
  readonly required: boolean
}

export interface CommandSpec {
  readonly name: string
  readonly summary: string
  readonly options: readonly OptionSpec[]
  readonly positionals: readonly PositionalSpec[]
  /** Extra help text after the options (examples, notes). */
  readonly epilog?: string
}

type OptionValue = string | number | boolean

/** A command's arguments after a successful parse (what a command runs with). */
export interface ParsedArgs {
  readonly options: Readonly<Record<string, OptionValue | undefined>>
  readonly positionals: readonly string[]
}

export type ParseResult =
  | ({ readonly ok: true; readonly help: boolean } & ParsedArgs)
  | { readonly ok: false; readonly error: string }

const HELP: OptionSpec = { name: 'help', short: 'h', kind: 'flag', description: 'Show this help and exit.' }

/** Parse `argv` (the words after the command name) against `spec`. `--help`/`-h` is always accepted. */
export function parseArgs(spec: CommandSpec, argv: readonly string[]): ParseResult {
  const all = [...spec.options, HELP]
  const byName = new Map(all.map((o) => [o.name, o]))
  const byShort = new Map(all.flatMap((o) => (o.short ? [[o.short, o] as const] : [])))
  const options: Record<string, OptionValue | undefined> = {}
  const positionals: string[] = []
  let help = false
  const fail = (error: string): ParseResult => ({ ok: false, error: `toolgate ${spec.name}: ${error}` })

  const { tokens } = tokenize({
    args: [...argv],
    options: Object.fromEntries(
      all.map((o) => [
        o.name,
        { type: o.kind === 'flag' ? 'boolean' : 'string', ...(o.short ? { short: o.short } : {}) } as const,
      ]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value)
      continue
    }
    if (token.kind === 'option-terminator') continue
    const word = argv[token.index]!
    const short = !token.rawName.startsWith('--')
    const option = short ? byShort.get(token.rawName.slice(1)) : byName.get(token.name)
    if (!option) {
      const inGroup = short && word !== token.rawName && !word.startsWith(`${token.rawName}=`)
      return fail(
        `unknown option ${inGroup ? `${token.rawName} in ${word}` : short ? token.rawName : `--${token.name}`}${suggest(token.name, all)}. See \`toolgate ${spec.name} --help\`.`,
      )
    }
    const flag = short ? token.rawName : `--${option.name}`
    if (option === HELP) {
      help = true
      continue
    }
    if (option.kind === 'flag') {
      if (token.value !== undefined)
        return fail(`${flag} is a switch and takes no value (got "${token.value}")`)
      options[option.name] = true
      continue
    }
    // A short option's value is the next word: `-mgpt` or `-model` is a typo of --model more often
    // than a model named "odel".
    if (short && token.inlineValue === true)
      return fail(
        `unknown option ${word} (a short option takes one letter and its value as the next word: ${flag} ${option.value ?? '<value>'}; long options start with --)`,
      )
    const raw = token.value
    // `--provider --yes` is a missing value, not a provider named "--yes" (a negative number is a value).
    if (
      raw === undefined ||
      (token.inlineValue !== true && raw.startsWith('-') && raw !== '-' && !/^-\d/.test(raw))
    )
      return fail(`${flag} needs a value${option.value ? ` ${option.value}` : ''}`)
    const checked = checkValue(option, flag, raw)
    if (!checked.ok) return fail(checked.error)
    options[option.name] = checked.value
  }
  if (help) return { ok: true, options, positionals, help }

  const required = spec.positionals.filter((p) => p.required)
  if (positionals.length < required.length) {
    const missing = required[positionals.length]!
    return fail(
      `missing argument <${missing.name}> (${missing.description}). See \`toolgate ${spec.name} --help\`.`,
    )
  }
  if (positionals.length > spec.positionals.length) {
    const extra = positionals[spec.positionals.length]!
    return fail(
      spec.positionals.length === 0
        ? `unexpected argument "${extra}" (this command takes none)`
        : `unexpected extra argument "${extra}" (quote the ${spec.positionals.at(-1)!.name} if it has spaces)`,
    )
  }
  return { ok: true, options, positionals, help }
}

function checkValue(
  option: OptionSpec,
  flag: string,
  raw: string,
): { ok: true; value: OptionValue } | { ok: false; error: string } {
  if (option.kind === 'int') {
    if (!/^-?\d+$/.test(raw)) return { ok: false, error: `${flag} needs a whole number (got "${raw}")` }
    const n = Number(raw)
    if (option.min !== undefined && n < option.min) {
      return { ok: false, error: `${flag} must be at least ${option.min} (got ${n})` }
    }
    return { ok: true, value: n }
  }
  if (option.choices && !option.choices.includes(raw)) {
    return { ok: false, error: `${flag} must be one of ${option.choices.join(', ')} (got "${raw}")` }
  }
  if (raw === '') return { ok: false, error: `${flag} needs a non-empty value` }
  return { ok: true, value: raw }
}

/** " (did you mean --x?)" for a near miss, by edit distance. */
function suggest(name: string, all: readonly OptionSpec[]): string {
  let best: { name: string; d: number } | undefined
  for (const o of all) {
    const d = distance(name, o.name)
    if (d <= 2 && (!best || d < best.d)) best = { name: o.name, d }
  }
  return best ? ` (did you mean --${best.name}?)` : ''
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = tmp
    }
  }
  return row[b.length]!
}

/** The --help text of a command, generated from its spec. */
export function helpText(spec: CommandSpec): string {
  const pos = spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`)).join(' ')
  const lines = [
    `toolgate ${spec.name} — ${spec.summary}`,
    '',
    `Usage: toolgate ${spec.name} [options]${pos ? ` ${pos}` : ''}`,
  ]
  if (spec.positionals.length > 0) {
    lines.push('', 'Arguments:')
    for (const p of spec.positionals) lines.push(`  ${p.name.padEnd(24)}${p.description}`)
  }
  lines.push('', 'Options:')
  for (const o of [...spec.options, HELP]) {
    const left = `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.kind === 'flag' ? '' : ` ${o.value ?? '<value>'}`}`
    const choices = o.choices ? ` (${o.choices.join(' | ')})` : ''
    lines.push(`  ${left.padEnd(28)}${o.description}${choices}`)
  }
  if (spec.epilog) lines.push('', spec.epilog)
  return `${lines.join('\n')}\n`
}
