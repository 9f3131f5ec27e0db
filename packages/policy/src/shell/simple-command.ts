import { judgeProgram } from './programs.js'
import type { SimpleCommandInfo, Verdict, Word } from './types.js'

/**
 * The intermediate representation both front-ends produce (the tree-sitter walk in walk.ts and the
 * strict fast parser in fast-parse.ts), and the one place that judges it. Keeping the judgement
 * here is what makes the fast path safe to add: a front-end only decides *what the words and
 * redirects are*; what they mean is decided once, by the same tables (seed 003 §8.4).
 */

/** Something that makes the whole command not read-only; `unsure` = "not understood". */
export interface Problem {
  readonly reason: string
  readonly unsure: boolean
}

/** The accumulated result of one classification, filled by a front-end. */
export interface WalkState {
  readonly commands: SimpleCommandInfo[]
  /** Problems in source order: per simple command, and structural ones (syntax, `&`, group redirects). */
  readonly problems: Problem[]
  readonly writes: string[]
  depth: number
  /** Set when some part of the input is not represented by a simple command (see splitCompound). */
  incomplete: boolean
}

export function newWalkState(): WalkState {
  return { commands: [], problems: [], writes: [], depth: 0, incomplete: false }
}

/** A problem not tied to one simple command: the input is then not fully represented part by part. */
export function structural(st: WalkState, reason: string, unsure: boolean): void {
  st.incomplete = true
  st.problems.push({ reason, unsure })
}

/**
 * One redirect, in source order. `file`: a file redirect whose operator and target words the
 * front-end resolved (`2>&1` is `{ op: '>&', targets: [1] }`). `problem`: something the front-end
 * found while reading it (unparsed parts, an expansion that can run code, a heredoc it refuses).
 */
export type RedirectIR =
  | { readonly kind: 'file'; readonly op: string; readonly targets: readonly Word[]; readonly text: string }
  | { readonly kind: 'problem'; readonly reason: string; readonly unsure: boolean }

/** One simple command as a front-end read it. */
export interface SimpleCommandIR {
  /** Source text of the command words, then ` ` + each trailing redirect's source text. */
  readonly text: string
  /** Tokens (assignments, words, redirects) as written, joined by one space. */
  readonly canonical: string
  /** Command name and arguments after quote removal (`dynamic` when only known at run time). */
  readonly words: readonly Word[]
  /** The first problem the front-end found in the words or env prefixes, if any. */
  readonly problem?: Problem
  /** Redirects: the command's own, then those of an enclosing redirected statement. */
  readonly redirects: readonly RedirectIR[]
}

/** Redirect targets that never write a file. */
const HARMLESS_TARGETS: ReadonlySet<string> = new Set([
  '/dev/null',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/fd/1',
  '/dev/fd/2',
])

const DESCRIPTOR = /^\d+-?$/
const NETWORK_PATH = /^\/dev\/(tcp|udp)\//

export interface RedirectVerdict {
  readonly writes: string[]
  problem?: string
  unsure: boolean
}

/** Judge redirects in order; the first problem wins, every statically known write target is kept. */
export function judgeRedirects(redirects: readonly RedirectIR[]): RedirectVerdict {
  const info: RedirectVerdict = { writes: [], unsure: false }
  for (const r of redirects) {
    if (r.kind === 'problem') fail(info, r.reason, r.unsure)
    else judgeFileRedirect(r.op, r.targets, r.text, info)
  }
  return info
}

function fail(info: RedirectVerdict, reason: string, unsure: boolean): void {
  if (info.problem === undefined) {
    info.problem = reason
    info.unsure = unsure
  }
}

function judgeFileRedirect(op: string, targets: readonly Word[], text: string, info: RedirectVerdict): void {
  switch (op) {
    case '<':
      for (const t of targets) {
        if (t.kind === 'dynamic') fail(info, `input redirect from a dynamic path (${t.why})`, true)
        else if (NETWORK_PATH.test(t.value))
          fail(info, `input redirect from ${t.value} opens a network connection`, false)
      }
      return
    case '<&-':
    case '>&-':
      return
    case '>&':
    case '<&':
      // `2>&1`, `>&2`, `<&0`: duplicate a descriptor. `>& file` is `&> file` (writes).
      if (targets.every((t) => t.kind === 'static' && (DESCRIPTOR.test(t.value) || t.value === '-'))) return
      if (op === '<&') {
        fail(info, `redirect '${clip(text)}' is not analysed`, true)
        return
      }
      writeTargets(targets, info)
      return
    case '>':
    case '>>':
    case '>|':
    case '&>':
    case '&>>':
      writeTargets(targets, info)
      return
    default:
      fail(info, `redirect operator '${op}' is not analysed`, true)
  }
}

function writeTargets(targets: readonly Word[], info: RedirectVerdict): void {
  for (const t of targets) {
    if (t.kind === 'dynamic') {
      fail(info, `redirect writes to a path that is only known at run time (${t.why})`, true)
      continue
    }
    if (HARMLESS_TARGETS.has(t.value)) continue
    info.writes.push(t.value)
    fail(info, `redirect writes to ${t.value}`, false)
  }
}

/** Judge one simple command by the program table and its redirects, and record it. */
export function recordSimpleCommand(ir: SimpleCommandIR, st: WalkState): void {
  const { words, problem } = ir
  const red = judgeRedirects(ir.redirects)
  const verdict: Verdict =
    words.length === 0
      ? { readOnly: false, reason: 'no command name', unsure: true }
      : judgeProgram(words[0]!, words.slice(1))
  const writes =
    verdict.readOnly || verdict.writes === undefined ? red.writes : [...verdict.writes, ...red.writes]
  const first = words[0]
  const program = first?.kind === 'static' ? first.value : undefined
  let argv: string[] | undefined = []
  for (const w of words) {
    if (w.kind === 'dynamic') {
      argv = undefined
      break
    }
    argv.push(w.value)
  }
  let readOnly = verdict.readOnly
  let reason = verdict.reason
  // Order of reasons: syntax/env problems first, then the program's own verdict, then redirects.
  if (problem !== undefined) {
    readOnly = false
    reason = problem.reason
  } else if (verdict.readOnly && red.problem !== undefined) {
    readOnly = false
    reason = red.problem
  }
  const unsure =
    (problem?.unsure ?? false) ||
    (!verdict.readOnly && verdict.unsure === true) ||
    (red.problem !== undefined && red.unsure && verdict.readOnly)
  if (!readOnly) st.problems.push({ reason, unsure })
  for (const w of writes) st.writes.push(w)
  // Properties are added in a fixed order (text, canonical, argv?, program?, subcommand?, readOnly,
  // reason, writes) without object spreads, which are slow on this hot path.
  const info: { -readonly [K in keyof SimpleCommandInfo]: SimpleCommandInfo[K] } = {
    text: ir.text,
    canonical: ir.canonical,
  } as SimpleCommandInfo
  if (argv !== undefined) info.argv = argv
  if (program !== undefined) info.program = program
  if (verdict.subcommand !== undefined) info.subcommand = verdict.subcommand
  info.readOnly = readOnly
  info.reason = reason
  info.writes = writes
  st.commands.push(info)
}

/** One line, at most 60 characters: for reasons that quote the command. */
export function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ')
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine
}
