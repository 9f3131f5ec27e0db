import type { InnerJudge, JudgeContext } from './context.js'
import { no, ok, unsure } from './judgement.js'
import { own } from './own.js'
import type { InnerCommand, Judgement, Word } from './types.js'
import { describeWord } from './words.js'
import { wrap } from './wrappers.js'

/**
 * npm (11): the subcommand is found as npm finds it (`deref` in npm's lib/utils/cmd-list.js):
 * exact name, alias (`i` -> install, `rm` -> uninstall, `x` -> exec), or a unique abbreviation
 * of a command or alias (`npm pu` -> publish). Read-only: listing installed packages and reading
 * configuration. `npm exec`/`npx` run another command (reported for deny rules).
 */

const COMMANDS = [
  'access',
  'adduser',
  'approve-scripts',
  'audit',
  'bugs',
  'cache',
  'ci',
  'completion',
  'config',
  'dedupe',
  'deny-scripts',
  'deprecate',
  'diff',
  'dist-tag',
  'docs',
  'doctor',
  'edit',
  'exec',
  'explain',
  'explore',
  'find-dupes',
  'fund',
  'get',
  'help',
  'help-search',
  'init',
  'install',
  'install-ci-test',
  'install-scripts',
  'install-test',
  'link',
  'll',
  'login',
  'logout',
  'ls',
  'org',
  'outdated',
  'owner',
  'pack',
  'ping',
  'pkg',
  'prefix',
  'profile',
  'prune',
  'publish',
  'query',
  'rebuild',
  'repo',
  'restart',
  'root',
  'run',
  'sbom',
  'search',
  'set',
  'shrinkwrap',
  'stage',
  'star',
  'stars',
  'start',
  'stop',
  'team',
  'test',
  'token',
  'trust',
  'undeprecate',
  'uninstall',
  'unpublish',
  'unstar',
  'update',
  'version',
  'view',
  'whoami',
]
const ALIASES: Readonly<Record<string, string>> = {
  author: 'owner',
  home: 'docs',
  issues: 'bugs',
  info: 'view',
  show: 'view',
  find: 'search',
  add: 'install',
  unlink: 'uninstall',
  remove: 'uninstall',
  rm: 'uninstall',
  r: 'uninstall',
  un: 'uninstall',
  rb: 'rebuild',
  list: 'ls',
  ln: 'link',
  create: 'init',
  i: 'install',
  it: 'install-test',
  cit: 'install-ci-test',
  u: 'update',
  up: 'update',
  c: 'config',
  s: 'search',
  se: 'search',
  tst: 'test',
  t: 'test',
  ddp: 'dedupe',
  v: 'view',
  'run-script': 'run',
  'clean-install': 'ci',
  'clean-install-test': 'install-ci-test',
  x: 'exec',
  why: 'explain',
  la: 'll',
  verison: 'version',
  ic: 'ci',
  innit: 'init',
  in: 'install',
  ins: 'install',
  inst: 'install',
  insta: 'install',
  instal: 'install',
  isnt: 'install',
  isnta: 'install',
  isntal: 'install',
  isntall: 'install',
  'install-clean': 'ci',
  'isntall-clean': 'ci',
  hlep: 'help',
  'dist-tags': 'dist-tag',
  upgrade: 'update',
  udpate: 'update',
  rum: 'run',
  sit: 'install-ci-test',
  urn: 'run',
  ogr: 'org',
  'add-user': 'adduser',
}

/** The command npm runs for `word` (npm's deref), or the word itself when npm would not know it. */
export function npmCommand(word: string): string {
  let c = word
  if (/[A-Z]/.test(c)) c = c.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`)
  if (COMMANDS.includes(c)) return c
  const alias = own(ALIASES, c)
  if (alias !== undefined) return alias
  const names = [...COMMANDS, ...Object.keys(ALIASES)]
  const matches = names.filter((n) => n.startsWith(c))
  // abbrev: a prefix names a command when it is unique (or is itself a full name).
  if (matches.length === 1) {
    const m = matches[0]!
    return own(ALIASES, m) ?? m
  }
  return word
}

// npm options that take a separate value (so the value is not the subcommand).
const VALUE_OPTIONS = new Set([
  '--prefix',
  '-C',
  '--registry',
  '--userconfig',
  '--globalconfig',
  '--cache',
  '--workspace',
  '-w',
  '--tag',
  '--otp',
  '--loglevel',
  '--access',
  '--scope',
  '--omit',
  '--include',
  '--install-strategy',
  '--script-shell',
  '--node-options',
  '--call',
  '-c',
  '--package',
  '-p',
])

/** Index of the subcommand among npm's arguments (after options and their values). */
export function npmSubcommandIndex(args: readonly (string | undefined)[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === undefined) return i
    if (a === '--') return i + 1
    if (!a.startsWith('-')) return i
    if (VALUE_OPTIONS.has(a)) i++
  }
  return args.length
}

const CONFIG_CHANGING = ['prefix', 'userconfig', 'globalconfig', 'script-shell', 'node-options', 'C']
const READING = new Set(['ls', 'll', 'root', 'prefix', 'explain', 'query', 'fund'])

export function judgeNpm(args: readonly Word[], ctx: JudgeContext, inner: InnerJudge): Judgement {
  const words: string[] = []
  for (const w of args) {
    if (w.kind !== 'static') return unsure(`npm with ${describeWord(w)} is not analysed`)
    words.push(w.value)
  }
  const at = npmSubcommandIndex(words)
  const raw = words[at]
  if (raw === undefined) {
    if (words.length > 0 && words.every((a) => a === '-v' || a === '--version'))
      return ok('npm --version only prints')
    return unsure('npm without a subcommand is not analysed')
  }
  const sub = npmCommand(raw)
  const rest = words.slice(at + 1)
  const changing = words.find((a) =>
    CONFIG_CHANGING.some((o) => a === `--${o}` || a.startsWith(`--${o}=`) || a === `-${o}`),
  )
  if (sub === 'exec') return npmExec(args.slice(at + 1), ctx, inner, 'npm exec')
  if (changing !== undefined)
    return no(`npm ${changing} changes configuration or what runs`, { subcommand: sub, unsure: true })
  // Every npm command but --version writes a debug log under ~/.npm/_logs and may ask the
  // registry whether a newer npm exists (found by the differential fuzzer).
  const config = sub === 'config' || sub === 'get'
  const action = sub === 'get' ? 'get' : (rest[0] ?? '')
  if (
    READING.has(sub) ||
    (config && ['get', 'list', 'ls'].includes(action)) ||
    (sub === 'pkg' && rest[0] === 'get')
  )
    return no(`npm ${sub} writes a log under ~/.npm/_logs and may reach the registry`, { subcommand: sub })
  if (
    ['view', 'outdated', 'search', 'audit', 'ping', 'whoami', 'doctor', 'repo', 'docs', 'bugs'].includes(sub)
  ) {
    return no(`npm ${sub} reaches the registry over the network`, { subcommand: sub })
  }
  return no(`npm ${sub} can run package scripts or change files`, { subcommand: sub })
}

/** `npm exec [opts] [--] CMD ...` and `npx`: downloads and runs a package; `-c` runs shell code. */
export function npmExec(args: readonly Word[], ctx: JudgeContext, inner: InnerJudge, via: string): Judgement {
  const runs: InnerCommand[] = []
  let i = 0
  for (; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') break
    const a = w.value
    if (a === '--') {
      i++
      break
    }
    if (!a.startsWith('-')) break
    if (a === '-c' || a === '--call') {
      const code = args[++i]
      if (code !== undefined) runs.push({ kind: 'shell', code, via: `${via} ${a}` })
      continue
    }
    if (a.startsWith('--call=')) {
      runs.push({ kind: 'shell', code: { kind: 'static', value: a.slice(7) }, via: `${via} --call` })
      continue
    }
    if (VALUE_OPTIONS.has(a)) i++
  }
  const command = args.slice(i)
  if (command.length === 0) return no(`${via} downloads and runs a package`, { runs, subcommand: 'exec' })
  const j = inner(command, { depth: ctx.depth + 1, stdin: ctx.stdin })
  return { ...wrap(via, j, command, 'downloads and runs a package', { runs }), subcommand: 'exec' }
}
