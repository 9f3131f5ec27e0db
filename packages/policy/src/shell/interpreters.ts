import { assertNever } from '@toolgate/core'
import type { JudgeContext } from './context.js'
import { no, ok, pathsInCode } from './judgement.js'
import { own } from './own.js'
import { shellCodeFromWords } from './shell-code.js'
import type { CodeKind, InnerCommand, Judgement, Word } from './types.js'
import { describeWord, mayBeOption } from './words.js'

/**
 * Shells and language interpreters (issue 12 §5, §7). Code given to them (`sh -c`, `eval`,
 * `python3 -c`, `node -e`, `... | sh`, `bash <<EOF`) is unanalysable as far as the permission
 * engine is concerned: never read-only, destructive-unknown, never granted for the session. Shell
 * code that is static is still parsed (and reported in `runs`), so that deny rules and protected
 * paths see `sh -c 'rm -rf src'`. A script file (`python3 build.py`) is not read-only either, and
 * an interpreter is never granted for the session. Only a bare version query is read-only.
 */

interface InterpreterSpec {
  /** Options whose value (attached, `=`, or the next word) is code. */
  readonly code: readonly string[]
  /** Short option letters that take code when clustered (`perl -ne`, `node -pe`). */
  readonly codeInCluster?: string
  /** Options that take a separate value that is not code (so it is not the script name). */
  readonly values: readonly string[]
  /** The whole argument list of a version query. */
  readonly version: readonly string[]
  /** A first word that is a subcommand taking code (`deno eval CODE`) or a script (`deno run F`). */
  readonly subcommands?: Readonly<Record<string, 'code' | 'file'>>
  /** Operands after the first are code (`sqlite3 DB SQL`). */
  readonly codeOperands?: boolean
}

const PYTHON: InterpreterSpec = {
  code: ['-c'],
  values: ['-W', '-X', '--check-hash-based-pycs', '-m'],
  version: ['--version', '-V', '-VV'],
}
const NODE: InterpreterSpec = {
  code: ['-e', '--eval', '-p', '--print'],
  codeInCluster: 'ep',
  values: [
    '-r',
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '-C',
    '--conditions',
    '--input-type',
    '--env-file',
    '--title',
    '--stack-size',
  ],
  version: ['--version', '-v'],
}
const PERL: InterpreterSpec = {
  code: ['-e', '-E'],
  codeInCluster: 'eE',
  values: ['-I', '-M', '-m', '-F', '-x', '-C', '-d', '-D'],
  version: ['--version', '-v', '-V'],
}
const RUBY: InterpreterSpec = {
  code: ['-e'],
  codeInCluster: 'e',
  values: ['-I', '-r', '-C', '-E', '-F', '--encoding'],
  version: ['--version', '-v'],
}
const PHP: InterpreterSpec = {
  code: ['-r', '-R', '-B', '-E'],
  values: ['-f', '-c', '-d', '-t', '-S', '-z'],
  version: ['--version', '-v'],
}
const LUA: InterpreterSpec = { code: ['-e'], values: ['-l'], version: ['-v'] }

const INTERPRETERS: Readonly<Record<string, InterpreterSpec>> = {
  python: PYTHON,
  python2: PYTHON,
  python3: PYTHON,
  pypy: PYTHON,
  pypy3: PYTHON,
  node: NODE,
  nodejs: NODE,
  bun: { ...NODE, subcommands: { run: 'file', x: 'file', test: 'file' } },
  deno: {
    code: ['--eval'],
    values: [],
    version: ['--version', '-V'],
    subcommands: { eval: 'code', run: 'file', repl: 'file', test: 'file', task: 'file' },
  },
  perl: PERL,
  ruby: RUBY,
  irb: RUBY,
  php: PHP,
  lua: LUA,
  luajit: LUA,
  Rscript: { code: ['-e'], values: [], version: ['--version'] },
  R: { code: ['-e'], values: ['-f'], version: ['--version'] },
  osascript: { code: ['-e'], values: ['-l'], version: [] },
  expect: { code: ['-c'], values: ['-f'], version: ['-v'] },
  tclsh: { code: [], values: ['-encoding'], version: [] },
  wish: { code: [], values: ['-encoding'], version: [] },
  // No version query is read-only for these: jshell starts a JVM (it writes
  // /tmp/hsperfdata_*), gdb starts its Python (it writes __pycache__ beside its modules; found by
  // the differential fuzzer).
  jshell: { code: [], values: [], version: [] },
  gdb: {
    code: ['-ex', '--eval-command', '-iex', '--init-eval-command'],
    values: ['-x', '--command', '-p', '--pid'],
    version: [],
  },
  sqlite3: {
    code: ['-cmd'],
    values: ['-separator', '-newline', '-nullvalue'],
    version: ['-version', '--version'],
    codeOperands: true,
  },
}

// Versioned names: python3.11, perl5.36, php8.2, lua5.4, ruby3.1, node20.
const VERSIONED = /^(python|pypy|perl|php|lua|ruby|node)[0-9][0-9.]*$/

const SHELLS = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'pdksh',
  'ash',
  'rbash',
  'fish',
  'csh',
  'tcsh',
  'yash',
  'posh',
])

function isShell(program: string): boolean {
  return SHELLS.has(program)
}

export function isInterpreter(program: string): boolean {
  return (
    SHELLS.has(program) ||
    Object.hasOwn(INTERPRETERS, program) ||
    VERSIONED.test(program) ||
    program === 'eval' ||
    program === 'source' ||
    program === '.'
  )
}

export function judgeInterpreter(
  program: string,
  args: readonly Word[],
  ctx: JudgeContext,
): Judgement | undefined {
  if (SHELLS.has(program)) return judgeShell(program, args, ctx)
  if (program === 'eval') {
    if (args.length === 0) return ok('eval without arguments does nothing')
    return code(program, 'inline', shellCodeFromWords(args, 'eval'), 'runs its arguments as shell code')
  }
  if (program === 'source' || program === '.') {
    const file = args[0]
    if (file === undefined) return no(`${program} without a file is not analysed`, { unsure: true })
    return code(
      program,
      file.kind === 'static' ? 'file' : 'dynamic',
      [],
      `runs the shell script ${describeWord(file)} in this shell`,
    )
  }
  const spec =
    own(INTERPRETERS, program) ??
    (VERSIONED.test(program) ? own(INTERPRETERS, program.replace(/[0-9][0-9.]*$/, '')) : undefined)
  if (spec === undefined) return undefined
  return judgeLanguage(program, spec, args, ctx)
}

function judgeLanguage(
  program: string,
  spec: InterpreterSpec,
  args: readonly Word[],
  ctx: JudgeContext,
): Judgement {
  if (args.length === 1 && args[0]!.kind === 'static' && spec.version.includes(args[0]!.value))
    return ok(`${program} ${args[0]!.value} only prints its version`)
  const first = args[0]
  if (
    spec.subcommands !== undefined &&
    first?.kind === 'static' &&
    Object.hasOwn(spec.subcommands, first.value)
  ) {
    const kind = spec.subcommands[first.value]!
    return code(
      program,
      kind === 'code' ? 'inline' : 'file',
      [],
      kind === 'code'
        ? 'runs code given on the command line'
        : `runs ${first.value} with a program from a file`,
    )
  }
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') {
      if (mayBeOption(w))
        return code(program, 'dynamic', [], `is given ${describeWord(w)} where an option may stand`)
      return code(program, 'file', [], `runs the program ${describeWord(w)}`)
    }
    const a = w.value
    if (a === '--') {
      const script = args[i + 1]
      return script === undefined
        ? stdinCode(program, ctx)
        : code(
            program,
            script.kind === 'static' ? 'file' : 'dynamic',
            [],
            `runs the program ${describeWord(script)}`,
          )
    }
    if (a === '-') return stdinCode(program, ctx)
    const eq = a.indexOf('=')
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a
    const inCluster =
      spec.codeInCluster !== undefined &&
      /^-[A-Za-z]+$/.test(a) &&
      [...a.slice(1)].some((c) => spec.codeInCluster!.includes(c))
    const codeOption =
      spec.code.includes(name) ||
      spec.code.some((c) => c.length === 2 && a.startsWith(c) && !a.startsWith('--'))
    if (codeOption || inCluster) {
      // The code: `--eval=CODE`, `-cCODE`, or the next word (`-c CODE`, `-pe CODE`).
      const attached =
        eq > 0 ? a.slice(eq + 1) : codeOption && a.length > 2 && !a.startsWith('--') ? a.slice(2) : undefined
      const text = attached ?? staticText(args[i + 1])
      return code(
        program,
        'inline',
        [],
        'runs code given on the command line',
        text === undefined ? [] : pathsInCode(text),
      )
    }
    if (!a.startsWith('-')) {
      if (spec.codeOperands === true && args.length > i + 1)
        return code(program, 'inline', [], 'runs code given on the command line')
      return code(program, 'file', [], `runs the program ${a}`)
    }
    if (spec.values.includes(name) && eq < 0) i++
  }
  return stdinCode(program, ctx)
}

function stdinCode(program: string, ctx: JudgeContext): Judgement {
  switch (ctx.stdin.kind) {
    case 'text':
      return code(
        program,
        'inline',
        isShell(program) ? [{ kind: 'shell', code: ctx.stdin.text, via: `${program} <<` }] : [],
        'runs code from a here-document',
      )
    case 'file':
      return code(program, 'file', [], 'runs code from a redirected file')
    case 'pipe':
      return code(program, 'stdin', [], 'runs code it reads from standard input')
    case 'inherit':
      return code(program, 'stdin', [], 'runs code it reads from standard input')
    default:
      return assertNever(ctx.stdin)
  }
}

function code(
  program: string,
  kind: CodeKind,
  runs: readonly InnerCommand[],
  why: string,
  mentions: readonly Word[] = [],
): Judgement {
  return no(`${program} ${why}`, { code: kind, interpreter: true, runs, mentions })
}

const staticText = (w: Word | undefined): string | undefined => (w?.kind === 'static' ? w.value : undefined)

/**
 * bash-style shells: `-c` makes the first operand the code; otherwise the first operand is a
 * script and without one (or with `-s`) the code comes from standard input. Options may be
 * clustered and spelled with `+` (`+x`, `+O extglob`); `-o`/`-O`/`+o`/`+O` take a value.
 */
function judgeShell(program: string, args: readonly Word[], ctx: JudgeContext): Judgement {
  if (args.length === 1 && args[0]!.kind === 'static' && ['--version', '-version'].includes(args[0]!.value))
    return ok(`${program} --version only prints its version`)
  let inline = false
  let fromStdin = false
  let i = 0
  for (; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') {
      if (mayBeOption(w))
        return code(program, 'dynamic', [], `is given ${describeWord(w)} where an option may stand`)
      break
    }
    const a = w.value
    if (a === '--' || a === '-') {
      i++
      break
    }
    if (a.startsWith('--')) {
      if (a === '--rcfile' || a === '--init-file') i++
      continue
    }
    if (!(a.startsWith('-') || a.startsWith('+')) || a.length === 1) break
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!
      if (c === 'c') inline = true
      else if (c === 's') fromStdin = true
      else if (c === 'o' || c === 'O') {
        if (j === a.length - 1) i++
        break
      }
    }
  }
  const operand = args[i]
  if (inline) {
    if (operand === undefined)
      return no(`${program} -c without code is not analysed`, { unsure: true, interpreter: true })
    return code(
      program,
      operand.kind === 'static' ? 'inline' : 'dynamic',
      [{ kind: 'shell', code: operand, via: `${program} -c` }],
      'runs shell code given on the command line',
    )
  }
  if (operand !== undefined && !fromStdin) {
    return code(
      program,
      operand.kind === 'static' ? 'file' : 'dynamic',
      [],
      `runs the shell script ${describeWord(operand)}`,
    )
  }
  return stdinCode(program, ctx)
}
