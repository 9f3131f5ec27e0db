import { judgeAwkProgram } from './awk.js'
import { isSafeEnvAssignment } from './env.js'
import { judgeGit } from './git.js'
import { judgeSedScript } from './sed.js'
import type { Verdict, Word } from './types.js'

/**
 * The read-only program table (seed 003 §8.4 "subcommand awareness"). A program absent from it is
 * not read-only. Each entry decides from the words after the program name:
 *
 * - `reader`: reads only, whatever its flags; dynamic words (`$X`, `$(...)`, globs) are fine because
 *   no flag or operand of it writes, runs code or opens the network.
 * - `flags`: reads only unless a listed short flag or long option (any unambiguous prefix, since
 *   GNU getopt accepts `--out` for `--output`) appears; dynamic words are refused because they could
 *   expand to such a flag.
 * - a custom function for tools whose operands matter (git, sed, awk, uniq, env, xargs ...).
 */
export type Args = readonly Word[]
type Rule =
  | { readonly kind: 'reader' }
  | {
      readonly kind: 'flags'
      readonly short?: string
      readonly long?: readonly string[]
      readonly why: string
      /** Writes the file named by the listed flag's value (`sort -o FILE`). */
      readonly writesWith?: string
    }
  | { readonly kind: 'custom'; readonly judge: (args: Args, depth: number) => Verdict }
  | { readonly kind: 'never'; readonly why: string }

const ok = (reason: string, subcommand?: string): Verdict =>
  subcommand === undefined ? { readOnly: true, reason } : { readOnly: true, reason, subcommand }
export const no = (
  reason: string,
  extra: { writes?: string[]; unsure?: true; subcommand?: string } = {},
): Verdict => ({
  readOnly: false,
  reason,
  ...extra,
})

const reader: Rule = { kind: 'reader' }
const never = (why: string): Rule => ({ kind: 'never', why })
const custom = (judge: (args: Args, depth: number) => Verdict): Rule => ({ kind: 'custom', judge })

export function firstDynamic(args: Args): Extract<Word, { kind: 'dynamic' }> | undefined {
  for (const a of args) if (a.kind === 'dynamic') return a
  return undefined
}

export function staticArgs(args: Args): string[] | undefined {
  const out: string[] = []
  for (const a of args) {
    if (a.kind === 'dynamic') return undefined
    out.push(a.value)
  }
  return out
}

/** Does `arg` set one of the short flags in `short` or a long option in `long` (by prefix)? */
export function hitsFlag(arg: string, short: string, long: readonly string[]): string | undefined {
  if (arg.startsWith('--')) {
    const name = arg.slice(2).split('=', 1)[0]!
    if (name === '') return undefined
    for (const l of long) if (l.startsWith(name)) return `--${l}`
    return undefined
  }
  if (arg.startsWith('-') && arg.length > 1) {
    for (const c of arg.slice(1)) if (short.includes(c)) return `-${c}`
  }
  return undefined
}

const PAGER_OR_EDITOR = never('interactive pagers and editors can run shell commands and need a terminal')
const DAEMON = never(
  'talks to a daemon or cluster API (possibly remote) that holds state outside the workspace; treated as network access',
)
const NETWORK = never('reaches the network')
const SHELL = never('runs arbitrary code')
const WRAPPER = never('runs another command with changed privileges, scheduling or environment')

// Programs that write their operands (so the permission engine sees the paths they touch).
const WRITERS: Readonly<Record<string, 'all' | 'last'>> = {
  rm: 'all',
  rmdir: 'all',
  mkdir: 'all',
  touch: 'all',
  truncate: 'all',
  shred: 'all',
  chmod: 'all',
  chown: 'all',
  chgrp: 'all',
  unlink: 'all',
  cp: 'last',
  mv: 'last',
  ln: 'last',
  install: 'last',
  rsync: 'last',
  scp: 'last',
}

const TABLE = {
  // Pure readers.
  cat: reader,
  tac: reader,
  ls: reader,
  dir: reader,
  wc: reader,
  head: reader,
  tail: reader, // -f blocks until the bash timeout, but never writes
  pwd: reader,
  echo: reader,
  basename: reader,
  dirname: reader,
  realpath: reader,
  readlink: reader,
  stat: reader,
  du: reader,
  df: reader,
  which: reader,
  whereis: reader,
  type: reader,
  true: reader,
  false: reader,
  ':': reader,
  grep: reader,
  egrep: reader,
  fgrep: reader,
  cmp: reader,
  diff: reader,
  nl: reader,
  cut: reader,
  tr: reader,
  rev: reader,
  id: reader,
  whoami: reader,
  groups: reader,
  uname: reader,
  nproc: reader,
  arch: reader,
  printenv: reader,
  md5sum: reader,
  sha1sum: reader,
  sha256sum: reader,
  sha512sum: reader,
  b2sum: reader,
  cksum: reader,
  base64: reader,
  comm: reader,
  paste: reader,
  fold: reader,
  column: reader,
  expand: reader,
  unexpand: reader,
  od: reader,
  hexdump: reader,
  strings: reader,
  seq: reader,
  sleep: reader,
  expr: reader,
  locale: reader,
  jq: reader, // jq cannot write files or run programs
  cd: reader, // changes only this shell's directory; git after cd is refused (see classify.ts)
  // Readers with writing or code-running flags.
  sort: {
    kind: 'flags',
    short: 'oT',
    long: ['output', 'compress-program', 'temporary-directory'],
    why: 'writes a file or runs a compressor',
    writesWith: 'o',
  },
  rg: {
    kind: 'flags',
    short: 'z',
    long: ['pre', 'pre-glob', 'hostname-bin', 'search-zip'],
    why: 'runs external programs',
  },
  file: { kind: 'flags', short: 'C', long: ['compile'], why: 'compiles a magic file (writes)' },
  tree: { kind: 'flags', short: 'o', long: ['output'], why: 'writes its listing to a file', writesWith: 'o' },
  ps: reader,
  find: custom(judgeFind),
  fd: { kind: 'flags', short: 'xX', long: ['exec', 'exec-batch'], why: 'runs a command per match' },
  git: custom((args) => judgeGit(args)),
  sed: custom((args) => judgeSed(args)),
  awk: custom((args) => judgeAwk(args)),
  gawk: custom((args) => judgeAwk(args)),
  mawk: custom((args) => judgeAwk(args)),
  uniq: custom(judgeUniq),
  tee: custom(judgeTee),
  printf: custom(judgePrintf),
  date: custom(judgeDate),
  test: custom(judgeTest),
  '[': custom(judgeTest),
  env: custom(judgeEnv),
  command: custom(judgeCommandBuiltin),
  xargs: custom(judgeXargs),
  npm: custom(judgeNpm),
  hostname: custom((args) =>
    args.length === 0
      ? ok('hostname prints the host name')
      : no('hostname with operands can set the host name', { unsure: true }),
  ),
  // Explicitly not read-only, with a reason better than "not in the table".
  less: PAGER_OR_EDITOR,
  more: PAGER_OR_EDITOR,
  most: PAGER_OR_EDITOR,
  vi: PAGER_OR_EDITOR,
  vim: PAGER_OR_EDITOR,
  nvim: PAGER_OR_EDITOR,
  view: PAGER_OR_EDITOR,
  nano: PAGER_OR_EDITOR,
  pico: PAGER_OR_EDITOR,
  emacs: PAGER_OR_EDITOR,
  ed: PAGER_OR_EDITOR,
  ex: PAGER_OR_EDITOR,
  man: PAGER_OR_EDITOR,
  docker: DAEMON,
  podman: DAEMON,
  kubectl: DAEMON,
  helm: DAEMON,
  curl: NETWORK,
  wget: NETWORK,
  ssh: NETWORK,
  nc: NETWORK,
  ncat: NETWORK,
  telnet: NETWORK,
  ping: NETWORK,
  sh: SHELL,
  bash: SHELL,
  zsh: SHELL,
  dash: SHELL,
  fish: SHELL,
  eval: SHELL,
  exec: never('replaces the shell with another program'),
  source: SHELL,
  '.': SHELL,
  node: SHELL,
  python: SHELL,
  python3: SHELL,
  perl: SHELL,
  ruby: SHELL,
  php: SHELL,
  builtin: never('runs a shell builtin, which may change shell state'),
  alias: never('defines an alias that can shadow any command'),
  sudo: WRAPPER,
  doas: WRAPPER,
  su: WRAPPER,
  nohup: WRAPPER,
  time: WRAPPER,
  timeout: WRAPPER,
  nice: WRAPPER,
  ionice: WRAPPER,
  stdbuf: WRAPPER,
  setsid: WRAPPER,
  watch: WRAPPER,
  strace: WRAPPER,
  chroot: WRAPPER,
  unshare: WRAPPER,
  flock: WRAPPER,
  kill: never('sends signals to processes'),
  pkill: never('sends signals to processes'),
  killall: never('sends signals to processes'),
} satisfies Record<string, Rule>

const RULES: ReadonlyMap<string, Rule> = new Map(Object.entries(TABLE))

const MAX_WRAP_DEPTH = 4

export function judgeProgram(name: Word, args: Args, depth = 0): Verdict {
  if (name.kind === 'dynamic') {
    return no(`the command name is only known at run time (${name.why})`, { unsure: true })
  }
  const program = name.value
  if (program.includes('/')) {
    return no(`'${program}' is run by path; only programs looked up by name are judged read-only`, {
      unsure: true,
    })
  }
  const rule = RULES.get(program)
  if (rule === undefined) {
    const mode = WRITERS[program]
    if (mode !== undefined) {
      const operands = (staticArgs(args) ?? []).filter((a) => !a.startsWith('-'))
      const writes = mode === 'all' ? operands : operands.slice(-1)
      return no(`${program} changes files`, { writes })
    }
    return no(`'${program}' is not in the read-only table`, { unsure: true })
  }
  switch (rule.kind) {
    case 'reader':
      return ok(`${program} only reads`)
    case 'never':
      return no(`${program}: ${rule.why}`)
    case 'flags': {
      const dynamic = firstDynamic(args)
      if (dynamic !== undefined) {
        return no(`${program} with a dynamic argument (${dynamic.why}) could expand to a writing flag`, {
          unsure: true,
        })
      }
      const list = staticArgs(args) ?? []
      for (let i = 0; i < list.length; i++) {
        const hit = hitsFlag(list[i]!, rule.short ?? '', rule.long ?? [])
        if (hit !== undefined) {
          const writes: string[] = []
          if (rule.writesWith !== undefined && hit === `-${rule.writesWith}`) {
            const a = list[i]!
            const at = a.indexOf(rule.writesWith)
            const attached = a.slice(at + 1)
            const target = attached !== '' ? attached : list[i + 1]
            if (target !== undefined) writes.push(target)
          } else if (rule.writesWith !== undefined && hit.startsWith('--') && list[i]!.includes('=')) {
            writes.push(list[i]!.slice(list[i]!.indexOf('=') + 1))
          }
          return no(`${program} ${hit} ${rule.why}`, writes.length > 0 ? { writes } : {})
        }
      }
      return ok(`${program} only reads`)
    }
    case 'custom':
      if (depth > MAX_WRAP_DEPTH) return no(`${program}: commands nested too deep`, { unsure: true })
      return rule.judge(args, depth)
  }
}

// ---- custom rules ----------------------------------------------------------------------------

const FIND_ACTIONS = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
])

function judgeFind(args: Args): Verdict {
  // Actions first: `find . -exec rm {} \\;` is refused for -exec, not for the `{}` it also holds.
  for (const a of args) {
    if (a.kind === 'static' && FIND_ACTIONS.has(a.value)) {
      const v = a.value
      return no(
        `find ${v} ${v.startsWith('-f') ? 'writes a file' : v === '-delete' ? 'deletes files' : 'runs a command'}`,
      )
    }
  }
  const dynamic = firstDynamic(args)
  if (dynamic !== undefined)
    return no(`find with a dynamic argument (${dynamic.why}) could expand to an action`, { unsure: true })
  return ok('find without actions only reads')
}

function judgeSed(args: Args): Verdict {
  const list = staticArgs(args)
  if (list === undefined)
    return no(`sed with a dynamic argument (${firstDynamic(args)!.why}) is not analysed`, { unsure: true })
  const scripts: string[] = []
  const positionals: string[] = []
  let endOfOptions = false
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!
    if (endOfOptions || !a.startsWith('-') || a === '-') {
      positionals.push(a)
      continue
    }
    if (a === '--') {
      endOfOptions = true
      continue
    }
    const hit = hitsFlag(a, 'i', ['in-place'])
    if (hit !== undefined) return no(`sed ${hit} edits files in place`, { writes: positionals })
    if (a.startsWith('--')) {
      const [optName, value] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
      if ('expression'.startsWith(optName)) {
        const v = value ?? list[++i]
        if (v === undefined) return no('sed --expression without a script', { unsure: true })
        scripts.push(v)
        continue
      }
      if ('file'.startsWith(optName))
        return no('sed -f reads its script from a file that is not analysed', { unsure: true })
      if (
        [
          'quiet',
          'silent',
          'regexp-extended',
          'separate',
          'unbuffered',
          'null-data',
          'posix',
          'debug',
          'sandbox',
          'zero-terminated',
          'line-length',
        ].some((o) => o.startsWith(optName))
      )
        continue
      return no(`sed option --${optName} is not analysed`, { unsure: true })
    }
    // Short cluster: -n, -E, -r, -s, -u, -z are flags; -e SCRIPT, -f FILE, -l N take values.
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!
      if ('nErsuz'.includes(c)) continue
      if (c === 'e' || c === 'l') {
        const rest = a.slice(j + 1)
        const v = rest !== '' ? rest : list[++i]
        if (v === undefined) return no(`sed -${c} without a value`, { unsure: true })
        if (c === 'e') scripts.push(v)
        break
      }
      if (c === 'f') return no('sed -f reads its script from a file that is not analysed', { unsure: true })
      return no(`sed option -${c} is not analysed`, { unsure: true })
    }
  }
  if (scripts.length === 0) {
    const script = positionals.shift()
    if (script === undefined) return no('sed without a script', { unsure: true })
    scripts.push(script)
  }
  for (const s of scripts) {
    const verdict = judgeSedScript(s)
    if (verdict !== undefined)
      return no(`sed script ${verdict}`, verdict.includes('writes') ? {} : { unsure: true })
  }
  return ok('sed without -i and without w/e commands only prints')
}

function judgeAwk(args: Args): Verdict {
  const list = staticArgs(args)
  if (list === undefined)
    return no(`awk with a dynamic argument (${firstDynamic(args)!.why}) is not analysed`, { unsure: true })
  let i = 0
  for (; i < list.length; i++) {
    const a = list[i]!
    if (a === '--') {
      i++
      break
    }
    if (!a.startsWith('-') || a === '-') break
    if (a === '-F' || a === '-v') {
      i++
      continue
    }
    if (a.startsWith('-F') || a.startsWith('-v')) continue
    return no(`awk option ${a} is not analysed (program files, extensions and includes can run code)`, {
      unsure: true,
    })
  }
  const program = list[i]
  if (program === undefined) return no('awk without a program', { unsure: true })
  const verdict = judgeAwkProgram(program)
  if (verdict !== undefined) return no(`awk program ${verdict}`, { unsure: true })
  return ok('awk program without system(), pipes, output redirection or getline only prints')
}

function judgeUniq(args: Args): Verdict {
  const list = staticArgs(args)
  if (list === undefined)
    return no(`uniq with a dynamic argument (${firstDynamic(args)!.why}) could name an output file`, {
      unsure: true,
    })
  const positionals: string[] = []
  let endOfOptions = false
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!
    if (endOfOptions || !a.startsWith('-') || a === '-') positionals.push(a)
    else if (a === '--') endOfOptions = true
    else if (/^-[fsw]$/.test(a)) i++
  }
  if (positionals.length >= 2)
    return no(`uniq writes its output to ${positionals[1]}`, { writes: [positionals[1]!] })
  return ok('uniq with at most one operand only reads')
}

function judgeTee(args: Args): Verdict {
  const list = staticArgs(args)
  if (list === undefined)
    return no(`tee with a dynamic argument (${firstDynamic(args)!.why}) writes unknown files`, {
      unsure: true,
    })
  const files = list.filter((a) => !a.startsWith('-') && a !== '/dev/null')
  if (files.length > 0) return no('tee writes files', { writes: files })
  return ok('tee without files only copies to stdout')
}

function judgePrintf(args: Args): Verdict {
  let i = 0
  let first = args[0]
  if (first?.kind === 'static' && first.value === '--') first = args[++i]
  if (first === undefined) return ok('printf only prints')
  if (first.kind === 'dynamic')
    return no(`printf with a dynamic format (${first.why}) could be -v`, { unsure: true })
  if (i === 0 && first.value.startsWith('-'))
    return no(`printf ${first.value} assigns a variable or is not analysed`, { unsure: true })
  return ok('printf only prints')
}

function judgeDate(args: Args): Verdict {
  const list = staticArgs(args)
  if (list === undefined)
    return no(`date with a dynamic argument (${firstDynamic(args)!.why}) could set the clock`, {
      unsure: true,
    })
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!
    const hit = hitsFlag(a, 's', ['set'])
    if (hit !== undefined) return no(`date ${hit} sets the system clock`)
    if (a.startsWith('-')) {
      // -d STRING, -r FILE, -f FILE take a value; skip it so it is not read as a time to set.
      if (/^-[drfI]$/.test(a)) i++
      continue
    }
    if (!a.startsWith('+')) return no(`date ${a} sets the system clock`)
  }
  return ok('date only prints')
}

const ARITHMETIC_TEST_OPS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])

function judgeTest(args: Args): Verdict {
  const list = staticArgs(args)
  if (list === undefined)
    return no(`test with a dynamic operand (${firstDynamic(args)!.why}) is not analysed`, { unsure: true })
  for (const a of list) {
    // `-v NAME` evaluates an array subscript in NAME, which can run a command substitution.
    if (a === '-v' || a === '-R')
      return no(`test ${a} evaluates a variable name (can run code)`, { unsure: true })
  }
  if (list.some((a) => ARITHMETIC_TEST_OPS.has(a))) {
    // Arithmetic operands are evaluated as expressions in [[ ]]: only plain integers are safe.
    const operands = list.filter((a) => !a.startsWith('-') && !['!', '(', ')', '&&', '||'].includes(a))
    if (!operands.every((a) => /^\d+$/.test(a)))
      return no('arithmetic test on non-integer operands is not analysed', { unsure: true })
  }
  return ok('test only checks conditions')
}

function judgeEnv(args: Args, depth: number): Verdict {
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i]!
    if (a.kind === 'dynamic')
      return no(`env with a dynamic argument (${a.why}) is not analysed`, { unsure: true })
    const v = a.value
    if (v === '-0' || v === '--null') continue
    if (v === '-u' || v === '--unset') {
      i++
      continue
    }
    if (v.startsWith('--unset=')) continue
    if (v.startsWith('-')) return no(`env option ${v} is not analysed`, { unsure: true })
    const eq = v.indexOf('=')
    if (eq > 0) {
      if (!isSafeEnvAssignment(v.slice(0, eq), { kind: 'static', value: v.slice(eq + 1) })) {
        return no(`env ${v} can change what the command runs or loads`)
      }
      continue
    }
    break
  }
  if (i >= args.length) return ok('env prints the environment')
  const inner = judgeProgram(args[i]!, args.slice(i + 1), depth + 1)
  return { ...inner, reason: `via env: ${inner.reason}` }
}

function judgeCommandBuiltin(args: Args, depth: number): Verdict {
  const first = args[0]
  if (first === undefined) return ok('command without arguments does nothing')
  if (first.kind === 'static' && (first.value === '-v' || first.value === '-V'))
    return ok('command -v only looks a name up')
  if (first.kind === 'static' && first.value.startsWith('-'))
    return no(`command ${first.value} is not analysed`, { unsure: true })
  const inner = judgeProgram(first, args.slice(1), depth + 1)
  return { ...inner, reason: `via command: ${inner.reason}` }
}

function judgeXargs(args: Args, depth: number): Verdict {
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i]!
    if (a.kind === 'dynamic')
      return no(`xargs with a dynamic argument (${a.why}) is not analysed`, { unsure: true })
    const v = a.value
    if (!v.startsWith('-')) break
    if (['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-x', '--exit'].includes(v)) continue
    if (/^-[nLPd]$/.test(v)) {
      i++
      continue
    }
    if (/^-[nLP]\d+$/.test(v) || /^--(max-args|max-lines|max-procs|delimiter)=/.test(v)) continue
    // -I/-i substitute into arbitrary positions, -a/-p/-o change input or prompt: not analysed.
    return no(`xargs option ${v} is not analysed`, { unsure: true })
  }
  const target = args[i] ?? { kind: 'static' as const, value: 'echo' }
  // The words read from stdin are appended: judge the target with one dynamic operand.
  const inner = judgeProgram(
    target,
    [...args.slice(i + 1), { kind: 'dynamic', why: 'words read by xargs' }],
    depth + 1,
  )
  return { ...inner, reason: `via xargs: ${inner.reason}` }
}

const NPM_READ = new Set(['ls', 'list', 'll', 'la', 'root', 'prefix', 'bin', 'explain', 'why'])

function judgeNpm(args: Args): Verdict {
  const list = staticArgs(args)
  if (list === undefined)
    return no(`npm with a dynamic argument (${firstDynamic(args)!.why}) is not analysed`, { unsure: true })
  const sub = list.find((a) => !a.startsWith('-'))
  if (sub === undefined) {
    if (list.length > 0 && list.every((a) => a === '-v' || a === '--version'))
      return ok('npm --version only prints')
    return no('npm without a subcommand is not analysed', { unsure: true })
  }
  if (
    list.some(
      (a) =>
        hitsFlag(a, '', ['prefix', 'userconfig', 'globalconfig', 'script-shell', 'node-options']) !==
        undefined,
    )
  ) {
    return no('npm option changes configuration or what runs', { unsure: true, subcommand: sub })
  }
  if (NPM_READ.has(sub)) return ok(`npm ${sub} only reads installed packages`, sub)
  if (sub === 'config' || sub === 'c') {
    const action = list[list.indexOf(sub) + 1]
    if (action === 'get' || action === 'list' || action === 'ls')
      return ok(`npm config ${action} only reads`, sub)
  }
  if (['view', 'info', 'show', 'v', 'outdated', 'search', 'audit', 'ping', 'whoami'].includes(sub)) {
    return no(`npm ${sub} reaches the registry over the network`, { subcommand: sub })
  }
  return no(`npm ${sub} can run package scripts or change files`, { subcommand: sub })
}
