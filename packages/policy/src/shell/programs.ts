import { judgeCompressor, judgeTar, judgeUnzip } from './archives.js'
import { judgeAwk } from './awk.js'
import { type InnerJudge, type JudgeContext, MAX_WRAP_DEPTH } from './context.js'
import { judgeFind } from './find.js'
import { judgeGit } from './git.js'
import { isInterpreter, judgeInterpreter } from './interpreters.js'
import { no, unsure } from './judgement.js'
import { NEVER_READ_ONLY } from './never-read-only.js'
import { judgeNpm, npmExec } from './npm.js'
import { own } from './own.js'
import { READERS } from './readers.js'
import { SIMPLE_PROGRAMS } from './simple-programs.js'
import { judgeSystem, SYSTEM } from './system.js'
import type { Judgement, Word } from './types.js'
import { describeWord } from './words.js'
import { isWrapper, judgeWrapper } from './wrappers.js'
import { judgeWriter } from './writers.js'

/**
 * The read-only program table (seed 003 §8.4 "subcommand awareness"): which file judges a program,
 * by name. A program absent from every table is not read-only. Families, each in its own file:
 *
 * - readers.ts: readers and printers, each with its option grammar (`cat`, `grep`, `sort -o`...);
 * - wrappers.ts: programs that run a command (`timeout`, `env`, `xargs`, `sudo` ...);
 * - interpreters.ts: shells and language interpreters (never read-only, code given is unknown);
 * - system.ts: programs that read system state;
 * - git.ts, find.ts, sed-command.ts + sed.ts, awk.ts, npm.ts, archives.ts: one family each
 *   (`FAMILIES` below);
 * - simple-programs.ts: small programs and builtins (`cd`, `printf`, `date`, `test`, `read` ...);
 * - never-read-only.ts: programs that are never read-only, with a reason better than "not in the
 *   table";
 * - writers.ts: programs that write the files they name (`rm`, `cp`, `dd` ...).
 */

/** Programs found by a path in these directories are judged by their name (`/usr/bin/ls`). */
const SYSTEM_DIRS = ['/bin/', '/usr/bin/', '/usr/local/bin/', '/sbin/', '/usr/sbin/', '/usr/local/sbin/']

type FamilyJudge = (program: string, args: readonly Word[], ctx: JudgeContext, inner: InnerJudge) => Judgement

const awk: FamilyJudge = (program, args) => judgeAwk(program, args)
const npx: FamilyJudge = (program, args, ctx, inner) => npmExec(args, ctx, inner, program)
const unzip: FamilyJudge = (program, args) => judgeUnzip(args, program)
const compressor: FamilyJudge = (program, args) => judgeCompressor(args, program)

/** Programs with a family of their own (a subcommand or script language of their own). */
const FAMILIES = {
  git: (_program, args) => judgeGit(args),
  find: (_program, args, ctx, inner) => judgeFind(args, ctx, inner),
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  npm: (_program, args, ctx, inner) => judgeNpm(args, ctx, inner),
  npx,
  pnpx: npx,
  bunx: npx,
  tar: (_program, args) => judgeTar(args),
  unzip,
  zipinfo: unzip,
  gzip: compressor,
  gunzip: compressor,
  zcat: compressor,
  gzcat: compressor,
  xz: compressor,
  unxz: compressor,
  xzcat: compressor,
  lzcat: compressor,
  bzip2: compressor,
  bunzip2: compressor,
  bzcat: compressor,
  zstd: compressor,
  unzstd: compressor,
  zstdcat: compressor,
  lz4: compressor,
  lz4cat: compressor,
} satisfies Readonly<Record<string, FamilyJudge>>

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

/** The first table that knows the program decides; the order matters only for names in two. */
function judgeByName(program: string, args: readonly Word[], ctx: JudgeContext): Judgement {
  const reader = own(READERS, program)
  if (reader !== undefined) return reader(args, program)
  if (isWrapper(program)) return judgeWrapper(program, args, ctx, inner)!
  if (isInterpreter(program)) return judgeInterpreter(program, args, ctx)!
  if (Object.hasOwn(SYSTEM, program)) return judgeSystem(program, args)
  const family = own<FamilyJudge>(FAMILIES, program)
  if (family !== undefined) return family(program, args, ctx, inner)
  const simple = own(SIMPLE_PROGRAMS, program)
  if (simple !== undefined) return simple(args, program)
  const why = own(NEVER_READ_ONLY, program)
  if (why !== undefined) return no(`${program}: ${why}`)
  return judgeWriter(program, args) ?? unsure(`'${program}' is not in the read-only table`, { opaque: true })
}
