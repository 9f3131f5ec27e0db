import type { Analysis, CommandFacts, Cwd, PlacedWord } from './analysis.js'
import type { Stdin } from './context.js'
import { withEvaluatedCode } from './evaluated-code.js'
import { judgeProgram } from './programs.js'
import type { Judgement, SimpleCommandInfo, Word } from './types.js'
import { describeWord } from './words.js'

/**
 * The intermediate representation the tree-sitter front-end (walk.ts) produces for each simple
 * command, and the one place that judges it: the program tables decide what the words mean, the
 * redirects are judged here (seed 003 §8.4).
 */

/** Something that makes the whole command not read-only; `unsure` = "not understood". */
export interface Problem {
  readonly reason: string
  readonly unsure: boolean
}

/** A construct in a command's words that can run code the walk does not see (words.ts `runsCode`). */
export interface CodeProblem {
  readonly reason: string
}

/** Analyses shell code a command runs (set by classify.ts; avoids an import cycle). */
export type ShellAnalyzer = (code: string, cwd: Cwd, depth: number) => Analysis

/** The accumulated result of one classification, filled by the walk. */
export interface WalkState {
  readonly commands: SimpleCommandInfo[]
  readonly facts: CommandFacts[]
  /** Problems in source order: per simple command, and structural ones (syntax, group redirects). */
  readonly problems: Problem[]
  readonly writes: string[]
  readonly structuralReads: PlacedWord[]
  readonly structuralWrites: PlacedWord[]
  depth: number
  /** Set when some part of the input is not represented by a simple command (see splitCompound). */
  incomplete: boolean
  /** Where the next command runs. */
  cwd: Cwd
  /** Values of loop variables in scope (`for f in *.ts`). */
  vars: Map<string, readonly Word[]>
  /** Depth of command substitutions around the walk (a heredoc inside one is not analysed). */
  substitution: number
  /** `shopt`, `GLOBIGNORE` or `set` appear: glob expansion may differ from the default. */
  globOptions: boolean
  /** Nesting of shell code analysed inside other code (`sh -c`). */
  readonly codeDepth: number
  readonly analyzeShell: ShellAnalyzer
}

export function newWalkState(cwd: Cwd, codeDepth: number, analyzeShell: ShellAnalyzer): WalkState {
  return {
    commands: [],
    facts: [],
    problems: [],
    writes: [],
    structuralReads: [],
    structuralWrites: [],
    depth: 0,
    incomplete: false,
    cwd,
    vars: new Map(),
    substitution: 0,
    globOptions: false,
    codeDepth,
    analyzeShell,
  }
}

/** A problem not tied to one simple command: the input is then not fully represented part by part. */
export function structural(st: WalkState, reason: string, unsure: boolean): void {
  st.incomplete = true
  st.problems.push({ reason, unsure })
}

/**
 * One redirect, in source order. `file`: a file redirect whose operator and target the front-end
 * resolved (`2>&1` is `{ op: '>&', target: 1 }`). `problem`: something the front-end found while
 * reading it (unparsed parts, an expansion that can run code, a heredoc it refuses).
 */
export type RedirectIR =
  | { readonly kind: 'file'; readonly op: string; readonly target: Word; readonly text: string }
  | { readonly kind: 'problem'; readonly reason: string; readonly unsure: boolean }

/** One simple command as the front-end read it. */
export interface SimpleCommandIR {
  /** Source text of the command words, then ` ` + each trailing redirect's source text. */
  readonly text: string
  /** Tokens (assignments, words, redirects) as written, joined by one space. */
  readonly canonical: string
  /** Command name and arguments after quote removal. */
  readonly words: readonly Word[]
  /** Values of environment prefixes. */
  readonly assignments: readonly Word[]
  /** The first problem the front-end found in the words or env prefixes, if any. */
  readonly problem?: Problem
  /** The first construct in the words that can run code the walk does not see, if any. */
  readonly runsCode?: CodeProblem
  /** Values of environment prefixes that can name a program the command runs (`PAGER=x`). */
  readonly programAssignments?: readonly Word[]
  /** Redirects: the command's own, then those of an enclosing redirected statement. */
  readonly redirects: readonly RedirectIR[]
  readonly stdin: Stdin
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
  readonly writes: Word[]
  readonly reads: Word[]
  problem?: string
  unsure: boolean
}

/** Judge redirects in order; the first problem wins, every write target is kept. */
export function judgeRedirects(redirects: readonly RedirectIR[]): RedirectVerdict {
  const info: RedirectVerdict = { writes: [], reads: [], unsure: false }
  for (const r of redirects) {
    if (r.kind === 'problem') fail(info, r.reason, r.unsure)
    else judgeFileRedirect(r.op, r.target, r.text, info)
  }
  return info
}

function fail(info: RedirectVerdict, reason: string, unsure: boolean): void {
  if (info.problem === undefined) {
    info.problem = reason
    info.unsure = unsure
  }
}

function judgeFileRedirect(op: string, t: Word, text: string, info: RedirectVerdict): void {
  switch (op) {
    case '<':
      // Always a read for the protected-path check, whatever else it may be.
      if (!(t.kind === 'static' && NETWORK_PATH.test(t.value))) info.reads.push(t)
      if (t.kind === 'static' && NETWORK_PATH.test(t.value))
        fail(info, `input redirect from ${t.value} opens a network connection`, false)
      else if (mayBeNetworkPath(t))
        fail(
          info,
          `input redirect from a path only known at run time (${describeWord(t)}) may be /dev/tcp or /dev/udp`,
          true,
        )
      return
    case '<&-':
    case '>&-':
      return
    case '>&':
    case '<&':
      // `2>&1`, `>&2`, `<&0`: duplicate a descriptor. `>& file` is `&> file` (writes).
      if (t.kind === 'static' && (DESCRIPTOR.test(t.value) || t.value === '-')) return
      if (op === '<&') {
        fail(info, `redirect '${clip(text)}' is not analysed`, true)
        return
      }
      writeTarget(t, info)
      return
    case '>':
    case '>>':
    case '>|':
    case '&>':
    case '&>>':
      writeTarget(t, info)
      return
    default:
      fail(info, `redirect operator '${op}' is not analysed`, true)
  }
}

/** Could this word be `/dev/tcp/...` or `/dev/udp/...` when bash expands it? */
function mayBeNetworkPath(t: Word): boolean {
  if (t.kind !== 'dynamic') return false
  if (t.values !== undefined)
    return t.values.some((v) => (v.kind === 'static' ? NETWORK_PATH.test(v.value) : mayBeNetworkPath(v)))
  const p = t.prefix
  return p.length < 9 ? '/dev/tcp/'.startsWith(p) || '/dev/udp/'.startsWith(p) : NETWORK_PATH.test(p)
}

function writeTarget(t: Word, info: RedirectVerdict): void {
  if (t.kind === 'static') {
    if (HARMLESS_TARGETS.has(t.value)) return
    if (NETWORK_PATH.test(t.value)) {
      fail(info, `redirect to ${t.value} opens a network connection`, false)
      return
    }
    info.writes.push(t)
    fail(info, `redirect writes to ${t.value}`, false)
    return
  }
  info.writes.push(t)
  fail(info, `redirect writes to a path that is only known at run time (${describeWord(t)})`, true)
}

/** Judge one simple command by the program tables and its redirects, and record it. */
export function recordSimpleCommand(ir: SimpleCommandIR, st: WalkState): void {
  const { words, problem } = ir
  const red = judgeRedirects(ir.redirects)
  const judged = withEvaluatedCode(judgeProgram(words, { depth: 0, stdin: ir.stdin }), words, ir.runsCode)
  const judgement: Judgement =
    ir.programAssignments === undefined
      ? judged
      : {
          ...judged,
          runs: [
            ...judged.runs,
            ...ir.programAssignments.map((code) => ({
              kind: 'shell' as const,
              code,
              via: 'an environment prefix',
            })),
          ],
        }
  const statics = (ws: readonly Word[]) => ws.flatMap((w) => (w.kind === 'static' ? [w.value] : []))
  const writes = judgement.readOnly
    ? statics(red.writes)
    : [...statics(judgement.writes), ...statics(red.writes)]
  const first = words[0]
  const program = first?.kind === 'static' ? first.value : undefined
  let argv: string[] | undefined = []
  for (const w of words) {
    if (w.kind !== 'static') {
      argv = undefined
      break
    }
    argv.push(w.value)
  }
  let readOnly = judgement.readOnly
  let reason = judgement.reason
  // Order of reasons: syntax/env problems first, then the program's own verdict, then redirects.
  if (problem !== undefined) {
    readOnly = false
    reason = problem.reason
  } else if (judgement.readOnly && red.problem !== undefined) {
    readOnly = false
    reason = red.problem
  }
  const unsure =
    (problem?.unsure ?? false) ||
    (!judgement.readOnly && judgement.unsure === true) ||
    (red.problem !== undefined && red.unsure && judgement.readOnly)
  if (!readOnly) st.problems.push({ reason, unsure })
  for (const w of writes) st.writes.push(w)
  // Properties are added in a fixed order (text, canonical, argv?, program?, subcommand?, readOnly,
  // reason, writes).
  const info: { -readonly [K in keyof SimpleCommandInfo]: SimpleCommandInfo[K] } = {
    text: ir.text,
    canonical: ir.canonical,
  } as SimpleCommandInfo
  if (argv !== undefined) info.argv = argv
  if (program !== undefined) info.program = program
  if (judgement.subcommand !== undefined) info.subcommand = judgement.subcommand
  info.readOnly = readOnly
  info.reason = reason
  info.writes = writes
  st.commands.push(info)
  const inner: Analysis[] = []
  for (const r of judgement.runs) {
    if (r.kind !== 'shell' || r.code.kind !== 'static') continue
    inner.push(st.analyzeShell(r.code.value, st.cwd, st.codeDepth + 1))
  }
  st.facts.push({
    info,
    cwd: st.cwd,
    words,
    judgement,
    redirectReads: red.reads,
    redirectWrites: red.writes,
    assignments: ir.assignments,
    inner,
  })
}

/** One line, at most 60 characters: for reasons that quote the command. */
export function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ')
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine
}
