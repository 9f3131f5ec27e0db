import { no, ok, pathsInCode, reading, unsure } from './judgement.js'
import type { Judgement, Word } from './types.js'
import { describeWord } from './words.js'

/**
 * awk programs are read-only only when they cannot run commands, write files or read files other
 * than their operands: no `system`, no `|` (pipes to or from commands, also `|&`), no `>` (output
 * redirection; this also refuses the comparison `a > b`, a deliberate over-approximation), no
 * `getline`, no `@` (gawk `@load`, `@include`, indirect calls), no I/O control functions, and no
 * `ARGV`/`ARGC` (assigning them makes awk read other files). Options: only `-F`, `-v` and `--`;
 * program files (`-f`), gawk's `-e`, `-i`, `-l`, `-o`, `-p`, `-d` and `-W` are not analysed.
 */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/system/, 'calls system()'],
  [/\|/, 'pipes to or from a command'],
  [/>/, 'may redirect output to a file (`>`)'],
  [/getline/, 'uses getline (can read from a command)'],
  [/@/, 'uses a gawk directive or an indirect call (@load/@include/@f())'],
  [/fflush|close|PROCINFO/, 'uses I/O control functions'],
  [/ARGV|ARGC/, 'changes which files it reads (ARGV/ARGC)'],
]

export function judgeAwkProgram(program: string): string | undefined {
  for (const [re, why] of FORBIDDEN) if (re.test(program)) return why
  return undefined
}

export function judgeAwk(name: string, args: readonly Word[]): Judgement {
  let i = 0
  for (; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') return unsure(`${name} with ${describeWord(w)} is not analysed`)
    const a = w.value
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
    return unsure(`${name} option ${a} is not analysed (program files, extensions and includes can run code)`)
  }
  const program = args[i]
  if (program === undefined) return unsure(`${name} without a program`)
  if (program.kind !== 'static')
    return unsure(`${name} with a program only known at run time (${describeWord(program)})`)
  const verdict = judgeAwkProgram(program.value)
  // The strings of a program that writes or runs may name the files it writes (`print > "f"`).
  if (verdict !== undefined)
    return no(`${name} program ${verdict}`, { unsure: true, mentions: pathsInCode(program.value) })
  // Operands are files, or `var=value` assignments.
  const files = args
    .slice(i + 1)
    .filter((w) => !(w.kind === 'static' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)))
  return ok(`${name} program without system(), pipes, output redirection or getline only prints`, {
    reads: reading(files),
  })
}
