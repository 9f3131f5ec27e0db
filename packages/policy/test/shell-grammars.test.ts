import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { GIT_GRAMMARS } from '../src/shell/git.js'
import type { Arity, Grammar } from '../src/shell/options.js'
import { CHECKED_GRAMMARS } from '../src/shell/readers.js'
import { SED_GRAMMAR } from '../src/shell/sed-command.js'
import { wrapperGrammar } from '../src/shell/wrappers.js'

// Issue 12 §2: each program table follows the program's real option grammar. Every option the
// installed program lists in its own help must be in the table with the same kind of value (none,
// required, optional): otherwise the parser would take an option's value for an operand or an
// operand for a value. Lenient tables (unknown options are flags) list at least every option that
// takes a value. The programs are those of Debian 12 (.ci/run installs tree; the rest is base).

interface HelpOption {
  readonly name: string
  readonly arity: Exclude<Arity, 'two'>
}

/** Options from a help text: `-k, --key=KEYDEF`, `--check[=WORD]`, `-L level`, `--pre <CMD>`. */
function helpOptions(text: string): HelpOption[] {
  const out = new Map<string, HelpOption['arity']>()
  for (const line of text.split('\n')) {
    const m = /^\s{1,8}(-.*)$/.exec(line) // deeper lines are descriptions
    if (m === null) continue
    const head = m[1]!.trim().split(/\s{2,}|\t/)[0]!
    const tokens = head.split(/,\s*/)
    let shared: HelpOption['arity'] = 'none'
    let metavariable = false
    const names: string[] = []
    for (const t of tokens) {
      const tm = /^(--?[A-Za-z0-9][-A-Za-z0-9]*)(\[=?[^\]]*\]|=\S+| \S+)?$/.exec(t.trim())
      if (tm === null) continue
      const name = tm[1]!
      if (/^-[A-Z]{2,}$/.test(name)) continue // `-NUM`
      const value = tm[2]
      const arity = value === undefined ? 'none' : value.startsWith('[') ? 'optional' : 'required'
      if (arity !== 'none') {
        shared = arity
        metavariable = /^[=\s[\]+-]*[A-Z<#]/.test(value!) // `=KEYDEF`, `=[-]NUM`, ` <n>`
      }
      names.push(name)
      // `--check, --check=diagnose-first`: the value is optional.
      const before = out.get(name)
      if (before !== undefined && before !== arity) out.set(name, 'optional')
      else out.set(name, arity)
    }
    // `-k, --key=KEYDEF`: the short option takes what its one long option requires
    // (`-c, --check, --check=diagnose-first` and `-f, --follow[=HOW]` keep a plain short flag).
    // A literal value (`--check=quiet`) names one form of the long option only.
    const longs = new Set(names.filter((n) => n.startsWith('--')))
    if (longs.size === 1 && shared === 'required' && metavariable)
      for (const n of names) if (out.get(n) === 'none' && !n.startsWith('--')) out.set(n, shared)
  }
  return [...out].map(([name, arity]) => ({ name, arity }))
}

function help(argv: readonly string[]): string {
  const r = spawnSync(argv[0]!, argv.slice(1), {
    encoding: 'utf8',
    env: { ...process.env, LANG: 'C', COLUMNS: '200' },
  })
  return `${r.stdout}\n${r.stderr}`
}

function declared(g: Grammar, name: string): Arity | undefined {
  if (name.startsWith('--'))
    return Object.hasOwn(g.long, name.slice(2)) ? g.long[name.slice(2)]!.arity : undefined
  return Object.hasOwn(g.short, name.slice(1)) ? g.short[name.slice(1)]!.arity : undefined
}

/** The options whose table entry disagrees with the help (missing, or another arity). */
function mismatches(g: Grammar, options: readonly HelpOption[], known: readonly string[] = []): string[] {
  const out: string[] = []
  for (const o of options) {
    if (known.includes(o.name)) continue
    if (o.name === '--help' || o.name === '--version' || o.name === '-h' || o.name === '-V') continue
    const d = declared(g, o.name)
    if (d === undefined && g.lenient === true && o.arity === 'none') continue
    if (d !== o.arity) out.push(`${o.name}: help says ${o.arity}, table says ${d ?? 'unknown'}`)
  }
  return out
}

// Where a help text omits a value the program takes (checked by hand on Debian 12):
// `file -P bytes=100 /etc/hosts` takes `bytes=100` although `file --help` shows `-P, --parameter`.
// GNU xargs's `-e[END]` and `-i[R]` and git's `-t[=<mode>]` take an optional attached value,
// which the help shows only on the long option (`man xargs`; git parse-options shares it).
const HELP_OMITS: Readonly<Record<string, readonly string[]>> = {
  file: ['-P', '--parameter'],
  xargs: ['-e', '-i'],
  'git branch': ['-t'],
}

const programs: readonly (readonly [string, readonly string[], Grammar])[] = [
  ['sort', ['sort', '--help'], CHECKED_GRAMMARS.sort!],
  ['uniq', ['uniq', '--help'], CHECKED_GRAMMARS.uniq!],
  ['tee', ['tee', '--help'], CHECKED_GRAMMARS.tee!],
  ['grep', ['grep', '--help'], CHECKED_GRAMMARS.grep!],
  ['head', ['head', '--help'], CHECKED_GRAMMARS.head!],
  ['tail', ['tail', '--help'], CHECKED_GRAMMARS.tail!],
  ['cut', ['cut', '--help'], CHECKED_GRAMMARS.cut!],
  ['file', ['file', '--help'], CHECKED_GRAMMARS.file!],
  ['tree', ['tree', '--help'], CHECKED_GRAMMARS.tree!],
  ['rg', ['rg', '--help'], CHECKED_GRAMMARS.rg!],
  ['sed', ['sed', '--help'], SED_GRAMMAR],
  ['env', ['env', '--help'], wrapperGrammar('env')!],
  ['xargs', ['xargs', '--help'], wrapperGrammar('xargs')!],
  ['timeout', ['timeout', '--help'], wrapperGrammar('timeout')!],
  ['nice', ['nice', '--help'], wrapperGrammar('nice')!],
  ['stdbuf', ['stdbuf', '--help'], wrapperGrammar('stdbuf')!],
  ['setsid', ['setsid', '--help'], wrapperGrammar('setsid')!],
  ['flock', ['flock', '--help'], wrapperGrammar('flock')!],
  ['git branch', ['git', 'branch', '-h'], GIT_GRAMMARS.branch!],
  ['git tag', ['git', 'tag', '-h'], GIT_GRAMMARS.tag!],
  ['git config', ['git', 'config', '-h'], GIT_GRAMMARS.config!],
]

describe('option grammars match the installed programs', () => {
  test.each(programs)('%s', (_name, argv, g) => {
    const options = helpOptions(help(argv))
    expect(options.length, `no options parsed from ${argv.join(' ')}`).toBeGreaterThan(3)
    expect(mismatches(g, options, HELP_OMITS[_name] ?? [])).toEqual([])
  })

  test('the help reader itself: arities of a known help text', () => {
    expect(
      helpOptions(
        [
          '  -k, --key=KEYDEF          sort via a key',
          '      --check[=WORD]  check',
          '  -L level  Descend',
          '      --pre <CMD>  pre',
        ].join('\n'),
      ),
    ).toEqual([
      { name: '-k', arity: 'required' },
      { name: '--key', arity: 'required' },
      { name: '--check', arity: 'optional' },
      { name: '-L', arity: 'required' },
      { name: '--pre', arity: 'required' },
    ])
  })
})
