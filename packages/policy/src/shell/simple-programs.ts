import { no, ok, unsure } from './judgement.js'
import type { Judgement, Word } from './types.js'
import { describeWord, mayBeOption } from './words.js'

/**
 * Small programs and builtins whose whole grammar fits in a few lines, each judged by its own
 * function: the directory builtins, `printf` (not `-v`), `date` (not setting the clock), `test`
 * and `[` (static operands only), `read` (plain lowercase variables only) and `hostname` (no
 * arguments). Larger families have their own files (programs.ts lists them).
 */
type SimpleJudge = (args: readonly Word[], program: string) => Judgement

const changesDirectory: SimpleJudge = (_args, program) => ok(`${program} changes only this shell's directory`)

export const SIMPLE_PROGRAMS = {
  cd: changesDirectory,
  pushd: changesDirectory,
  popd: changesDirectory,
  dirs: changesDirectory,
  printf: judgePrintf,
  date: judgeDate,
  test: judgeTest,
  '[': judgeTest,
  read: judgeRead,
  // Options such as -f, -d, -i resolve names (DNS: network); operands set the host name.
  hostname: (args) =>
    args.length === 0
      ? ok('hostname only prints the host name')
      : no('hostname with arguments resolves names or sets the host name', { unsure: true }),
} satisfies Readonly<Record<string, SimpleJudge>>

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

/** `test`, `[` (and, from the walk, `[[`): read-only only when every operand is static. */
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
