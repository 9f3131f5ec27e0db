import { judgeCompressor, judgeTar, judgeUnzip } from './archives.js'
import { judgeAwk } from './awk.js'
import { type JudgeContext, MAX_WRAP_DEPTH } from './context.js'
import { judgeFind } from './find.js'
import { judgeGit } from './git.js'
import { isInterpreter, judgeInterpreter } from './interpreters.js'
import { lit, no, ok, unsure } from './judgement.js'
import { judgeNpm, npmExec } from './npm.js'
import { own } from './own.js'
import { READERS } from './readers.js'
import { judgeSystem, SYSTEM } from './system.js'
import type { Judgement, Word } from './types.js'
import { describeWord, mayBeOption } from './words.js'
import { isWrapper, judgeWrapper } from './wrappers.js'

/**
 * The read-only program table (seed 003 §8.4 "subcommand awareness"). A program absent from it is
 * not read-only. Families, each in its own file:
 *
 * - readers.ts: readers and printers, each with its option grammar (`cat`, `grep`, `sort -o`...);
 * - git.ts, sed-command.ts + sed.ts, awk.ts, find.ts, npm.ts, archives.ts, system.ts;
 * - wrappers.ts: programs that run a command (`timeout`, `env`, `xargs`, `sudo` ...);
 * - interpreters.ts: shells and language interpreters (never read-only, code given is unknown);
 * - below: programs that are never read-only, with a reason better than "not in the table", and
 *   programs that write the files they name.
 */

/** Programs found by a path in these directories are judged by their name (`/usr/bin/ls`). */
const SYSTEM_DIRS = ['/bin/', '/usr/bin/', '/usr/local/bin/', '/sbin/', '/usr/sbin/', '/usr/local/sbin/']

const PAGER_OR_EDITOR = 'interactive pagers and editors can run shell commands and need a terminal'
const DAEMON =
  'talks to a daemon or cluster API (possibly remote) that holds state outside the workspace; treated as network access'
const NETWORK = 'reaches the network'

const NEVER: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    [
      'less',
      'more',
      'most',
      'pg',
      'vi',
      'vim',
      'nvim',
      'view',
      'vimdiff',
      'nano',
      'pico',
      'emacs',
      'ed',
      'ex',
      'man',
      'info',
      'top',
      'htop',
      'tmux',
      'screen',
    ].map((p) => [p, PAGER_OR_EDITOR]),
  ),
  ...Object.fromEntries(
    ['docker', 'podman', 'kubectl', 'helm', 'systemctl', 'journalctl', 'launchctl', 'service'].map((p) => [
      p,
      DAEMON,
    ]),
  ),
  ...Object.fromEntries(
    [
      'curl',
      'wget',
      'ssh',
      'scp',
      'sftp',
      'nc',
      'ncat',
      'netcat',
      'socat',
      'telnet',
      'ftp',
      'ping',
      'ping6',
      'dig',
      'nslookup',
      'host',
      'getent',
      'traceroute',
      'http',
      'https',
      'aria2c',
    ].map((p) => [p, NETWORK]),
  ),
  alias: 'defines an alias that can shadow any command',
  kill: 'sends signals to processes',
  pkill: 'sends signals to processes',
  killall: 'sends signals to processes',
  yes: 'prints without end',
  open: 'opens files with other programs',
  'xdg-open': 'opens files with other programs',
  pbcopy: 'writes the clipboard',
  xclip: 'writes the clipboard',
  make: 'runs the recipes of a Makefile',
}

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
  mkfifo: 'all',
  mknod: 'all',
  patch: 'all',
  cp: 'last',
  mv: 'last',
  ln: 'last',
  link: 'last',
  install: 'last',
  rsync: 'last',
}

/** Judge one command: `words[0]` is the program name. */
export function judgeProgram(words: readonly Word[], ctx: JudgeContext): Judgement {
  const name = words[0]
  if (name === undefined) return unsure('no command name')
  if (ctx.depth > MAX_WRAP_DEPTH) return unsure('commands nested too deep are not analysed')
  if (name.kind !== 'static')
    return unsure(`the command name is only known at run time (${describeWord(name)})`)
  let program = name.value
  let viaPath = ''
  if (program.includes('/')) {
    const dir = SYSTEM_DIRS.find((d) => program.startsWith(d) && !program.slice(d.length).includes('/'))
    if (dir === undefined) {
      return unsure(
        `'${program}' is run by path; only programs looked up by name or in the system directories are judged`,
        { opaque: true },
      )
    }
    viaPath = program
    program = program.slice(dir.length)
  }
  const j = judgeByName(program, words.slice(1), ctx)
  return viaPath === ''
    ? j
    : {
        ...j,
        reason: j.reason.startsWith(program) ? `${viaPath}${j.reason.slice(program.length)}` : j.reason,
      }
}

const inner = (words: readonly Word[], ctx: JudgeContext) => judgeProgram(words, ctx)

function judgeByName(program: string, args: readonly Word[], ctx: JudgeContext): Judgement {
  const reader = own(READERS, program)
  if (reader !== undefined) return reader(args, program)
  if (isWrapper(program)) return judgeWrapper(program, args, ctx, inner)!
  if (isInterpreter(program)) return judgeInterpreter(program, args, ctx)!
  if (Object.hasOwn(SYSTEM, program)) return judgeSystem(program, args)
  switch (program) {
    case 'git':
      return judgeGit(args)
    case 'find':
      return judgeFind(args, ctx, inner)
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return judgeAwk(program, args)
    case 'npm':
      return judgeNpm(args, ctx, inner)
    case 'npx':
    case 'pnpx':
    case 'bunx':
      return npmExec(args, ctx, inner, program)
    case 'tar':
      return judgeTar(args)
    case 'unzip':
    case 'zipinfo':
      return judgeUnzip(args, program)
    case 'gzip':
    case 'gunzip':
    case 'zcat':
    case 'gzcat':
    case 'xz':
    case 'unxz':
    case 'xzcat':
    case 'lzcat':
    case 'bzip2':
    case 'bunzip2':
    case 'bzcat':
    case 'zstd':
    case 'unzstd':
    case 'zstdcat':
    case 'lz4':
    case 'lz4cat':
      return judgeCompressor(args, program)
    case 'cd':
    case 'pushd':
    case 'popd':
    case 'dirs':
      return ok(`${program} changes only this shell's directory`)
    case 'printf':
      return judgePrintf(args)
    case 'date':
      return judgeDate(args)
    case 'test':
    case '[':
      return judgeTest(args)
    case 'read':
      return judgeRead(args)
    case 'hostname':
      // Options such as -f, -d, -i resolve names (DNS: network); operands set the host name.
      return args.length === 0
        ? ok('hostname only prints the host name')
        : no('hostname with arguments resolves names or sets the host name', { unsure: true })
    default:
      break
  }
  const why = own(NEVER, program)
  if (why !== undefined) return no(`${program}: ${why}`)
  const mode = own(WRITERS, program)
  if (mode !== undefined) return judgeWriter(program, args, mode)
  if (program === 'dd') {
    const of = args.find((w) => w.kind === 'static' && w.value.startsWith('of='))
    return no('dd changes files', { writes: of?.kind === 'static' ? [lit(of.value.slice(3))] : [] })
  }
  return unsure(`'${program}' is not in the read-only table`, { opaque: true })
}

/** Writers: every operand (or the last, or the `-t DIR` target) is a file they change. */
function judgeWriter(program: string, args: readonly Word[], mode: 'all' | 'last'): Judgement {
  const operands: Word[] = []
  let target: Word | undefined
  let ended = false
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (!ended && w.kind === 'static') {
      if (w.value === '--') {
        ended = true
        continue
      }
      if (mode === 'last' && (w.value === '-t' || w.value === '--target-directory')) {
        target = args[++i]
        continue
      }
      if (mode === 'last' && w.value.startsWith('--target-directory=')) {
        target = lit(w.value.slice('--target-directory='.length))
        continue
      }
      if (w.value.startsWith('-') && w.value !== '-') continue
    }
    operands.push(w)
  }
  const writes = target !== undefined ? [target] : mode === 'all' ? operands : operands.slice(-1)
  return no(`${program} changes files`, { writes })
}

function judgePrintf(args: readonly Word[]): Judgement {
  let first = args[0]
  let i = 0
  if (first?.kind === 'static' && first.value === '--') first = args[++i]
  if (first === undefined) return ok('printf only prints')
  if (mayBeOption(first) && i === 0) {
    if (first.kind === 'static') return unsure(`printf ${first.value} assigns a variable or is not analysed`)
    return unsure(`printf with a format only known at run time (${describeWord(first)}) could be -v`)
  }
  return ok('printf only prints')
}

function judgeDate(args: readonly Word[]): Judgement {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') {
      if (w.kind === 'glob' || mayBeOption(w) || !w.prefix.startsWith('+'))
        return unsure(`date with ${describeWord(w)} could set the clock`)
      continue
    }
    const a = w.value
    if (
      a === '-s' ||
      a.startsWith('--set') ||
      (/^-[^-]/.test(a) && a.slice(1).includes('s') && !/^-[drfI]/.test(a))
    )
      return no(`date ${a} sets the system clock`)
    if (a.startsWith('-')) {
      // -d STRING, -r FILE, -f FILE take a value; skip it so it is not read as a time to set.
      if (/^-[drf]$/.test(a)) {
        if (a === '-r' || a === '-f') {
          const v = args[i + 1]
          if (v !== undefined) return ok('date only prints', { reads: a === '-f' ? [{ word: v }] : [] })
        }
        i++
      }
      continue
    }
    if (!a.startsWith('+')) return no(`date ${a} sets the system clock`)
  }
  return ok('date only prints')
}

const ARITHMETIC_TEST_OPS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])

export function judgeTest(args: readonly Word[]): Judgement {
  const list: string[] = []
  for (const w of args) {
    if (w.kind !== 'static') return unsure(`test with a dynamic operand (${describeWord(w)}) is not analysed`)
    list.push(w.value)
  }
  for (const a of list) {
    // `-v NAME` evaluates an array subscript in NAME, which can run a command substitution.
    if (a === '-v' || a === '-R') return unsure(`test ${a} evaluates a variable name (can run code)`)
  }
  if (list.some((a) => ARITHMETIC_TEST_OPS.has(a))) {
    // Arithmetic operands are evaluated as expressions in [[ ]]: only plain integers are safe.
    const operands = list.filter((a) => !a.startsWith('-') && !['!', '(', ')', '&&', '||'].includes(a))
    if (!operands.every((a) => /^\d+$/.test(a)))
      return unsure('arithmetic test on non-integer operands is not analysed')
  }
  return ok('test only checks conditions')
}

/**
 * `read` sets shell variables from its input. Only lowercase names: `read PATH`, `read IFS` or
 * `read 'a[$(id)]'` would change what later commands run.
 */
function judgeRead(args: readonly Word[]): Judgement {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') return unsure(`read with ${describeWord(w)} is not analysed`)
    const a = w.value
    if (/^-[ers]+$/.test(a)) continue
    if (/^-[dntNpu]$/.test(a)) {
      i++
      continue
    }
    if (a === '-a') {
      const name = args[++i]
      if (name?.kind !== 'static' || !/^[a-z_][a-z0-9_]*$/.test(name.value))
        return unsure('read -a with a name that is not a plain lowercase variable')
      continue
    }
    if (/^[a-z_][a-z0-9_]*$/.test(a)) continue
    return unsure(`read ${a} is not analysed (only plain lowercase variable names are)`)
  }
  return ok('read only sets shell variables of this shell')
}
