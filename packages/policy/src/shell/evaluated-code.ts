import type { CodeProblem } from './simple-command.js'
import type { InnerCommand, Judgement, Word } from './types.js'

/**
 * Code that bash runs from a command's words without a command name in sight (issue 12 §5, the
 * arithmetic-injection class), judged whatever table knows the program:
 *
 * - builtins that take shell code as an argument: `trap CODE SIG`, `mapfile -C CODE`,
 *   `compgen/complete -C CODE`, `alias name=CODE`: the code is analysed like `sh -c` code (every
 *   deny rule and the destructive check see the commands in it);
 * - builtins that evaluate a variable name or an arithmetic expression, where an array subscript
 *   runs command substitutions: `let 'a[$(rm x)]'`, `printf -v 'a[$(rm x)]'`, `read`, `mapfile`,
 *   `declare`, `unset`, `test -v`, `wait -p`, `getopts`; and builtins that change what later
 *   commands run (`hash -p`, `enable`, `bind -x`): code only known at run time;
 * - a construct in the words that the walk does not descend (`$((a[$(rm x)]))`, `${x:-$(rm x)}`,
 *   `${!x}`): code only known at run time.
 *
 * Code only known at run time is `code: 'dynamic'`: destructive-unknown for the permission engine
 * and matched by every deny rule (seed 003 §8.4: unsure means not read-only; a deny rule means the
 * thing, not the spelling).
 */

/** Builtins whose operands (or option values) are variable names, possibly with a subscript. */
const NAME_EVALUATORS: ReadonlySet<string> = new Set([
  'let',
  'printf',
  'read',
  'mapfile',
  'readarray',
  'declare',
  'typeset',
  'local',
  'readonly',
  'export',
  'unset',
  'test',
  '[',
  'wait',
  'getopts',
])

/** Builtins that change what later commands in the same shell run. */
const COMMAND_CHANGERS: ReadonlySet<string> = new Set(['hash', 'enable', 'bind'])

/** A subscript with an expansion or a substitution inside it (`a[$(id)]`, ``a[`id`]``, `a[$x]`). */
const SUBSCRIPT_CODE = /\[[^\]]*[$`]/

export function withEvaluatedCode(
  j: Judgement,
  words: readonly Word[],
  runsCode: CodeProblem | undefined,
): Judgement {
  if (runsCode !== undefined) return dynamicCode(j, runsCode.reason)
  let i = 0
  // `command trap ...`, `builtin let ...` run the builtin itself.
  while (words[i]?.kind === 'static' && ['command', 'builtin'].includes(staticAt(words, i)!)) {
    i++
    while (/^-[pvV]+$/.test(staticAt(words, i) ?? '')) i++
  }
  const name = staticAt(words, i)
  if (name === undefined) return j
  const args = words.slice(i + 1)
  const code = shellCodeArguments(name, args)
  if (code === 'dynamic') return dynamicCode(j, `${name} with a code argument only known at run time`)
  if (code.length > 0) {
    const runs: InnerCommand[] = [
      ...j.runs,
      ...code.map((c) => ({ kind: 'shell' as const, code: c, via: name })),
    ]
    return {
      ...j,
      readOnly: false,
      reason: j.readOnly ? `${name} runs shell code given as an argument` : j.reason,
      runs,
      code: j.code ?? 'inline',
    }
  }
  if (COMMAND_CHANGERS.has(name) && args.length > 0)
    return dynamicCode(j, `${name} with arguments changes what later commands run`)
  if (NAME_EVALUATORS.has(name)) {
    for (const w of evaluatedWords(name, args)) {
      if (w.kind === 'static' ? evaluates(name, w.value) : name === 'let')
        return dynamicCode(
          j,
          `${name} evaluates ${w.kind === 'static' ? `'${w.value}'` : 'a word only known at run time'} as a variable name or arithmetic, which can run command substitutions`,
        )
    }
  }
  return j
}

/**
 * The words a builtin evaluates as names or arithmetic: `printf -v NAME` only NAME; `test -v NAME`
 * only NAME; `declare NAME=VALUE` the NAME (and with `-n` the value too: a name reference is
 * evaluated where it is used); the other builtins every word.
 */
function evaluatedWords(program: string, args: readonly Word[]): Word[] {
  const after = (flags: readonly string[]) =>
    args.flatMap((w, i) => {
      const prev = args[i - 1]
      return prev?.kind === 'static' && flags.includes(prev.value) ? [w] : []
    })
  switch (program) {
    case 'printf':
      return after(['-v'])
    case 'test':
    case '[':
      return after(['-v', '-R'])
    case 'declare':
    case 'typeset':
    case 'local':
    case 'readonly':
    case 'export': {
      const nameref = args.some((w) => w.kind === 'static' && /^-[a-zA-Z]*n/.test(w.value))
      if (nameref) return [...args]
      return args.map((w) =>
        w.kind === 'static' && w.value.includes('=')
          ? { kind: 'static', value: w.value.split('=', 1)[0]! }
          : w,
      )
    }
    default:
      return [...args]
  }
}

function staticAt(words: readonly Word[], i: number): string | undefined {
  const w = words[i]
  return w?.kind === 'static' ? w.value : undefined
}

/** Does bash evaluate code in this operand of a name- or arithmetic-evaluating builtin? */
function evaluates(program: string, value: string): boolean {
  if (SUBSCRIPT_CODE.test(value)) return true
  // `let` evaluates every operand as arithmetic: a substitution in it runs.
  return program === 'let' && /[$`]/.test(value)
}

function dynamicCode(j: Judgement, reason: string): Judgement {
  return {
    ...j,
    readOnly: false,
    unsure: true,
    reason: j.readOnly ? reason : j.reason,
    code: 'dynamic',
  }
}

/** The shell code a builtin takes as an argument, or 'dynamic' when it is only known at run time. */
function shellCodeArguments(program: string, args: readonly Word[]): Word[] | 'dynamic' {
  switch (program) {
    case 'trap':
      return trapAction(args)
    case 'mapfile':
    case 'readarray':
    case 'compgen':
    case 'complete':
      return optionValues(args, 'C')
    case 'alias': {
      const out: Word[] = []
      for (const w of args) {
        if (w.kind !== 'static') return 'dynamic'
        const eq = w.value.indexOf('=')
        if (eq > 0) out.push({ kind: 'static', value: w.value.slice(eq + 1) })
      }
      return out
    }
    default:
      return []
  }
}

/** `trap [-lpP] [[ACTION] SIGSPEC...]`: with two or more operands the first is the action. */
function trapAction(args: readonly Word[]): Word[] | 'dynamic' {
  const first = args[0]
  let rest = args
  if (first?.kind === 'static') {
    if (/^-[lpP]+$/.test(first.value)) return [] // -l, -p, -P only print
    if (first.value === '--') rest = args.slice(1)
  }
  if (rest.length < 2) return []
  const action = rest[0]!
  if (action.kind !== 'static') return 'dynamic'
  if (action.value === '' || action.value === '-') return []
  return [action]
}

/** Values of a short option (`-C code`, `-Ccode`, inside a cluster `-tC code`). */
function optionValues(args: readonly Word[], letter: string): Word[] | 'dynamic' {
  const out: Word[] = []
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (w.kind === 'glob') {
      if (w.text.startsWith('-') || /^[*?[]/.test(w.text)) return 'dynamic'
      continue
    }
    if (w.kind === 'dynamic') {
      // A word only known at run time where an option may stand could be -C.
      if (w.prefix === '' || w.prefix.startsWith('-')) return 'dynamic'
      continue
    }
    if (w.value === '--') break
    if (!/^-[^-]/.test(w.value)) continue
    const at = w.value.indexOf(letter)
    if (at < 0) continue
    const attached = w.value.slice(at + 1)
    if (attached !== '') out.push({ kind: 'static', value: attached })
    else {
      const next = args[i + 1]
      if (next === undefined) continue
      if (next.kind !== 'static') return 'dynamic'
      out.push(next)
      i++
    }
  }
  return out
}
