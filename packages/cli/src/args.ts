// A small hand-written argv parser: options are declared once per command (the same table drives
// parsing and --help), errors say what was wrong and what to do instead.

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
  const options: Record<string, OptionValue | undefined> = {}
  const positionals: string[] = []
  let help = false
  const fail = (error: string): ParseResult => ({ ok: false, error: `toolgate ${spec.name}: ${error}` })

  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (word === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word)
      continue
    }
    let name: string
    let inline: string | undefined
    let option: OptionSpec | undefined
    if (word.startsWith('--')) {
      const eq = word.indexOf('=')
      name = eq === -1 ? word.slice(2) : word.slice(2, eq)
      inline = eq === -1 ? undefined : word.slice(eq + 1)
      option = all.find((o) => o.name === name)
    } else {
      name = word.slice(1)
      if (name.length !== 1)
        return fail(`unknown option ${word} (short options take one letter; use --long-name for long ones)`)
      option = all.find((o) => o.short === name)
    }
    if (!option)
      return fail(`unknown option ${word}${suggest(name, all)}. See \`toolgate ${spec.name} --help\`.`)
    const flag = option.short === name && !word.startsWith('--') ? `-${name}` : `--${option.name}`
    if (option === HELP) {
      help = true
      continue
    }
    if (option.kind === 'flag') {
      if (inline !== undefined) return fail(`${flag} is a switch and takes no value (got "${inline}")`)
      options[option.name] = true
      continue
    }
    let raw = inline
    if (raw === undefined) {
      const next = argv[i + 1]
      if (next === undefined || (next.startsWith('-') && next !== '-' && !/^-\d/.test(next))) {
        return fail(`${flag} needs a value${option.value ? ` ${option.value}` : ''}`)
      }
      raw = next
      i++
    }
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
