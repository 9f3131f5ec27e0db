import type { Node } from 'web-tree-sitter'
import { type Analysis, type CommandFacts, type Cwd, movedAway, START } from './analysis.js'
import { parserUnavailableReason, readyParser } from './parser.js'
import { newWalkState, type WalkState } from './simple-command.js'
import { setSource, sourceSlice } from './tree-view.js'
import type { CommandClassification, SimpleCommandInfo, Word } from './types.js'
import { walkStatement } from './walk.js'

/** Inputs longer than this are not analysed (bounded time per call); bash tool commands are short. */
export const MAX_COMMAND_LENGTH = 64 * 1024

/** Shell code inside shell code (`sh -c "bash -c '...'"`) deeper than this is not analysed. */
const MAX_CODE_DEPTH = 4

const CACHE_SIZE = 1024
const CACHE_MAX_KEY = 2048
const cache = new Map<string, Analysis>()

/**
 * Classify a bash command: `readOnly` is true only when the whole command certainly cannot write
 * files, change processes or repository state, reach the network or run arbitrary code (issue 4 §1,
 * seed 003 §8.4). Synchronous once the parser is loaded (`initShellParser()`); before that it fails
 * closed. Results are deep-frozen and may be shared between calls (an LRU cache of recent commands).
 */
export function classifyCommand(command: string): CommandClassification {
  return analyzeCommand(command).classification
}

/** The classification and the per-command facts the permission engine needs (cached). */
export function analyzeCommand(command: string): Analysis {
  const hit = cache.get(command)
  if (hit !== undefined) {
    cache.delete(command)
    cache.set(command, hit)
    return hit
  }
  const result = analyze(command, START, 0)
  if (command.length <= CACHE_MAX_KEY && readyParser() !== undefined) {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!)
    cache.set(command, result)
  }
  return result
}

/** Empty the result cache (benchmarks use it to measure uncached latency). */
export function clearClassifyCache(): void {
  cache.clear()
}

/** Classification without the cache (benchmarks use it to measure uncached latency). */
export function classifyUncached(command: string): CommandClassification {
  return analyze(command, START, 0).classification
}

/**
 * Characters tree-sitter-bash skips as blanks where bash does not (bash's blanks are space and
 * tab): `find . {-fprint,\rPWN}` is one brace expansion to bash, two plain words to the parser
 * (found by the differential fuzzer). A command with one is not analysed at all.
 */
const PARSER_ONLY_BLANK = /[\r\v\f]/
const PARSER_ONLY_BLANKS: Readonly<Record<string, { readonly name: string; readonly spelling: string }>> = {
  '\r': { name: 'a carriage return (CR)', spelling: "$'\\r'" },
  '\v': { name: 'a vertical tab', spelling: "$'\\v'" },
  '\f': { name: 'a form feed', spelling: "$'\\f'" },
}

function analyze(command: string, cwd: Cwd, depth: number): Analysis {
  if (command.includes('\0')) return failed('the command contains a NUL byte')
  const blank = PARSER_ONLY_BLANK.exec(command)
  if (blank !== null) {
    const { name, spelling } = PARSER_ONLY_BLANKS[blank[0]]!
    return failed(
      `the command contains ${name}, which bash reads as part of a word and the parser as a blank (write ${spelling} if you mean the character)`,
    )
  }
  if (command.length > MAX_COMMAND_LENGTH)
    return failed(`the command is longer than ${MAX_COMMAND_LENGTH} characters and is not analysed`)
  if (depth > MAX_CODE_DEPTH) return failed('shell code nested in shell code this deep is not analysed')
  const parser = readyParser()
  if (parser === undefined) return failed(parserUnavailableReason())
  const joined = lineContinuationInWord(command)
  if (joined !== undefined)
    return failed(
      `a line continuation joins '${joined}' into one word, which the parser reads as two (bash and the parser disagree)`,
    )
  const tree = parser.parse(command)
  if (tree === null) return failed('the parser returned no tree')
  // Shell code inside this command is analysed with its own source (the walk is synchronous).
  const outerSource = sourceSlice(0, Number.MAX_SAFE_INTEGER)
  const st = newWalkState(cwd, depth, analyze)
  try {
    // Any ERROR or MISSING node anywhere (also inside words the walker resolves without
    // descending, such as an unterminated string) means bash may read the text differently.
    // The walk relies on this check: it does not test nodes for errors one by one.
    if (tree.rootNode.hasError) return failed(`the command does not parse (${describeError(tree.rootNode)})`)
    setSource(command)
    walkStatement(tree.rootNode, st)
  } finally {
    setSource(outerSource)
    tree.delete() // WASM memory is not garbage-collected
  }
  // Options that change globbing may come from anywhere in the text (`bash -O dotglob -c ...`).
  if (/shopt|GLOBIGNORE|BASHOPTS|dotglob|nocaseglob|globstar|extglob/.test(command)) st.globOptions = true
  return finish(st)
}

/**
 * bash removes a backslash-newline outside single quotes, joining what is around it (`ls\⏎blk` is
 * `lsblk`); tree-sitter-bash reads it as a blank between two words. Refused when it joins two
 * non-blank characters (found by the differential fuzzer). Returns the joined text, if any.
 */
function lineContinuationInWord(command: string): string | undefined {
  if (!command.includes('\\\n')) return undefined
  let single = false
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!
    if (single) {
      if (c === "'") single = false
      continue
    }
    if (c === "'") single = true
    else if (c === '\\') {
      if (command[i + 1] === '\n') {
        const before = command[i - 1]
        const after = command[i + 2]
        if (before !== undefined && after !== undefined && !/\s/.test(before) && !/\s/.test(after)) {
          const left = /\S+$/.exec(command.slice(0, i))?.[0] ?? ''
          const right = /^\S+/.exec(command.slice(i + 2))?.[0] ?? ''
          return `${left.slice(-20)}${right.slice(0, 20)}`
        }
      }
      i++
    }
  }
  return undefined
}

function finish(st: WalkState): Analysis {
  flagGitAfterCd(st)
  const classification = build(st)
  return Object.freeze({
    classification,
    facts: Object.freeze(st.facts),
    complete: !st.incomplete && st.commands.length > 0,
    reads: Object.freeze(st.structuralReads),
    writes: Object.freeze(st.structuralWrites),
    globOptions: st.globOptions,
  })
}

function build(st: WalkState): CommandClassification {
  const commands = deepFreeze(st.commands)
  const first = st.problems[0]
  if (first === undefined) {
    if (commands.length === 0) return unsureResult('no command found')
    return Object.freeze({
      readOnly: true,
      reason:
        commands.length === 1 ? commands[0]!.reason : `every command only reads (${programNames(commands)})`,
      commands,
      writes: NO_WRITES,
    })
  }
  const unsureAny = st.problems.some((p) => p.unsure)
  // Unsure only when no part is known to write: a known write is the stronger statement.
  const knownBad = st.problems.some((p) => !p.unsure)
  const writes = st.writes.length === 0 ? NO_WRITES : Object.freeze([...new Set(st.writes)])
  const reasons = Object.freeze([...new Set(st.problems.map((p) => p.reason))])
  return Object.freeze(
    unsureAny && !knownBad
      ? { readOnly: false, reason: first.reason, reasons, commands, writes, unsure: true }
      : { readOnly: false, reason: first.reason, reasons, commands, writes },
  )
}

const NO_WRITES = Object.freeze([]) as readonly []

/**
 * git after a directory change may use another repository's configuration, which can name a pager
 * or an fsmonitor hook that runs code; only git in the starting directory is judged read-only,
 * also behind wrappers (`cd sub && command git status`, `cd sub && timeout 5 git log`).
 */
function flagGitAfterCd(st: WalkState): void {
  for (let i = 0; i < st.facts.length; i++) {
    const f = st.facts[i]!
    if (!f.info.readOnly || !movedAway(f.cwd) || !runsGit(f)) continue
    const reason = 'git after cd may read another repository whose configuration can run code'
    const info = { ...f.info, readOnly: false, reason }
    st.commands[st.commands.indexOf(f.info)] = info
    st.facts[i] = { ...f, info } as CommandFacts
    st.problems.push({ reason, unsure: true })
  }
}

function runsGit(f: CommandFacts): boolean {
  const isGit = (w: Word | undefined) => w?.kind === 'static' && /(^|\/)git$/.test(w.value)
  if (isGit(f.words[0])) return true
  return f.judgement.runs.some((r) => r.kind === 'argv' && isGit(r.words[0]))
}

function describeError(root: Node): string {
  const stack: Node[] = [root]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.isMissing) return `missing '${n.type}' at offset ${n.startIndex}`
    if (n.isError) {
      const text = n.text.replace(/\s+/g, ' ')
      return `syntax error at offset ${n.startIndex} near '${text.length > 40 ? `${text.slice(0, 37)}...` : text}'`
    }
    if (!n.hasError) continue
    for (let i = n.childCount - 1; i >= 0; i--) stack.push(n.child(i)!)
  }
  return 'syntax error'
}

function unsureResult(reason: string): CommandClassification {
  return Object.freeze({
    readOnly: false,
    reason,
    reasons: Object.freeze([reason]),
    commands: Object.freeze([]),
    writes: Object.freeze([]),
    unsure: true,
  })
}

function failed(reason: string): Analysis {
  return Object.freeze({
    classification: unsureResult(reason),
    facts: Object.freeze([]),
    complete: false,
    reads: Object.freeze([]),
    writes: Object.freeze([]),
    globOptions: true,
  })
}

function programNames(commands: readonly SimpleCommandInfo[]): string {
  return [...new Set(commands.map((c) => c.program ?? '?'))].join(', ')
}

function deepFreeze(commands: SimpleCommandInfo[]): readonly SimpleCommandInfo[] {
  for (const c of commands) {
    Object.freeze(c.writes)
    if (c.argv !== undefined) Object.freeze(c.argv)
    Object.freeze(c)
  }
  return Object.freeze(commands)
}

/** One part of a compound command, for per-part rules and per-subcommand session grants. */
export type CommandPart = Pick<
  SimpleCommandInfo,
  'text' | 'canonical' | 'argv' | 'program' | 'subcommand' | 'readOnly'
>

/**
 * The simple commands of a compound command (`a && b | c; d`, substitutions included) in source
 * order, or `undefined` when the command cannot be split completely (it does not parse, or it holds
 * syntax that is not analysed: then no rule may match it part by part).
 */
export function splitCompound(command: string): readonly CommandPart[] | undefined {
  const a = analyzeCommand(command)
  if (!a.complete) return undefined
  return a.classification.commands.map((p) => ({
    text: p.text,
    canonical: p.canonical,
    ...(p.argv !== undefined ? { argv: p.argv } : {}),
    ...(p.program !== undefined ? { program: p.program } : {}),
    ...(p.subcommand !== undefined ? { subcommand: p.subcommand } : {}),
    readOnly: p.readOnly,
  }))
}
