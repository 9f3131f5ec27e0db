import { gitGlobals } from './git.js'
import { npmCommand, npmSubcommandIndex } from './npm.js'
import type { Word } from './types.js'

/**
 * Normal forms of commands for deny and ask rules (issue 12 §5: "a deny rule means the thing, not
 * the spelling"). Both a rule's words and every command a bash call runs are normalized the same
 * way: the program by its name (`/usr/bin/git` -> `git`), git without its global options
 * (`git --no-pager -c x=y commit` -> `git commit`), npm subcommands by what npm runs (`npm i`,
 * `npm isnt`, `npm inst` -> `npm install`), a Python module by its name (`python3 -m pip`). A word only known at run time is `null`: it may stand
 * for any number of words (an unset `$NOPE` disappears, `$ARGS` splits).
 */

export type RuleWord = string | null

export function ruleWords(words: readonly Word[]): RuleWord[] {
  return words.map((w) => (w.kind === 'static' ? w.value : null))
}

export function normalizeCommand(words: readonly RuleWord[]): RuleWord[] {
  if (words.length === 0) return []
  const first = words[0]!
  if (first === null) return [...words]
  const program = first.slice(first.lastIndexOf('/') + 1)
  const rest = words.slice(1)
  // `git-push` (the dashed form git runs from its exec path, /usr/lib/git-core/git-push) is
  // `git push`.
  const dashed = /^git-([a-z][a-z0-9-]*)$/.exec(program)
  if (dashed !== null) return normalizeCommand(['git', dashed[1]!, ...rest])
  if (program === 'git') {
    // Global options up to the subcommand; a word only known at run time stays (it may be either).
    const globals = gitGlobals(
      rest.map((w) =>
        w === null ? { kind: 'dynamic', why: '', prefix: '', split: true } : { kind: 'static', value: w },
      ),
    )
    const at = globals.problem !== undefined ? firstNonOption(rest) : globals.sub
    const kept = rest.slice(0, at).filter((w) => w === null)
    const sub = rest[at]
    if (globals.problem === undefined && typeof sub === 'string') {
      // `git -c alias.p=push p` runs `git push`; `-c help.autocorrect=...` runs the command a
      // misspelled subcommand resembles (any: null); `--config-env` sets either from a variable.
      for (const o of globals.options) {
        const v = o.value?.kind === 'static' ? o.value.value : undefined
        if (o.name === '--config-env' || (o.name === '-c' && v === undefined))
          return ['git', ...kept, null, ...rest.slice(at + 1)]
        if (o.name !== '-c' || v === undefined) continue
        const key = v.slice(0, v.includes('=') ? v.indexOf('=') : v.length).toLowerCase()
        if (
          key === `alias.${sub.toLowerCase()}` &&
          v.includes('=') &&
          !v.slice(v.indexOf('=') + 1).startsWith('!')
        )
          return normalizeCommand([
            'git',
            ...v
              .slice(v.indexOf('=') + 1)
              .trim()
              .split(/\s+/),
            ...rest.slice(at + 1),
          ])
        if (key === 'help.autocorrect') return ['git', ...kept, null, ...rest.slice(at + 1)]
      }
    }
    return ['git', ...kept, ...rest.slice(at)]
  }
  if (program === 'npm') {
    const at = npmSubcommandIndex(rest.map((w) => w ?? undefined))
    const sub = rest[at]
    if (sub === undefined || sub === null)
      return ['npm', ...rest.slice(0, at).filter((w) => w === null), ...rest.slice(at)]
    return ['npm', ...rest.slice(0, at).filter((w) => w === null), npmCommand(sub), ...rest.slice(at + 1)]
  }
  // `python3 -m pip install x` runs pip.
  if (/^python[0-9.]*$/.test(program)) {
    const m = rest.indexOf('-m')
    const mod = rest[m + 1]
    if (m >= 0 && typeof mod === 'string' && rest.slice(0, m).every((w) => w?.startsWith('-')))
      return normalizeCommand([mod, ...rest.slice(m + 2)])
  }
  return [program, ...rest]
}

function firstNonOption(words: readonly RuleWord[]): number {
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as RuleWord
    if (w === null || !w.startsWith('-')) return i
  }
  return words.length
}
