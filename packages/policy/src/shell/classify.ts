import type { Node } from 'web-tree-sitter'
import { fastParse } from './fast-parse.js'
import { parserUnavailableReason, readyParser } from './parser.js'
import { newWalkState, recordSimpleCommand, type WalkState } from './simple-command.js'
import { setSource } from './tree-view.js'
import type { CommandClassification, SimpleCommandInfo } from './types.js'
import { walkStatement } from './walk.js'

/** Inputs longer than this are not analysed (bounded time per call); bash tool commands are short. */
export const MAX_COMMAND_LENGTH = 64 * 1024

const CACHE_SIZE = 1024
const CACHE_MAX_KEY = 2048
const cache = new Map<string, CommandClassification>()

/**
 * Classify a bash command: `readOnly` is true only when the whole command certainly cannot write
 * files, change processes or repository state, reach the network or run arbitrary code (issue 4 §1,
 * seed 003 §8.4). Synchronous once the parser is loaded (`initShellParser()`); before that it fails
 * closed. Results are deep-frozen and may be shared between calls (an LRU cache of recent commands).
 */
export function classifyCommand(command: string): CommandClassification {
  const hit = cache.get(command)
  if (hit !== undefined) {
    cache.delete(command)
    cache.set(command, hit)
    return hit
  }
  const result = classifyUncached(command)
  if (command.length <= CACHE_MAX_KEY && readyParser() !== undefined) {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!)
    cache.set(command, result)
  }
  return result
}

/** Empty the result cache (benchmarks use it to measure uncached throughput). */
export function clearClassifyCache(): void {
  cache.clear()
}

/**
 * Classification without the cache: the strict fast parser first (fast-parse.ts), tree-sitter for
 * everything outside its subset. Both front-ends feed the same judgement (simple-command.ts).
 */
export function classifyUncached(command: string): CommandClassification {
  if (command.includes('\0')) return unsure('the command contains a NUL byte')
  if (command.length > MAX_COMMAND_LENGTH) {
    return unsure(`the command is longer than ${MAX_COMMAND_LENGTH} characters and is not analysed`)
  }
  const parser = readyParser()
  // The fast path is gated on the parser too, so that results never depend on load timing.
  if (parser === undefined) return unsure(parserUnavailableReason())
  const fast = fastParse(command)
  if (fast !== undefined) {
    const st = newWalkState()
    for (const ir of fast.commands) recordSimpleCommand(ir, st)
    return finish(st)
  }
  return classifyWithTreeSitter(command)
}

/**
 * The tree-sitter path alone (no fast path, no cache): for the differential tests and the
 * benchmark. Returns the parser-not-ready result when the grammar is not loaded.
 */
export function classifyWithTreeSitter(command: string): CommandClassification {
  if (command.includes('\0')) return unsure('the command contains a NUL byte')
  if (command.length > MAX_COMMAND_LENGTH) {
    return unsure(`the command is longer than ${MAX_COMMAND_LENGTH} characters and is not analysed`)
  }
  const parser = readyParser()
  if (parser === undefined) return unsure(parserUnavailableReason())
  const tree = parser.parse(command)
  if (tree === null) return unsure('the parser returned no tree')
  const st = newWalkState()
  try {
    // Any ERROR or MISSING node anywhere (also inside words the walker resolves without
    // descending, such as an unterminated string) means bash may read the text differently.
    // The walk relies on this check: it does not test nodes for errors one by one.
    if (tree.rootNode.hasError) return unsure(`the command does not parse (${describeError(tree.rootNode)})`)
    setSource(command)
    walkStatement(tree.rootNode, st)
  } finally {
    setSource('')
    tree.delete() // WASM memory is not garbage-collected
  }
  return finish(st)
}

function finish(st: WalkState): CommandClassification {
  flagGitAfterCd(st)
  const result = build(st)
  if (st.incomplete) incomplete.add(result)
  return result
}

// Results whose simple commands do not cover the whole input (splitCompound refuses them).
const incomplete = new WeakSet<CommandClassification>()

function build(st: WalkState): CommandClassification {
  const commands = deepFreeze(st.commands)
  const first = st.problems[0]
  if (first === undefined) {
    if (commands.length === 0) return unsure('no command found')
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
  return Object.freeze(
    unsureAny && !knownBad
      ? { readOnly: false, reason: first.reason, commands, writes, unsure: true }
      : { readOnly: false, reason: first.reason, commands, writes },
  )
}

const NO_WRITES = Object.freeze([]) as readonly []

/**
 * `cd elsewhere && git status` may use another repository's configuration, which can name a pager
 * or an fsmonitor hook that runs code; only git in the starting directory is judged read-only.
 */
function flagGitAfterCd(st: WalkState): void {
  let moved = false
  for (let i = 0; i < st.commands.length; i++) {
    const c = st.commands[i]!
    if (c.program === 'cd' || c.program === 'pushd' || c.program === 'popd') moved = true
    else if (moved && c.program === 'git' && c.readOnly) {
      const reason = 'git after cd may read another repository whose configuration can run code'
      st.commands[i] = { ...c, readOnly: false, reason }
      st.problems.push({ reason, unsure: true })
    }
  }
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

function unsure(reason: string): CommandClassification {
  return Object.freeze({
    readOnly: false,
    reason,
    commands: Object.freeze([]),
    writes: Object.freeze([]),
    unsure: true,
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
  const c = classifyCommand(command)
  if (c.commands.length === 0) return undefined
  if (incomplete.has(c)) return undefined
  return c.commands.map((p) => ({
    text: p.text,
    canonical: p.canonical,
    ...(p.argv !== undefined ? { argv: p.argv } : {}),
    ...(p.program !== undefined ? { program: p.program } : {}),
    ...(p.subcommand !== undefined ? { subcommand: p.subcommand } : {}),
    readOnly: p.readOnly,
  }))
}

/** Whether a result's simple commands cover the whole input (what splitCompound requires). */
export function coversWholeInput(c: CommandClassification): boolean {
  return !incomplete.has(c)
}
