import { no, ok, unsure } from './judgement.js'
import { arg, flag, type Grammar, grammar, optArg, type Parsed, parseOptions, tagged } from './options.js'
import { own } from './own.js'
import { shellCodeFromWords } from './shell-code.js'
import type { ContentRead, InnerCommand, Judgement, Word } from './types.js'
import { describeWord, mayBeOption } from './words.js'

/**
 * git is read-only only for reading subcommands with reading options (seed 003 §8.4: `git status`
 * yes, `git push --force` no), in the starting directory. Refused everywhere:
 *
 * - global options that load other configuration or another repository (`-c`, `--config-env`,
 *   `-C`, `--git-dir`, `--work-tree`, `--exec-path=`): a config can name a pager, an fsmonitor or a
 *   diff driver, which runs arbitrary code; `-p`/`--paginate` runs the configured pager;
 * - options and placeholders that run configured programs (issue 12 §3): `--ext-diff`,
 *   `--textconv`, `--show-signature` and `%G?`-style format placeholders (they run gpg or the
 *   configured `gpg.program`), `cat-file --filters`, `grep -O` (a pager), `tag -v`;
 * - options that write (`--output`) or reach the network (`--upload-pack`, `--exec`).
 *
 * Option grammars follow git's parse-options: `git config` stops at the first non-option
 * (`git config core.fsmonitor CMD --get` sets the key), `--abbrev[=<n>]` only takes an attached
 * value (`git branch --abbrev NAME` creates NAME).
 */

// Global options (git.c handle_options). `effect` marks those that make the command not read-only.
type Global = { readonly arity: 'none' | 'required' | 'optional'; readonly why?: string }
const OTHER_CONFIG = 'can load other configuration or another repository (which can run code)'
const GLOBALS: Readonly<Record<string, Global>> = {
  '--no-pager': { arity: 'none' },
  '-P': { arity: 'none' },
  '--no-optional-locks': { arity: 'none' },
  '--literal-pathspecs': { arity: 'none' },
  '--no-replace-objects': { arity: 'none' },
  '--no-lazy-fetch': { arity: 'none' },
  '--no-advice': { arity: 'none' },
  '--glob-pathspecs': { arity: 'none' },
  '--noglob-pathspecs': { arity: 'none' },
  '--icase-pathspecs': { arity: 'none' },
  '--bare': { arity: 'none', why: OTHER_CONFIG },
  '-p': { arity: 'none', why: 'runs the configured pager' },
  '--paginate': { arity: 'none', why: 'runs the configured pager' },
  '-c': { arity: 'required', why: OTHER_CONFIG },
  '--config-env': { arity: 'required', why: OTHER_CONFIG },
  '-C': { arity: 'required', why: OTHER_CONFIG },
  '--git-dir': { arity: 'required', why: OTHER_CONFIG },
  '--work-tree': { arity: 'required', why: OTHER_CONFIG },
  '--namespace': { arity: 'required' },
  '--super-prefix': { arity: 'required', why: OTHER_CONFIG },
  '--attr-source': { arity: 'required', why: OTHER_CONFIG },
  '--exec-path': { arity: 'optional', why: OTHER_CONFIG },
  '--list-cmds': { arity: 'required' },
}

export interface GitGlobals {
  /** Global options in order (`--git-dir=x` split into name and value). */
  readonly options: readonly { readonly name: string; readonly value?: Word }[]
  /** Index of the subcommand in the words after `git` (may equal their length). */
  readonly sub: number
  /** A problem reading the globals (an unknown option, a dynamic word). */
  readonly problem?: string
}

/** Read git's global options (before the subcommand). */
export function gitGlobals(args: readonly Word[]): GitGlobals {
  const options: { name: string; value?: Word }[] = []
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') {
      if (!mayBeOption(w)) return { options, sub: i }
      return { options, sub: i, problem: `git with ${describeWord(w)} before the subcommand is not analysed` }
    }
    const a = w.value
    if (!a.startsWith('-')) return { options, sub: i }
    const eq = a.indexOf('=')
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a
    const g = own(GLOBALS, name)
    if (g === undefined) {
      // `git --version ARGS` is `git version ARGS` (git.c rewrites the word): a subcommand.
      if (a === '--version' || a === '-v') return { options, sub: i }
      if (a === '--help' || a === '-h' || a.endsWith('-path'))
        return { options: [...options, { name: a }], sub: args.length }
      return { options, sub: i, problem: `git option ${name} is not analysed` }
    }
    if (g.arity === 'none') options.push({ name })
    else if (eq > 0) options.push({ name, value: { kind: 'static', value: a.slice(eq + 1) } })
    else if (g.arity === 'optional') options.push({ name })
    else {
      const v = args[++i]
      if (v === undefined) return { options, sub: args.length, problem: `git ${name} needs a value` }
      options.push({ name, value: v })
    }
  }
  return { options, sub: args.length }
}

export function judgeGit(args: readonly Word[]): Judgement {
  const g = gitGlobals(args)
  if (g.problem !== undefined) return unsure(g.problem)
  for (const o of g.options) {
    if (o.name === '--help' || o.name === '-h') return no('git --help opens a pager or browser')
    if (o.name.endsWith('-path') && o.name !== '--exec-path') return ok(`git ${o.name} only prints`)
    if (o.name === '--exec-path' && o.value === undefined && g.sub === args.length)
      return ok('git --exec-path only prints')
    const why = own(GLOBALS, o.name)?.why
    if (why !== undefined) return no(`git ${o.name} ${why}`, { runs: g.options.flatMap(innerOfGlobal) })
  }
  const subWord = args[g.sub]
  if (subWord === undefined) return unsure('git without a subcommand is not analysed')
  if (subWord.kind !== 'static')
    return unsure(`git with a subcommand only known at run time (${describeWord(subWord)})`)
  const sub = subWord.value === '--version' || subWord.value === '-v' ? 'version' : subWord.value
  const rest = args.slice(g.sub + 1)
  // git.c turns `git SUB --help` (exactly that word first) into `git help SUB`: man or a browser.
  if (rest[0]?.kind === 'static' && rest[0].value === '--help')
    return no(`git ${sub} --help opens the manual (runs man or a browser)`)
  const v = judgeSub(sub, rest)
  return { ...v, subcommand: sub }
}

/**
 * The shell code a configuration given on the command line may make git run (for deny rules and
 * the destructive check): `-c alias.x='!cmd'`, and any other value, since many keys name programs
 * (`core.pager`, `core.fsmonitor`, `diff.external`, `gpg.program`, `credential.helper`, filter and
 * merge drivers ...); `--config-env` takes the value from a variable (code only known at run time).
 */
function innerOfGlobal(o: { name: string; value?: Word }): InnerCommand[] {
  if (o.name === '--config-env')
    return [
      {
        kind: 'shell',
        code: { kind: 'dynamic', why: 'git --config-env value', prefix: '', split: false },
        via: 'git --config-env',
      },
    ]
  if (o.name !== '-c' || o.value === undefined) return []
  if (o.value.kind !== 'static') return [{ kind: 'shell', code: o.value, via: 'git -c' }]
  const m = /^[^=]*=!?(.*)$/s.exec(o.value.value)
  return m === null || m[1]!.trim() === ''
    ? []
    : [{ kind: 'shell', code: { kind: 'static', value: m[1]! }, via: 'git -c' }]
}

// Subcommands that only read the repository (with the option checks below).
const READING = new Set([
  'status',
  'log',
  'show',
  'diff',
  'shortlog',
  'describe',
  'rev-parse',
  'rev-list',
  'ls-files',
  'ls-tree',
  'cat-file',
  'blame',
  'annotate',
  'grep',
  'show-ref',
  'for-each-ref',
  'merge-base',
  'name-rev',
  'count-objects',
  'check-ignore',
  'check-attr',
  'check-mailmap',
  'whatchanged',
  'cherry',
  'range-diff',
  'show-branch',
  'version',
  'diff-tree',
  'diff-files',
  'diff-index',
  'var',
])

// Long options that write a file, run a configured or external program, or reach the network,
// wherever they appear (any prefix counts: parse-options accepts unique abbreviations).
const DANGEROUS_LONG: readonly (readonly [string, string])[] = [
  ['output', 'writes a file'],
  ['ext-diff', 'runs the configured external diff program'],
  ['textconv', 'runs the configured textconv program'],
  ['show-signature', 'runs gpg (or the configured gpg.program) to verify signatures'],
  ['open-files-in-pager', 'runs a pager'],
  ['exec', 'runs a program'],
  ['upload-pack', 'runs a program and reaches a remote'],
  ['receive-pack', 'runs a program and reaches a remote'],
  ['remote', 'reaches a remote'],
]

/** Placeholders of --format/--pretty that verify signatures (`%G?`, `%GS`, `%GK`, `%(signature)`). */
const SIGNATURE_PLACEHOLDER = /(^|[^%])(%%)*%(G|\(signature)/

function dangerous(sub: string, rest: readonly Word[]): Judgement | undefined {
  for (const w of rest) {
    // A glob word (`--format=%G?`) is passed as written when nothing matches it.
    if (w.kind === 'dynamic') continue
    const a = w.kind === 'static' ? w.value : w.text
    if (a === '--') break
    if (SIGNATURE_PLACEHOLDER.test(a))
      return no(
        `git ${sub} format placeholder ${a.match(/%(G.?|\(signature)/)?.[0] ?? '%G'} runs gpg to verify signatures`,
      )
    if (a.startsWith('--')) {
      const n = name(a)
      if (n === '') continue
      if (sub === 'cat-file' && n.length >= 3 && 'filters'.startsWith(n))
        return no('git cat-file --filters runs the configured filter programs')
      for (const [long, why] of DANGEROUS_LONG) {
        if (n.length >= 3 && long.startsWith(n)) {
          const writes =
            long === 'output' && a.includes('=')
              ? [{ kind: 'static' as const, value: a.slice(a.indexOf('=') + 1) }]
              : []
          const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : ''
          const runs: InnerCommand[] =
            long === 'open-files-in-pager' || long === 'exec' || long.endsWith('-pack')
              ? value === ''
                ? []
                : [{ kind: 'shell', code: { kind: 'static', value }, via: `git ${sub} --${long}` }]
              : []
          return no(`git ${sub} --${long} ${why}`, { writes, runs })
        }
      }
      continue
    }
    if (sub === 'grep' && /^-[^-]*O/.test(a)) {
      // `-OCMD` (attached, optional value) names the pager to run.
      const cmd = a.slice(a.indexOf('O') + 1)
      return no('git grep -O runs a pager', {
        runs: cmd === '' ? [] : [{ kind: 'shell', code: { kind: 'static', value: cmd }, via: 'git grep -O' }],
      })
    }
    if (sub === 'archive' && /^-[^-]*o/.test(a)) return no('git archive -o writes a file')
    if (sub === 'tag' && /^-[^-]*v/.test(a)) return no('git tag -v runs gpg to verify signatures')
  }
  return undefined
}

const name = (a: string) => a.slice(2).split('=', 1)[0]!

/** A word that may be an option (and so `--output` or `--ext-diff`) before `--`. */
function firstUnknownOption(rest: readonly Word[]): Word | undefined {
  for (const w of rest) {
    if (w.kind === 'static') {
      if (w.value === '--') return undefined
      continue
    }
    // A glob may match a file named like any option (`--o*` and a file `--output=x`).
    if (mayBeOption(w)) return w
  }
  return undefined
}

function judgeSub(sub: string, rest: readonly Word[]): Judgement {
  const d = dangerous(sub, rest)
  if (d !== undefined) return d
  const unknown = firstUnknownOption(rest)
  if (READING.has(sub) || sub === 'stash' || sub === 'reflog') {
    if (unknown !== undefined)
      return unsure(
        `git ${sub} with ${describeWord(unknown)} where an option may stand could expand to a writing option`,
      )
  }
  if (READING.has(sub))
    return ok(`git ${sub} only reads the repository`, { reads: gitContentReads(sub, rest) })
  switch (sub) {
    case 'branch':
      return listing(sub, BRANCH, rest)
    case 'tag':
      return listing(sub, TAG, rest)
    case 'remote':
      return judgeRemote(rest)
    case 'config':
      return judgeConfig(rest)
    case 'stash': {
      const action = staticOf(rest[0])
      if (action === 'list' || action === 'show') return ok(`git stash ${action} only reads`)
      return no('git stash changes the working tree')
    }
    case 'worktree': {
      const action = staticOf(rest[0])
      if (
        action === 'list' &&
        rest.length <= 3 &&
        rest.slice(1).every((w) => ['-v', '--verbose', '--porcelain', '-z'].includes(staticOf(w) ?? ''))
      )
        return ok('git worktree list only reads')
      return no(`git worktree ${action ?? ''} changes worktrees`.replace(/ +changes/, ' changes'))
    }
    case 'reflog': {
      const action = staticOf(rest[0])
      if (action === undefined || action === 'show' || (action.startsWith('-') && action !== '--'))
        return ok('git reflog show only reads')
      if (action === 'expire' || action === 'delete') return no(`git reflog ${action} changes the reflog`)
      if (action === 'exists') return ok('git reflog exists only reads')
      return ok('git reflog show only reads')
    }
    case 'archive':
      // Without --output/--remote/--exec (refused above) the archive goes to stdout.
      return unknown === undefined
        ? ok('git archive writes the archive to standard output only')
        : unsure(`git archive with ${describeWord(unknown)} where an option may stand is not analysed`)
    case 'bisect':
      if (staticOf(rest[0]) === 'run')
        return no('git bisect run runs a command', { runs: [{ kind: 'argv', words: rest.slice(1) }] })
      return no('git bisect changes the checked-out commit')
    case 'rebase':
      return no('git rebase rewrites history', { runs: rebaseExec(rest) })
    case 'submodule':
      if (staticOf(rest[0]) === 'foreach')
        return no('git submodule foreach runs a command in every submodule', {
          runs: shellCodeFromWords(
            rest
              .slice(1)
              .filter(
                (w) => staticOf(w) !== '--recursive' && staticOf(w) !== '-q' && staticOf(w) !== '--quiet',
              ),
            'git submodule foreach',
          ),
        })
      return no('git submodule reaches the network or changes the repository')
    case 'fetch':
    case 'pull':
    case 'push':
    case 'clone':
    case 'ls-remote':
      return no(`git ${sub} reaches the network or changes the repository`)
    case 'help':
      return no('git help opens a pager or browser')
    case 'verify-commit':
    case 'verify-tag':
      return no(`git ${sub} runs gpg to verify signatures`)
    default:
      return no(`git ${sub} is not a reading subcommand`)
  }
}

const staticOf = (w: Word | undefined): string | undefined => (w?.kind === 'static' ? w.value : undefined)

function rebaseExec(rest: readonly Word[]): InnerCommand[] {
  const out: InnerCommand[] = []
  for (let i = 0; i < rest.length; i++) {
    const a = staticOf(rest[i])
    if (a === '-x' || a === '--exec') {
      const code = rest[i + 1]
      if (code !== undefined) out.push({ kind: 'shell', code, via: `git rebase ${a}` })
    } else if (a?.startsWith('--exec='))
      out.push({ kind: 'shell', code: { kind: 'static', value: a.slice(7) }, via: 'git rebase --exec' })
  }
  return out
}

// git branch / git tag grammars (git 2.39 `git branch -h`, `git tag -h`); tags mark modes that
// change refs, and the filters that imply --list (`git branch --contains HEAD x` lists). `--abbrev[=<n>]`, `--color[=<when>]`, `--column[=<style>]`, `-t[=<mode>]` and tag's
// `-n[<n>]` take only attached values.
const BRANCH: Grammar = grammar({
  short: 'vqarlif',
  shortSpecs: {
    t: tagged(optArg, 'changes'),
    u: tagged(arg, 'changes'),
    d: tagged(flag, 'changes'),
    D: tagged(flag, 'changes'),
    m: tagged(flag, 'changes'),
    M: tagged(flag, 'changes'),
    c: tagged(flag, 'changes'),
    C: tagged(flag, 'changes'),
    f: tagged(flag, 'changes'),
    l: tagged(flag, 'list'),
  },
  long: {
    verbose: flag,
    quiet: flag,
    track: tagged(optArg, 'changes'),
    'no-track': tagged(flag, 'changes'),
    'set-upstream-to': tagged(arg, 'changes'),
    'unset-upstream': tagged(flag, 'changes'),
    color: optArg,
    'no-color': flag,
    remotes: flag,
    contains: tagged(arg, 'list'),
    'no-contains': tagged(arg, 'list'),
    abbrev: optArg,
    'no-abbrev': flag,
    all: flag,
    delete: tagged(flag, 'changes'),
    move: tagged(flag, 'changes'),
    copy: tagged(flag, 'changes'),
    list: tagged(flag, 'list'),
    'show-current': flag,
    'create-reflog': tagged(flag, 'changes'),
    'edit-description': tagged(flag, 'changes'),
    force: tagged(flag, 'changes'),
    merged: tagged(arg, 'list'),
    'no-merged': tagged(arg, 'list'),
    column: optArg,
    'no-column': flag,
    sort: arg,
    'points-at': tagged(arg, 'list'),
    'ignore-case': flag,
    'omit-empty': flag,
    'recurse-submodules': tagged(flag, 'changes'),
    format: arg,
  },
})

const TAG: Grammar = grammar({
  short: 'i',
  shortSpecs: {
    l: tagged(flag, 'list'),
    n: optArg,
    d: tagged(flag, 'changes'),
    v: tagged(flag, 'changes'),
    a: tagged(flag, 'changes'),
    m: tagged(arg, 'changes'),
    F: tagged(arg, 'changes'),
    e: tagged(flag, 'changes'),
    s: tagged(flag, 'changes'),
    u: tagged(arg, 'changes'),
    f: tagged(flag, 'changes'),
  },
  long: {
    list: tagged(flag, 'list'),
    delete: tagged(flag, 'changes'),
    verify: tagged(flag, 'changes'),
    annotate: tagged(flag, 'changes'),
    message: tagged(arg, 'changes'),
    file: tagged(arg, 'changes'),
    edit: tagged(flag, 'changes'),
    sign: tagged(flag, 'changes'),
    'no-sign': flag,
    cleanup: tagged(arg, 'changes'),
    'local-user': tagged(arg, 'changes'),
    force: tagged(flag, 'changes'),
    'create-reflog': tagged(flag, 'changes'),
    column: optArg,
    'no-column': flag,
    contains: tagged(arg, 'list'),
    'no-contains': tagged(arg, 'list'),
    merged: tagged(arg, 'list'),
    'no-merged': tagged(arg, 'list'),
    sort: arg,
    'points-at': tagged(arg, 'list'),
    format: arg,
    color: optArg,
    'ignore-case': flag,
    'omit-empty': flag,
  },
})

/** `git branch`/`git tag`: listing only; an operand creates a branch or tag unless `--list`. */
function listing(sub: string, g: Grammar, rest: readonly Word[]): Judgement {
  const p = parseOptions(g, rest)
  if (!p.ok) return unsure(`git ${sub}: ${p.reason}`)
  if (p.unknown.length > 0)
    return unsure(`git ${sub} with ${describeWord(p.unknown[0]!)} where an option may stand is not analysed`)
  const changing = p.options.find((o) => o.spec.tag === 'changes')
  if (changing !== undefined) return no(`git ${sub} ${changing.name} is not a listing option`)
  const list = p.options.some((o) => o.spec.tag === 'list' || (sub === 'tag' && o.name === '-n'))
  if (p.operands.length > 0 && !list) return no(`git ${sub} ${describeWord(p.operands[0]!)} creates a ${sub}`)
  return ok(`git ${sub} only lists`)
}

function judgeRemote(rest: readonly Word[]): Judgement {
  const words = rest.map(staticOf)
  if (words.some((w) => w === undefined))
    return unsure('git remote with a word only known at run time is not analysed')
  const verbose = (w: string | undefined) => w === '-v' || w === '--verbose'
  let i = 0
  while (verbose(words[i])) i++
  const action = words[i]
  if (action === undefined) return ok('git remote lists remotes')
  if (action === 'get-url') {
    const opts = words.slice(i + 1).filter((w) => w!.startsWith('-'))
    if (opts.every((o) => o === '--push' || o === '--all'))
      return ok('git remote get-url only reads configuration')
  }
  if (action === 'show' && words.slice(i + 1).some((w) => w === '-n'))
    return ok('git remote show -n only reads configuration')
  return no(`git remote ${action} changes remotes or reaches the network`)
}

// git config (2.39): options stop at the first non-option (PARSE_OPT_STOP_AT_NON_OPTION).
const CONFIG: Grammar = grammar({
  permute: false,
  short: 'lz',
  shortSpecs: { f: tagged(arg, 'file'), e: tagged(flag, 'write'), t: arg },
  long: {
    global: tagged(flag, 'global'),
    system: tagged(flag, 'system'),
    local: flag,
    worktree: flag,
    file: tagged(arg, 'file'),
    blob: arg,
    get: tagged(flag, 'read'),
    'get-all': tagged(flag, 'read'),
    'get-regexp': tagged(flag, 'read'),
    'get-urlmatch': tagged(flag, 'read'),
    'get-color': tagged(flag, 'read'),
    'get-colorbool': tagged(flag, 'read'),
    list: tagged(flag, 'read'),
    'replace-all': tagged(flag, 'write'),
    add: tagged(flag, 'write'),
    unset: tagged(flag, 'write'),
    'unset-all': tagged(flag, 'write'),
    'rename-section': tagged(flag, 'write'),
    'remove-section': tagged(flag, 'write'),
    edit: tagged(flag, 'write'),
    'fixed-value': flag,
    type: arg,
    'no-type': flag,
    bool: flag,
    int: flag,
    'bool-or-int': flag,
    'bool-or-str': flag,
    path: flag,
    'expiry-date': flag,
    null: flag,
    'name-only': flag,
    includes: flag,
    'no-includes': flag,
    'show-origin': flag,
    'show-scope': flag,
    default: arg,
  },
})

function judgeConfig(rest: readonly Word[]): Judgement {
  const first = staticOf(rest[0])
  // git 2.46+ subcommands; older gits reject `get`/`list` as a key without a section.
  if (first === 'get' || first === 'list') return judgeConfigAction(first, rest.slice(1))
  const p = parseOptions(CONFIG, rest)
  if (!p.ok) return unsure(`git config: ${p.reason}`)
  if (p.unknown.length > 0 || p.operands.some((w) => w.kind !== 'static'))
    return unsure('git config with a word only known at run time is not analysed')
  const target = configFile(p)
  const writeWhy = `git config ${target === undefined ? '' : `(${describeWord(target)}) `}changes configuration`
  const writes = target === undefined ? [] : [target]
  const write = p.options.find((o) => o.spec.tag === 'write')
  if (write !== undefined) return no(`${writeWhy} (${write.name})`, { writes })
  const read = p.options.find((o) => o.spec.tag === 'read')
  if (read !== undefined) return ok(`git config ${read.name} only reads configuration`)
  // No action: one operand reads the key, two or more set it.
  if (p.operands.length === 1) return ok('git config NAME only reads configuration')
  if (p.operands.length === 0) return unsure('git config without a key is not analysed')
  return no(`${writeWhy} (sets ${describeWord(p.operands[0]!)})`, { writes })
}

function judgeConfigAction(action: string, rest: readonly Word[]): Judgement {
  const p = parseOptions(CONFIG, rest, true)
  if (!p.ok) return unsure(`git config ${action}: ${p.reason}`)
  if (p.options.some((o) => o.spec.tag === 'write')) return no(`git config ${action} with a writing option`)
  return ok(`git config ${action} only reads configuration`)
}

/** The file a `git config` write changes: `--file X`, `--global`, else the repository's config. */
function configFile(p: Extract<Parsed, { ok: true }>): Word | undefined {
  const file = p.options.find((o) => o.spec.tag === 'file')
  if (file?.value !== undefined) return file.value
  if (p.options.some((o) => o.spec.tag === 'global')) return { kind: 'static', value: '~/.gitconfig' }
  if (p.options.some((o) => o.spec.tag === 'system')) return { kind: 'static', value: '/etc/gitconfig' }
  return { kind: 'static', value: '.git/config' }
}

/** git subcommand grammars, for the tests that check them against `git <sub> -h`. */
export const GIT_GRAMMARS: Readonly<Record<string, Grammar>> = { branch: BRANCH, tag: TAG, config: CONFIG }

/**
 * Files whose content a reading subcommand prints without naming them as a path (issue 12 §4):
 * `REV:PATH` and `:N:PATH` object names (`git show HEAD:.env`, `git cat-file -p :.env`) read PATH
 * as committed or staged; `git grep` reads every file below its pathspecs (the whole tree without
 * one), tracked or, with `--no-index`/`--untracked`, not. Object paths are relative to the top of
 * the repository (`./` relative to the current directory); both are checked from where the command
 * runs.
 */
function gitContentReads(sub: string, rest: readonly Word[]): ContentRead[] {
  const reads: ContentRead[] = []
  let afterDashes = false
  const pathspecs: Word[] = []
  for (const w of rest) {
    if (w.kind === 'static' && w.value === '--' && !afterDashes) {
      afterDashes = true
      continue
    }
    if (afterDashes) {
      pathspecs.push(w)
      continue
    }
    if (w.kind !== 'static' || w.value.startsWith('-')) continue
    const path = objectPath(w.value)
    if (path !== undefined) reads.push({ word: { kind: 'static', value: path === '' ? '.' : path } })
  }
  if (sub === 'grep') {
    const recursive = { followLinks: false, skipHidden: false }
    const roots = pathspecs.length > 0 ? pathspecs : [{ kind: 'static' as const, value: '.' }]
    for (const w of roots) reads.push({ word: w, recursive })
  }
  return reads
}

/** The PATH of `REV:PATH`, `:PATH` or `:N:PATH` (not `:/message`), or undefined. */
function objectPath(name: string): string | undefined {
  const stage = /^:[0-3]:(.*)$/s.exec(name)
  if (stage !== null) return stage[1]!
  if (name.startsWith(':/')) return undefined
  // The first `:` outside a reflog selector `@{...}` ends the revision.
  let depth = 0
  for (let i = 0; i < name.length; i++) {
    const c = name[i]
    if (c === '{') depth++
    else if (c === '}') depth = Math.max(0, depth - 1)
    else if (c === ':' && depth === 0) return name.slice(i + 1)
  }
  return undefined
}
