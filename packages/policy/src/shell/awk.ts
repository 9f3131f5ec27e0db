/**
 * awk programs are read-only only when they cannot run commands or write files: no `system`, no
 * `|` (pipes to or from commands, also `|&`), no `>` (output redirection; this also refuses the
 * comparison `a > b`, a deliberate over-approximation), no `getline`, no `@` (gawk `@load`,
 * `@include`), no `printf`-to-file forms (they need `>`), and no `ENVIRON`-driven tricks are
 * possible without those. Returns a reason, or `undefined` when read-only.
 */
const FORBIDDEN: readonly [RegExp, string][] = [
  [/system/, 'calls system()'],
  [/\|/, 'pipes to or from a command'],
  [/>/, 'may redirect output to a file (`>`)'],
  [/getline/, 'uses getline (can read from a command)'],
  [/@/, 'uses a gawk directive (@load/@include)'],
  [/fflush|close|PROCINFO/, 'uses I/O control functions'],
]

export function judgeAwkProgram(program: string): string | undefined {
  for (const [re, why] of FORBIDDEN) if (re.test(program)) return why
  return undefined
}
