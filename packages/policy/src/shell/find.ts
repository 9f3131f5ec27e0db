import type { InnerJudge, JudgeContext } from './context.js'
import { lit, no, ok, unsure } from './judgement.js'
import type { ContentRead, InnerCommand, Judgement, Word } from './types.js'
import { describeWord, mayBeOption } from './words.js'
import { wrap } from './wrappers.js'

/**
 * GNU find 4.9: `find [-H] [-L] [-P] [-D opts] [-Olevel] [starting-point...] [expression]`.
 * Read-only without the actions that delete or write (`-delete`, `-fprint*`, `-fls`); `-exec`,
 * `-execdir`, `-ok`, `-okdir` run a command, judged like any other with `{}` standing for the
 * paths found (files below the starting points), so `find . -name '*.ts' -exec wc -l {} +` is
 * read-only and `find . -exec rm {} \;` is `rm` on every file.
 */

// Primaries that take one value (two for -fprintf), by GNU find's manual.
const ONE_VALUE = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-lname',
  '-ilname',
  '-type',
  '-xtype',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-perm',
  '-size',
  '-links',
  '-inum',
  '-samefile',
  '-newer',
  '-anewer',
  '-cnewer',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-used',
  '-maxdepth',
  '-mindepth',
  '-fstype',
  '-context',
  '-printf',
  '-regextype',
  '-files0-from',
])
const NO_VALUE = new Set([
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-true',
  '-false',
  '-empty',
  '-readable',
  '-writable',
  '-executable',
  '-nouser',
  '-nogroup',
  '-depth',
  '-mount',
  '-xdev',
  '-noleaf',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-daystart',
  '-follow',
  '-warn',
  '-nowarn',
  '-not',
  '-a',
  '-and',
  '-o',
  '-or',
  '!',
  '(',
  ')',
  ',',
  '-help',
  '--help',
  '-version',
  '--version',
])
const WRITES_VALUE = new Set(['-fprint', '-fprint0', '-fls'])
const EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir'])

export function judgeFind(args: readonly Word[], ctx: JudgeContext, inner: InnerJudge): Judgement {
  let i = 0
  let follow = false
  // Leading options.
  for (; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static') break
    const a = w.value
    if (a === '-H' || a === '-P') continue
    if (a === '-L') {
      follow = true
      continue
    }
    if (a === '-D') {
      i++
      continue
    }
    if (/^-O\d*$/.test(a)) continue
    break
  }
  // Starting points: up to the first word that starts an expression.
  const roots: Word[] = []
  for (; i < args.length; i++) {
    const w = args[i]!
    if (w.kind === 'static') {
      if (w.value.startsWith('-') || w.value === '(' || w.value === '!') break
      roots.push(w)
      continue
    }
    if (mayBeOption(w))
      return unsure(`find with ${describeWord(w)} where an expression may start is not analysed`)
    roots.push(w)
  }
  if (roots.length === 0) roots.push(lit('.'))
  const writes: Word[] = []
  const reads: ContentRead[] = []
  const runs: InnerCommand[] = []
  let verdict: Judgement | undefined
  for (; i < args.length; i++) {
    const w = args[i]!
    if (w.kind !== 'static')
      return unsure(`find with ${describeWord(w)} in its expression could expand to an action`)
    const a = w.value
    if (NO_VALUE.has(a)) {
      if (a === '-follow') follow = true
      continue
    }
    if (ONE_VALUE.has(a)) {
      const v = args[++i]
      if (v === undefined) return unsure(`find ${a} needs a value`)
      // An unquoted glob or expansion may become several words, the next ones read as actions
      // (`find . -name *` with a file named `-delete`).
      if (splits(v)) return unsure(`find ${a} with ${describeWord(v)}, which may expand to several words`)
      if (a === '-files0-from' || a === '-newer' || a === '-anewer' || a === '-cnewer' || a === '-samefile')
        reads.push({ word: v })
      continue
    }
    if (/^-newer[amcBt][amcBt]$/.test(a)) {
      const v = args[++i]
      if (v !== undefined && splits(v))
        return unsure(`find ${a} with ${describeWord(v)}, which may expand to several words`)
      continue
    }
    if (a === '-delete') {
      verdict ??= no('find -delete deletes files')
      continue
    }
    if (WRITES_VALUE.has(a) || a === '-fprintf') {
      const v = args[++i]
      if (v === undefined) return unsure(`find ${a} needs a file`)
      if (a === '-fprintf') i++
      writes.push(v)
      verdict ??= no(`find ${a} writes ${describeWord(v)}`)
      continue
    }
    if (EXEC.has(a)) {
      const start = i + 1
      let end = start
      while (end < args.length && !isTerminator(args[end]!)) end++
      if (end >= args.length) return unsure(`find ${a} without a terminating ';' or '+'`)
      // A found path starts with its starting point (`./name` for -execdir), never with `-`.
      const first = roots.every((r) => r.kind === 'static') ? (roots[0] as { value: string }).value : ''
      const prefix = a === '-execdir' || a === '-okdir' ? './' : first
      const found: Word = { kind: 'dynamic', why: 'a path found by find', prefix, split: false }
      const command = args
        .slice(start, end)
        .map((x) => (x.kind === 'static' && x.value.includes('{}') ? found : x))
      if (command.length === 0) return unsure(`find ${a} without a command`)
      const j = inner(command, { depth: ctx.depth + 1, stdin: { kind: 'inherit' } })
      runs.push({ kind: 'argv', words: command, ...(j.opaque === true ? { opaque: true } : {}) }, ...j.runs)
      // What the command reads as `{}` is a file below the starting points.
      const recursive = { followLinks: follow, skipHidden: false }
      for (const r of j.reads) if (r.word !== found) reads.push(r)
      if (j.reads.some((r) => r.word === found))
        for (const root of roots) reads.push({ word: root, recursive })
      writes.push(...j.writes)
      if (!j.readOnly)
        verdict ??= { ...wrap(`find ${a}`, j, command, undefined), writes: [], reads: [], runs: [] }
      i = end
      continue
    }
    return unsure(`find primary ${a} is not analysed`)
  }
  const extra = { writes, reads, runs }
  if (verdict !== undefined) return { ...verdict, ...extra }
  return ok(
    runs.length > 0
      ? 'find runs only read-only commands on what it finds'
      : 'find without actions only lists names',
    extra,
  )
}

function splits(w: Word): boolean {
  return w.kind === 'glob' || (w.kind === 'dynamic' && w.split)
}

function isTerminator(w: Word): boolean {
  return w.kind === 'static' && (w.value === ';' || w.value === '+')
}
