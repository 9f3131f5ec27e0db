import type { InnerJudge, JudgeContext } from './context.js'
import { isSafeEnvAssignment } from './env.js'
import { lit, no, ok, unsure } from './judgement.js'
import {
  arg,
  flag,
  type Grammar,
  grammar,
  type OptionSpec,
  optArg,
  parseOptions,
  readsValue,
  tagged,
} from './options.js'
import { own as ownEntry } from './own.js'
import { shellCodeFromWords } from './shell-code.js'
import type { ContentRead, InnerCommand, Judgement, Word } from './types.js'
import { describeWord, mayBeOption } from './words.js'

/**
 * Programs that run another command given in their arguments (issue 12 §5, §8). Each has its real
 * option grammar, so the command it runs is found where the program finds it (`timeout -s KILL 5
 * git log`: the duration is an operand, `git` the command). The inner command is judged by the same
 * tables; the wrapper is read-only only when it is one that changes nothing itself (`timeout`,
 * `nice`, `time`, `env`, `xargs`, ...) and the inner command is read-only. Every inner command is
 * reported in `runs`, so deny rules and destructive checks see `sudo rm`, `nice git commit`.
 */

interface WrapperSpec {
  readonly grammar: Grammar
  /** Operands before the command (`timeout DURATION`, `flock FILE`, `chroot NEWROOT`). */
  readonly before: number
  /** Whether a read-only inner command makes the whole read-only; otherwise why not. */
  readonly readOnly: true | string
  /** Options whose value is shell code (`flock -c`, `su -c`, `script -c`). */
  readonly shellOption?: string
  /** Options meaning "no command runs" (`command -v`) or "act on other processes" (`-p PID`). */
  readonly noCommand?: readonly string[]
  readonly otherProcesses?: readonly string[]
  /** The operands before the command are files it writes (`flock FILE`). */
  readonly writesBefore?: boolean
}

const stop = (spec: Parameters<typeof grammar>[0]): Grammar => grammar({ ...spec, permute: false })

const PRIVILEGES = 'runs the command with other privileges'
const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  timeout: {
    grammar: stop({
      short: 'k:s:v',
      long: {
        'kill-after': arg,
        signal: arg,
        foreground: flag,
        'preserve-status': flag,
        verbose: flag,
        help: flag,
        version: flag,
      },
    }),
    before: 1,
    readOnly: true,
  },
  nice: {
    grammar: stop({ short: 'n:', long: { adjustment: arg, help: flag, version: flag }, numeric: arg }),
    before: 0,
    readOnly: true,
  },
  ionice: {
    grammar: stop({
      short: 'c:n:tp:P:u:hV',
      long: {
        class: arg,
        classdata: arg,
        ignore: flag,
        pid: arg,
        pgid: arg,
        uid: arg,
        help: flag,
        version: flag,
      },
    }),
    before: 0,
    readOnly: true,
    otherProcesses: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'],
  },
  chrt: {
    grammar: stop({
      short: 'abdefiormpRvhVT:P:D:',
      long: {
        all: flag,
        batch: flag,
        deadline: flag,
        ext: flag,
        fifo: flag,
        idle: flag,
        other: flag,
        rr: flag,
        'reset-on-fork': flag,
        max: flag,
        pid: flag,
        verbose: flag,
        help: flag,
        version: flag,
        'sched-runtime': arg,
        'sched-period': arg,
        'sched-deadline': arg,
      } as Record<string, OptionSpec>,
    }),
    before: 1,
    readOnly: true,
    otherProcesses: ['-p', '--pid'],
    noCommand: ['-m', '--max'],
  },
  taskset: {
    grammar: stop({
      short: 'apchV',
      long: { 'all-tasks': flag, pid: flag, 'cpu-list': flag, help: flag, version: flag },
    }),
    before: 1,
    readOnly: true,
    otherProcesses: ['-p', '--pid'],
  },
  stdbuf: {
    grammar: stop({
      short: 'i:o:e:',
      long: { input: arg, output: arg, error: arg, help: flag, version: flag },
    }),
    before: 0,
    readOnly: true,
  },
  setsid: {
    grammar: stop({
      short: 'cfwhV',
      long: { ctty: flag, fork: flag, wait: flag, help: flag, version: flag },
    }),
    before: 0,
    readOnly: true,
  },
  // The bash keyword (`time -p`) and GNU time (`-o FILE` writes the report).
  time: {
    grammar: stop({
      short: 'pavqf:',
      shortSpecs: { o: { arity: 'required', effect: { kind: 'writes-value' } } },
      long: {
        portability: flag,
        append: flag,
        verbose: flag,
        quiet: flag,
        format: arg,
        output: { arity: 'required', effect: { kind: 'writes-value' } },
        help: flag,
        version: flag,
      },
    }),
    before: 0,
    readOnly: true,
  },
  command: {
    grammar: stop({ short: 'pvV' }),
    before: 0,
    readOnly: true,
    noCommand: ['-v', '-V'],
  },
  nohup: {
    grammar: stop({ long: { help: flag, version: flag } }),
    before: 0,
    readOnly: 'writes nohup.out when its output is a terminal',
  },
  exec: { grammar: stop({ short: 'cla:' }), before: 0, readOnly: 'replaces the shell with the command' },
  builtin: { grammar: stop({}), before: 0, readOnly: 'runs a shell builtin, which may change shell state' },
  flock: {
    grammar: stop({
      short: 'sxunoFhVw:E:c:',
      long: {
        shared: flag,
        exclusive: flag,
        unlock: flag,
        nonblock: flag,
        nb: flag,
        close: flag,
        'no-fork': flag,
        verbose: flag,
        timeout: arg,
        wait: arg,
        'conflict-exit-code': arg,
        command: arg,
        help: flag,
        version: flag,
      },
    }),
    before: 1,
    readOnly: 'creates its lock file',
    shellOption: 'c',
    writesBefore: true,
  },
  sudo: {
    grammar: stop({
      short: 'ABbEeHiKklnPSsVvhC:D:g:h:p:R:r:T:t:U:u:',
      long: {
        askpass: flag,
        background: flag,
        bell: flag,
        'close-from': arg,
        chdir: arg,
        'preserve-env': optArg,
        edit: flag,
        group: arg,
        'set-home': flag,
        help: flag,
        host: arg,
        login: flag,
        'remove-timestamp': flag,
        'reset-timestamp': flag,
        list: flag,
        'non-interactive': flag,
        'preserve-groups': flag,
        prompt: arg,
        chroot: arg,
        role: arg,
        stdin: flag,
        shell: flag,
        type: arg,
        'command-timeout': arg,
        'other-user': arg,
        user: arg,
        version: flag,
        validate: flag,
      },
    }),
    before: 0,
    readOnly: PRIVILEGES,
    noCommand: [
      '-l',
      '-v',
      '-k',
      '-K',
      '-V',
      '--list',
      '--validate',
      '--remove-timestamp',
      '--reset-timestamp',
      '--version',
    ],
  },
  doas: { grammar: stop({ short: 'nsLC:u:' }), before: 0, readOnly: PRIVILEGES },
  pkexec: {
    grammar: stop({ long: { user: arg, 'disable-internal-agent': flag, version: flag, help: flag } }),
    before: 0,
    readOnly: PRIVILEGES,
  },
  su: {
    grammar: grammar({
      short: 'lmpfPhVc:C:g:G:s:w:',
      long: {
        login: flag,
        'preserve-environment': flag,
        pty: flag,
        command: arg,
        'session-command': arg,
        group: arg,
        'supp-group': arg,
        shell: arg,
        'whitelist-environment': arg,
        fast: flag,
        help: flag,
        version: flag,
      },
    }),
    before: 0,
    readOnly: PRIVILEGES,
    shellOption: 'c',
    noCommand: ['*'],
  },
  runuser: {
    grammar: grammar({
      short: 'lmpfPhVc:C:g:G:s:w:u:',
      long: {
        login: flag,
        'preserve-environment': flag,
        pty: flag,
        command: arg,
        'session-command': arg,
        group: arg,
        'supp-group': arg,
        shell: arg,
        'whitelist-environment': arg,
        user: arg,
        fast: flag,
        help: flag,
        version: flag,
      },
      permute: false,
    }),
    before: 0,
    readOnly: PRIVILEGES,
    shellOption: 'c',
  },
  chroot: {
    grammar: stop({ long: { userspec: arg, groups: arg, 'skip-chdir': flag, help: flag, version: flag } }),
    before: 1,
    readOnly: 'runs the command in another root directory',
  },
  strace: {
    grammar: stop({ short: 'e:o:p:s:u:E:I:a:b:P:X:', lenient: true }),
    before: 0,
    readOnly: 'traces the command and can write its log to a file',
  },
  ltrace: {
    grammar: stop({ short: 'e:o:p:s:u:a:n:A:D:F:l:x:L:', lenient: true }),
    before: 0,
    readOnly: 'traces the command and can write its log to a file',
  },
  script: {
    grammar: grammar({ short: 'aeEfqTtIOBhVc:', lenient: true }),
    before: 0,
    readOnly: 'records a terminal session to a file',
    shellOption: 'c',
    noCommand: ['*'],
  },
  setpriv: { grammar: stop({ lenient: true }), before: 0, readOnly: PRIVILEGES },
  nsenter: {
    grammar: stop({ short: 't:S:G:', lenient: true }),
    before: 0,
    readOnly: 'runs the command in other namespaces',
  },
  unshare: { grammar: stop({ lenient: true }), before: 0, readOnly: 'runs the command in new namespaces' },
  fakeroot: { grammar: stop({ short: 'l:s:i:b:', lenient: true }), before: 0, readOnly: PRIVILEGES },
  eatmydata: {
    grammar: stop({ lenient: true }),
    before: 0,
    readOnly: 'changes how the command writes files',
  },
  proxychains: {
    grammar: stop({ short: 'f:', lenient: true }),
    before: 0,
    readOnly: 'reaches the network through a proxy',
  },
  proxychains4: {
    grammar: stop({ short: 'f:', lenient: true }),
    before: 0,
    readOnly: 'reaches the network through a proxy',
  },
  torsocks: {
    grammar: stop({ short: 'u:p:a:P:', lenient: true }),
    before: 0,
    readOnly: 'reaches the network through Tor',
  },
  catchsegv: { grammar: stop({}), before: 0, readOnly: 'runs the command under a debugging wrapper' },
  valgrind: {
    grammar: stop({ lenient: true }),
    before: 0,
    readOnly: 'runs the command under a debugging wrapper',
  },
  'xvfb-run': {
    grammar: stop({ short: 'n:p:f:e:s:w:', lenient: true }),
    before: 0,
    readOnly: 'starts an X server for the command',
  },
  'dbus-run-session': {
    grammar: stop({ lenient: true }),
    before: 0,
    readOnly: 'starts a session bus for the command',
  },
  unbuffer: { grammar: stop({ lenient: true }), before: 0, readOnly: 'runs the command under expect' },
  firejail: {
    grammar: stop({ lenient: true }),
    before: 0,
    readOnly: 'runs the command in another sandbox profile',
  },
  'systemd-run': {
    grammar: stop({ short: 'p:E:u:', lenient: true }),
    before: 0,
    readOnly: 'starts the command as a system service',
  },
  caffeinate: {
    grammar: stop({ short: 't:w:', lenient: true }),
    before: 0,
    readOnly: 'keeps the machine awake while the command runs',
  },
  parallel: { grammar: stop({ lenient: true }), before: 0, readOnly: 'runs commands in parallel' },
}

export function isWrapper(program: string): boolean {
  return (
    Object.hasOwn(WRAPPERS, program) ||
    program === 'env' ||
    program === 'xargs' ||
    program === 'watch' ||
    program === 'busybox'
  )
}

export function judgeWrapper(
  program: string,
  args: readonly Word[],
  ctx: JudgeContext,
  inner: InnerJudge,
): Judgement | undefined {
  const j = judgeWrapperOptions(program, args, ctx, inner)
  // A wrapper whose command was not made out (`env {x,}`, `xargs $OPTS`) runs a command only known
  // at run time: deny rules and the destructive check see an unknown command.
  if (j !== undefined && !j.readOnly && j.unsure === true && j.runs.length === 0 && j.code === undefined)
    return { ...j, runs: [{ kind: 'argv', words: [UNKNOWN_COMMAND] }] }
  return j
}

const UNKNOWN_COMMAND: Word = {
  kind: 'dynamic',
  why: 'a command the wrapper runs, not made out',
  prefix: '',
  split: true,
}

function judgeWrapperOptions(
  program: string,
  args: readonly Word[],
  ctx: JudgeContext,
  inner: InnerJudge,
): Judgement | undefined {
  switch (program) {
    case 'env':
      return judgeEnv(args, ctx, inner)
    case 'xargs':
      return judgeXargs(args, ctx, inner)
    case 'watch':
      return judgeWatch(args)
    case 'busybox':
      return judgeBusybox(args, ctx, inner)
    default:
      break
  }
  const spec = ownEntry(WRAPPERS, program)
  if (spec === undefined) return undefined
  const p = parseOptions(spec.grammar, args)
  if (!p.ok) return unsure(`${program}: ${p.reason}, so the command it runs is not analysed`)
  if (p.unknown.length > 0)
    return unsure(`${program} with ${describeWord(p.unknown[0]!)} where an option may stand is not analysed`)
  const names = p.options.map((o) => o.name)
  const own: { writes: Word[]; reads: ContentRead[]; runs: InnerCommand[] } = {
    writes: [],
    reads: [],
    runs: [],
  }
  for (const o of p.options) {
    if (o.spec.effect?.kind === 'writes-value' && o.value !== undefined) own.writes.push(o.value)
    if (
      spec.shellOption !== undefined &&
      (o.name === `-${spec.shellOption}` || o.name === '--command') &&
      o.value !== undefined
    )
      own.runs.push({ kind: 'shell', code: o.value, via: `${program} ${o.name}` })
  }
  if (spec.writesBefore === true) own.writes.push(...p.operands.slice(0, spec.before))
  if (spec.noCommand?.some((n) => n !== '*' && names.includes(n))) {
    return spec.readOnly === true
      ? ok(`${program} ${names.find((n) => spec.noCommand!.includes(n))} runs no command`)
      : no(`${program} ${spec.readOnly}`, own)
  }
  if (spec.otherProcesses?.some((n) => names.includes(n)))
    return no(
      `${program} ${names.find((n) => spec.otherProcesses!.includes(n))} changes other processes`,
      own,
    )
  const written = own.writes.length > 0 ? `writes ${describeWord(own.writes[0]!)}` : undefined
  // su and script take no command operand: their command is the -c option.
  let command = spec.noCommand?.includes('*') === true ? [] : p.operands.slice(spec.before)
  // `flock FILE -c CMD` (util-linux reads -c/--command after the file too): shell code.
  const after = command[0]
  if (
    spec.shellOption !== undefined &&
    after?.kind === 'static' &&
    (after.value === `-${spec.shellOption}` || after.value === '--command')
  ) {
    const code = command[1]
    if (code !== undefined) own.runs.push({ kind: 'shell', code, via: `${program} ${after.value}` })
    command = []
  }
  if (command.length === 0) {
    if (own.runs.length > 0) return no(`${program} runs shell code`, own)
    if (spec.readOnly === true && written === undefined) return ok(`${program} without a command only prints`)
    return no(`${program} ${written ?? (spec.readOnly === true ? 'runs no command' : spec.readOnly)}`, own)
  }
  const j = inner(command, { depth: ctx.depth + 1, stdin: ctx.stdin })
  const why = written ?? (spec.readOnly === true ? undefined : spec.readOnly)
  return wrap(program, j, command, why, own)
}

/** Combine a wrapper with the command it runs. `why`: why the wrapper itself is not read-only. */
export function wrap(
  program: string,
  j: Judgement,
  command: readonly Word[],
  why: string | undefined,
  own: { writes?: readonly Word[]; reads?: readonly ContentRead[]; runs?: readonly InnerCommand[] } = {},
): Judgement {
  const readOnly = why === undefined && j.readOnly
  const reason = j.readOnly && why !== undefined ? `${program} ${why}` : `via ${program}: ${j.reason}`
  return {
    readOnly,
    reason,
    ...(!readOnly && j.unsure === true && why === undefined ? { unsure: true } : {}),
    writes: [...(own.writes ?? []), ...j.writes],
    reads: [...(own.reads ?? []), ...j.reads],
    runs: [
      { kind: 'argv', words: command, ...(j.opaque === true ? { opaque: true } : {}) },
      ...j.runs,
      ...(own.runs ?? []),
    ],
    ...(j.code !== undefined ? { code: j.code } : {}),
    ...(j.interpreter === true ? { interpreter: true } : {}),
  }
}

// GNU env 9.1: options stop at the first operand; NAME=VALUE operands, then the command.
const ENV = stop({
  short: '0v',
  shortSpecs: {
    C: tagged(arg, 'chdir'),
    S: tagged(arg, 'split'),
    i: tagged(flag, 'clears'),
    u: tagged(arg, 'clears'),
  },
  long: {
    'ignore-environment': tagged(flag, 'clears'),
    null: flag,
    debug: flag,
    unset: tagged(arg, 'clears'),
    chdir: tagged(arg, 'chdir'),
    'split-string': tagged(arg, 'split'),
    'block-signal': optArg,
    'default-signal': optArg,
    'ignore-signal': optArg,
    'list-signal-handling': flag,
    help: flag,
    version: flag,
  },
})

function judgeEnv(args: readonly Word[], ctx: JudgeContext, inner: InnerJudge): Judgement {
  // `env -` is `env -i`.
  const p = parseOptions(
    ENV,
    args.map((w) => (w.kind === 'static' && w.value === '-' ? lit('-i') : w)),
  )
  if (!p.ok) return unsure(`env: ${p.reason}, so the command it runs is not analysed`)
  if (p.unknown.length > 0)
    return unsure(`env with ${describeWord(p.unknown[0]!)} where an option may stand is not analysed`)
  let i = 0
  let unsafe: string | undefined
  for (; i < p.operands.length; i++) {
    const w = p.operands[i]!
    if (w.kind !== 'static') {
      if (w.kind === 'dynamic' && w.prefix.includes('=')) {
        unsafe ??= `env ${w.prefix}... can change what the command runs or loads`
        continue
      }
      break
    }
    const eq = w.value.indexOf('=')
    if (eq <= 0) break
    if (!isSafeEnvAssignment(w.value.slice(0, eq), lit(w.value.slice(eq + 1))))
      unsafe ??= `env ${w.value} can change what the command runs or loads`
  }
  const command = p.operands.slice(i)
  const split = p.options.find((o) => o.spec.tag === 'split')
  if (split !== undefined) {
    const code: Word =
      split.value?.kind === 'static' && command.every((w) => w.kind === 'static')
        ? lit([split.value.value, ...command.map((w) => (w as { value: string }).value)].join(' '))
        : { kind: 'dynamic', why: 'env -S string', prefix: '', split: false }
    return no('env -S splits a string into a command line that is not analysed', {
      runs: [{ kind: 'shell', code, via: 'env -S' }],
      unsure: true,
    })
  }
  if (command.length === 0) {
    return unsafe === undefined ? ok('env prints the environment') : no(unsafe)
  }
  const j = inner(command, { depth: ctx.depth + 1, stdin: ctx.stdin })
  const chdir = p.options.find((o) => o.spec.tag === 'chdir')
  // Dropping variables drops the ones bash runs with for safety (GIT_OPTIONAL_LOCKS=0 keeps
  // `git status` from rewriting the index and running its hooks; GIT_CONFIG_* turn off fsmonitor).
  const clears = p.options.find((o) => o.spec.tag === 'clears')
  const why =
    unsafe !== undefined
      ? unsafe.replace(/^env /, '')
      : clears !== undefined
        ? `drops environment variables (env ${clears.name}) that keep the command from writing or running hooks`
        : chdir !== undefined
          ? 'runs the command in another directory'
          : undefined
  return wrap('env', j, command, why)
}

// GNU findutils 4.9 xargs.
const XARGS = stop({
  short: '0a:d:E:e::I:i::L:l::n:opP:rs:tx',
  shortSpecs: { a: tagged(readsValue, 'arg-file'), I: tagged(arg, 'replace'), i: tagged(optArg, 'replace') },
  long: {
    null: flag,
    'arg-file': tagged(readsValue, 'arg-file'),
    delimiter: arg,
    eof: optArg,
    replace: tagged(optArg, 'replace'),
    'max-lines': arg,
    'max-args': arg,
    'open-tty': flag,
    'max-procs': arg,
    interactive: flag,
    'process-slot-var': arg,
    'no-run-if-empty': flag,
    'max-chars': arg,
    'show-limits': flag,
    verbose: flag,
    exit: flag,
    help: flag,
    version: flag,
  },
})

function judgeXargs(args: readonly Word[], ctx: JudgeContext, inner: InnerJudge): Judgement {
  const p = parseOptions(XARGS, args)
  if (!p.ok) return unsure(`xargs: ${p.reason}, so the command it runs is not analysed`)
  if (p.unknown.length > 0)
    return unsure(`xargs with ${describeWord(p.unknown[0]!)} where an option may stand is not analysed`)
  const reads: ContentRead[] = []
  for (const o of p.options)
    if (o.spec.tag === 'arg-file' && o.value !== undefined) reads.push({ word: o.value })
  const replace = p.options.find((o) => o.spec.tag === 'replace')
  const base = p.operands.length === 0 ? [lit('echo')] : p.operands
  const fromInput = (prefix: string): Word => ({
    kind: 'dynamic',
    why: 'words read by xargs',
    prefix,
    split: replace === undefined,
  })
  let command: Word[]
  if (replace !== undefined) {
    const r =
      replace.value?.kind === 'static' ? replace.value.value : replace.value === undefined ? '{}' : undefined
    if (r === undefined || r === '')
      return unsure('xargs -I with a replacement string only known at run time is not analysed')
    command = base.map((w) =>
      w.kind === 'static' && w.value.includes(r) ? fromInput(w.value.slice(0, w.value.indexOf(r))) : w,
    )
  } else command = [...base, fromInput('')]
  const j = inner(command, { depth: ctx.depth + 1, stdin: { kind: 'pipe' } })
  return wrap('xargs', j, command, undefined, { reads })
}

/** watch joins its arguments and runs them with `sh -c` (unless -x), and needs a terminal. */
function judgeWatch(args: readonly Word[]): Judgement {
  const p = parseOptions(
    stop({
      short: 'bceghptxd::n:q:',
      long: {
        beep: flag,
        color: flag,
        'no-color': flag,
        differences: optArg,
        errexit: flag,
        chgexit: flag,
        interval: arg,
        precise: flag,
        'no-title': flag,
        'no-wrap': flag,
        exec: tagged(flag, 'exec'),
        help: flag,
        version: flag,
        equexit: arg,
        'no-linewrap': flag,
      },
    }),
    args,
  )
  if (!p.ok) return unsure(`watch: ${p.reason}, so the command it runs is not analysed`)
  const exec = p.options.some((o) => o.name === '-x' || o.spec.tag === 'exec')
  const runs: InnerCommand[] = exec
    ? [{ kind: 'argv', words: p.operands }]
    : shellCodeFromWords(p.operands, 'watch')
  return no('watch runs a command repeatedly and needs a terminal', { runs })
}

/** `busybox APPLET ...` runs the applet, whose options differ from the GNU tools': not read-only. */
function judgeBusybox(args: readonly Word[], ctx: JudgeContext, inner: InnerJudge): Judgement {
  const first = args[0]
  if (first === undefined) return ok('busybox without an applet only prints its applets')
  if (first.kind === 'static' && first.value.startsWith('-')) {
    if (first.value === '--list' || first.value === '--list-full' || first.value === '--help')
      return ok(`busybox ${first.value} only prints`)
    return unsure(`busybox ${first.value} is not analysed`)
  }
  if (mayBeOption(first)) return unsure(`busybox with ${describeWord(first)} is not analysed`)
  const j = inner(args, { depth: ctx.depth + 1, stdin: ctx.stdin })
  return wrap('busybox', j, args, 'runs an applet whose options differ from the GNU tools')
}

/** A wrapper's option grammar, for the tests that check it against the program's `--help`. */
export function wrapperGrammar(program: string): Grammar | undefined {
  if (program === 'env') return ENV
  if (program === 'xargs') return XARGS
  return ownEntry(WRAPPERS, program)?.grammar
}
