import type { Node } from 'web-tree-sitter'
import { isSafeEnvAssignment } from './env.js'
import { judgeProgram } from './programs.js'
import type { SimpleCommandInfo, Verdict, Word } from './types.js'
import { resolveWord, type WordSink } from './words.js'

/**
 * Walks a tree-sitter-bash syntax tree with an allowlist of node types. Every simple command is
 * judged by the program table; structure that cannot write by itself (`&& || ; |`, subshells,
 * groups, `!`) is descended; every other node type makes the whole command not read-only with a
 * reason that names it (fail closed, seed 003 §8.4).
 */
export interface WalkState {
  readonly commands: SimpleCommandInfo[]
  /** Problems not tied to one simple command (syntax, background jobs, group redirects). */
  readonly problems: { reason: string; unsure: boolean }[]
  readonly writes: string[]
  depth: number
  /** Set when some part of the input is not represented by a simple command (see splitCompound). */
  incomplete: boolean
}

function structural(st: WalkState, reason: string, unsure: boolean): void {
  st.incomplete = true
  st.problems.push({ reason, unsure })
}

const MAX_DEPTH = 64

/** Redirect targets that never write a file. */
const HARMLESS_TARGETS: ReadonlySet<string> = new Set([
  '/dev/null',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/fd/1',
  '/dev/fd/2',
])

const SEPARATORS: ReadonlySet<string> = new Set(['&&', '||', ';', '|', '|&', '\n', '(', ')', '{', '}', '!'])

export function walkStatement(node: Node, st: WalkState): void {
  if (++st.depth > MAX_DEPTH) {
    structural(st, `nesting deeper than ${MAX_DEPTH} levels is not analysed`, true)
    st.depth--
    return
  }
  try {
    walkInner(node, st)
  } finally {
    st.depth--
  }
}

function walkInner(node: Node, st: WalkState): void {
  if (node.isError || node.isMissing) {
    structural(st, `the command does not parse (syntax error near '${clip(node.text)}')`, true)
    return
  }
  switch (node.type) {
    case 'program':
    case 'list':
    case 'pipeline':
    case 'subshell':
    case 'compound_statement':
    case 'negated_command':
      walkChildren(node, st)
      return
    case 'comment':
      return
    case 'command':
      walkCommand(node, [], st)
      return
    case 'redirected_statement':
      walkRedirected(node, st)
      return
    case 'test_command':
      walkTest(node, st)
      return
    case 'variable_assignment':
    case 'variable_assignments':
      structural(st, `variable assignment '${clip(node.text)}' changes shell state`, false)
      return
    case 'function_definition':
      structural(st, 'defining a shell function is not read-only (it can shadow any command)', false)
      return
    case 'declaration_command':
    case 'unset_command':
      structural(st, `'${clip(node.text)}' changes shell state`, false)
      return
    default:
      // if/for/while/case/c-style for and anything new: not analysed, so not read-only.
      structural(st, `shell syntax '${node.type}' is not analysed`, true)
  }
}

function walkChildren(node: Node, st: WalkState): void {
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!
    if (!child.isNamed && !child.isError && !child.isMissing) {
      if (SEPARATORS.has(child.type)) continue
      if (child.type === '&') {
        structural(st, 'a background job (&) keeps running after the command returns', false)
        continue
      }
      structural(st, `shell token '${child.type}' is not analysed`, true)
      continue
    }
    walkStatement(child, st)
  }
}

function walkRedirected(node: Node, st: WalkState): void {
  const body = node.childForFieldName('body')
  const redirects: Node[] = []
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!
    if (child !== null && node.fieldNameForChild(i) === 'redirect') redirects.push(child)
  }
  if (body === null) {
    // `> file` alone truncates a file.
    const info = judgeRedirects(redirects, st)
    structural(st, info.problem ?? 'a redirect without a command', info.problem === undefined)
    st.writes.push(...info.writes)
    return
  }
  if (body.type === 'command') {
    walkCommand(body, redirects, st)
    return
  }
  walkStatement(body, st)
  const info = judgeRedirects(redirects, st)
  if (info.problem !== undefined) structural(st, info.problem, info.unsure)
  st.writes.push(...info.writes)
}

interface RedirectInfo {
  writes: string[]
  problem?: string
  unsure: boolean
}

function judgeRedirects(redirects: readonly Node[], st: WalkState): RedirectInfo {
  const info: RedirectInfo = { writes: [], unsure: false }
  const fail = (reason: string, unsure: boolean) => {
    if (info.problem === undefined) {
      info.problem = reason
      info.unsure = unsure
    }
  }
  const sink = wordSink(st, fail)
  for (const r of redirects) judgeRedirect(r, st, sink, info, fail)
  return info
}

function judgeRedirect(
  r: Node,
  st: WalkState,
  sink: WordSink,
  info: RedirectInfo,
  fail: (reason: string, unsure: boolean) => void,
): void {
  if (r.isError || r.isMissing || r.hasError) {
    fail(`the redirect '${clip(r.text)}' does not parse`, true)
    return
  }
  if (r.type === 'herestring_redirect') {
    for (let i = 0; i < r.childCount; i++) {
      const c = r.child(i)!
      if (c.isNamed) resolveWord(c, sink)
    }
    return
  }
  if (r.type === 'heredoc_redirect') {
    judgeHeredoc(r, st, sink, info, fail)
    return
  }
  if (r.type !== 'file_redirect') {
    fail(`redirect syntax '${r.type}' is not analysed`, true)
    return
  }
  let op = ''
  const targets: Word[] = []
  for (let i = 0; i < r.childCount; i++) {
    const c = r.child(i)!
    const field = r.fieldNameForChild(i)
    if (field === 'descriptor') {
      if (c.type !== 'file_descriptor') fail(`redirect descriptor '${c.text}' is not analysed`, true)
      continue
    }
    if (field === 'destination') {
      targets.push(resolveWord(c, sink))
      continue
    }
    if (!c.isNamed) op = c.type
    else fail(`redirect part '${c.type}' is not analysed`, true)
  }
  switch (op) {
    case '<':
      for (const t of targets) {
        if (t.kind === 'dynamic') fail(`input redirect from a dynamic path (${t.why})`, true)
        else if (/^\/dev\/(tcp|udp)\//.test(t.value))
          fail(`input redirect from ${t.value} opens a network connection`, false)
      }
      return
    case '<&-':
    case '>&-':
      return
    case '>&':
    case '<&':
      // `2>&1`, `>&2`, `<&0`: duplicate a descriptor. `>& file` is `&> file` (writes).
      if (targets.every((t) => t.kind === 'static' && (/^\d+-?$/.test(t.value) || t.value === '-'))) return
      if (op === '<&') {
        fail(`redirect '${clip(r.text)}' is not analysed`, true)
        return
      }
      writeTargets(targets, info, fail)
      return
    case '>':
    case '>>':
    case '>|':
    case '&>':
    case '&>>':
      writeTargets(targets, info, fail)
      return
    default:
      fail(`redirect operator '${op}' is not analysed`, true)
  }
}

function writeTargets(
  targets: readonly Word[],
  info: RedirectInfo,
  fail: (r: string, u: boolean) => void,
): void {
  for (const t of targets) {
    if (t.kind === 'dynamic') {
      fail(`redirect writes to a path that is only known at run time (${t.why})`, true)
      continue
    }
    if (HARMLESS_TARGETS.has(t.value)) continue
    info.writes.push(t.value)
    fail(`redirect writes to ${t.value}`, false)
  }
}

function judgeHeredoc(
  r: Node,
  st: WalkState,
  sink: WordSink,
  info: RedirectInfo,
  fail: (reason: string, unsure: boolean) => void,
): void {
  for (let i = 0; i < r.childCount; i++) {
    const c = r.child(i)!
    const field = r.fieldNameForChild(i)
    switch (c.type) {
      case '<<':
      case '<<-':
      case 'heredoc_start':
      case 'heredoc_end':
      case '|':
      case '|&':
      case '&&':
      case '||':
      case ';':
        continue
      case 'heredoc_body':
        for (let j = 0; j < c.childCount; j++) {
          const part = c.child(j)!
          if (part.type !== 'heredoc_content') resolveWord(part, sink)
        }
        continue
      case 'file_redirect':
      case 'herestring_redirect':
        if (field === 'redirect') {
          judgeRedirect(c, st, sink, info, fail)
          continue
        }
        break
      default:
        break
    }
    // tree-sitter-bash hangs the rest of a line (`cat <<EOF | grep x`, `&& ls`) under the heredoc.
    if (c.isNamed && c.type !== 'file_redirect') walkStatement(c, st)
    else fail(`heredoc part '${c.type}' is not analysed`, true)
  }
}

function wordSink(st: WalkState, fail: (reason: string, unsure: boolean) => void): WordSink {
  return {
    substitution(node) {
      // Classify the commands a substitution runs as part of the whole command.
      for (let i = 0; i < node.childCount; i++) {
        const c = node.child(i)!
        if (c.isNamed) walkStatement(c, st)
      }
    },
    problem: fail,
  }
}

function walkCommand(node: Node, outerRedirects: readonly Node[], st: WalkState): void {
  let problem: { reason: string; unsure: boolean } | undefined
  const fail = (reason: string, unsure: boolean) => {
    problem ??= { reason, unsure }
  }
  const sink = wordSink(st, fail)
  const tokens: string[] = []
  const words: Word[] = []
  const redirects: Node[] = []
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i)!
    tokens.push(c.text)
    if (c.isError || c.isMissing) {
      fail(`the command does not parse near '${clip(c.text)}'`, true)
      continue
    }
    switch (c.type) {
      case 'variable_assignment': {
        const name = c.childForFieldName('name')
        const valueNode = c.childForFieldName('value')
        const value: Word = valueNode === null ? { kind: 'static', value: '' } : resolveWord(valueNode, sink)
        if (name === null || name.type !== 'variable_name' || !isSafeEnvAssignment(name.text, value)) {
          fail(`environment prefix '${clip(c.text)}' can change what the command runs or loads`, false)
        }
        continue
      }
      case 'command_name': {
        const inner = c.child(0)
        if (inner === null || c.childCount !== 1) fail('the command name is not a single word', true)
        else words.push(resolveWord(inner, sink))
        continue
      }
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        redirects.push(c)
        continue
      case 'comment':
        continue
      default:
        if (node.fieldNameForChild(i) === 'argument') {
          words.push(resolveWord(c, sink))
          continue
        }
        fail(`command part '${c.type}' is not analysed`, true)
    }
  }
  for (const r of outerRedirects) tokens.push(r.text)
  const red = judgeRedirects([...redirects, ...outerRedirects], st)
  const verdict: Verdict =
    words.length === 0
      ? { readOnly: false, reason: 'no command name', unsure: true }
      : judgeProgram(words[0]!, words.slice(1))
  const writes = [...(verdict.readOnly ? [] : (verdict.writes ?? [])), ...red.writes]
  const program = words[0]?.kind === 'static' ? words[0].value : undefined
  const allStatic = words.every((w) => w.kind === 'static')
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
  st.writes.push(...writes)
  const info: SimpleCommandInfo = {
    text: node.text + (outerRedirects.length > 0 ? ` ${outerRedirects.map((r) => r.text).join(' ')}` : ''),
    canonical: tokens.join(' '),
    ...(allStatic ? { argv: words.map((w) => (w as { value: string }).value) } : {}),
    ...(program !== undefined ? { program } : {}),
    ...(verdict.subcommand !== undefined ? { subcommand: verdict.subcommand } : {}),
    readOnly,
    reason,
    writes,
  }
  st.commands.push(info)
}

/** `[ ... ]` and `[[ ... ]]`: read-only only when fully static (see programs.ts `judgeTestArgs`). */
function walkTest(node: Node, st: WalkState): void {
  const words: string[] = []
  let problem: string | undefined
  const visit = (n: Node): void => {
    if (problem !== undefined) return
    if (n.isError || n.isMissing) {
      problem = 'the test expression does not parse'
      return
    }
    switch (n.type) {
      case 'word':
      case 'number':
      case 'raw_string':
      case 'string':
      case 'concatenation': {
        const w = resolveWord(n, { substitution: () => {}, problem: () => {} })
        if (w.kind === 'dynamic')
          problem = `test expression with a dynamic operand (${w.why}) is not analysed`
        else words.push(w.value)
        return
      }
      case 'test_operator':
      case 'regex':
        words.push(n.text)
        return
      case 'unary_expression':
      case 'binary_expression':
      case 'parenthesized_expression':
        for (let i = 0; i < n.childCount; i++) visit(n.child(i)!)
        return
      default:
        if (!n.isNamed) {
          words.push(n.type)
          return
        }
        problem = `test expression part '${n.type}' is not analysed`
    }
  }
  for (let i = 0; i < node.childCount; i++) visit(node.child(i)!)
  const verdict: Verdict =
    problem !== undefined
      ? { readOnly: false, reason: problem, unsure: true }
      : judgeProgram(
          { kind: 'static', value: 'test' },
          words
            .filter((w) => w !== '[' && w !== ']' && w !== '[[' && w !== ']]')
            .map((value) => ({ kind: 'static', value })),
        )
  if (!verdict.readOnly) st.problems.push({ reason: verdict.reason, unsure: verdict.unsure === true })
  st.commands.push({
    text: node.text,
    canonical: node.text,
    program: node.child(0)?.type ?? '[',
    readOnly: verdict.readOnly,
    reason: verdict.reason,
    writes: [],
  })
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ')
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine
}
