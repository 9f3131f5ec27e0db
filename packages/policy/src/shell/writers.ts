import { lit, no } from './judgement.js'
import { own } from './own.js'
import type { Judgement, Word } from './types.js'

/**
 * Programs that write the files they name. They are never read-only; what matters is which
 * operands they change, reported in `writes` so the permission engine checks those paths against
 * the workspace boundary and the protected-path table: every operand (`rm`, `touch`, `chmod`),
 * the last one (`cp`, `mv`, `ln`: the destination), or the `-t DIR` target.
 */
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

/** The judgement of a writer (or `dd`), or undefined when `program` is not one. */
export function judgeWriter(program: string, args: readonly Word[]): Judgement | undefined {
  const mode = own(WRITERS, program)
  if (mode !== undefined) return writtenOperands(program, args, mode)
  if (program === 'dd') {
    const of = args.find((w) => w.kind === 'static' && w.value.startsWith('of='))
    return no('dd changes files', { writes: of?.kind === 'static' ? [lit(of.value.slice(3))] : [] })
  }
  return undefined
}

/** Every operand (or the last, or the `-t DIR` target) is a file the writer changes. */
function writtenOperands(program: string, args: readonly Word[], mode: 'all' | 'last'): Judgement {
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
