import type { Node } from 'web-tree-sitter'
import { isSafeEnvAssignment } from './env.js'
import { judgeProgram } from './programs.js'
import {
  clip,
  judgeRedirects,
  type Problem,
  type RedirectIR,
  recordSimpleCommand,
  structural,
  type WalkState,
} from './simple-command.js'
import { childIdsForField, childrenOf, kindOf, textOf } from './tree-view.js'
import type { Verdict, Word } from './types.js'
import { resolveWord, type WordSink } from './words.js'

/**
 * The tree-sitter front-end: walks a tree-sitter-bash syntax tree with an allowlist of node types
 * and turns every simple command into the intermediate representation of simple-command.ts, which
 * judges it. Structure that cannot write by itself (`&& || ; |`, subshells, groups, `!`) is
 * descended; every other node type makes the whole command not read-only with a reason that names
 * it (fail closed, seed 003 §8.4).
 *
 * Precondition: the tree has no ERROR or MISSING node (classify.ts checks `rootNode.hasError`,
 * which tree-sitter computes from the error cost of every node below, MISSING ones included), so
 * the walk does not re-check `isError`/`isMissing` node by node (each check is a WASM call).
 */

const MAX_DEPTH = 64

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
  const { type } = kindOf(node)
  switch (type) {
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
      structural(st, `variable assignment '${clip(textOf(node))}' changes shell state`, false)
      return
    case 'function_definition':
      structural(st, 'defining a shell function is not read-only (it can shadow any command)', false)
      return
    case 'declaration_command':
    case 'unset_command':
      structural(st, `'${clip(textOf(node))}' changes shell state`, false)
      return
    case 'ERROR':
      structural(st, `the command does not parse (syntax error near '${clip(textOf(node))}')`, true)
      return
    default:
      // if/for/while/case/c-style for and anything new: not analysed, so not read-only.
      structural(st, `shell syntax '${type}' is not analysed`, true)
  }
}

function walkChildren(node: Node, st: WalkState): void {
  for (const child of childrenOf(node)) {
    const kind = kindOf(child)
    if (!kind.named) {
      if (SEPARATORS.has(kind.type)) continue
      if (kind.type === '&') {
        structural(st, 'a background job (&) keeps running after the command returns', false)
        continue
      }
      structural(st, `shell token '${kind.type}' is not analysed`, true)
      continue
    }
    walkStatement(child, st)
  }
}

function redirectsOf(node: Node): Node[] {
  const list = node.childrenForFieldName('redirect')
  const out: Node[] = []
  for (const r of list) if (r !== null) out.push(r)
  return out
}

function walkRedirected(node: Node, st: WalkState): void {
  const body = node.childForFieldName('body')
  const redirects = redirectsOf(node)
  if (body === null) {
    // `> file` alone truncates a file.
    const red = judgeRedirectNodes(redirects, st)
    structural(st, red.problem ?? 'a redirect without a command', red.problem === undefined)
    for (const w of red.writes) st.writes.push(w)
    return
  }
  if (kindOf(body).type === 'command') {
    walkCommand(body, redirects, st)
    return
  }
  walkStatement(body, st)
  const red = judgeRedirectNodes(redirects, st)
  if (red.problem !== undefined) structural(st, red.problem, red.unsure)
  for (const w of red.writes) st.writes.push(w)
}

/** Redirects of a statement that is not a simple command (`(ls) > out`, `{ ...; } 2>&1`). */
function judgeRedirectNodes(redirects: readonly Node[], st: WalkState) {
  return judgeRedirects(collectRedirects(redirects, st))
}

/** Read redirect nodes into the intermediate representation (classifying any substitutions). */
function collectRedirects(redirects: readonly Node[], st: WalkState): RedirectIR[] {
  const out: RedirectIR[] = []
  if (redirects.length === 0) return out
  const sink = wordSink(st, (reason, unsure) => {
    out.push({ kind: 'problem', reason, unsure })
  })
  for (const r of redirects) collectRedirect(r, st, sink, out)
  return out
}

function collectRedirect(r: Node, st: WalkState, sink: WordSink, out: RedirectIR[]): void {
  const { type } = kindOf(r)
  if (type === 'herestring_redirect') {
    for (const c of childrenOf(r)) if (kindOf(c).named) resolveWord(c, sink)
    return
  }
  if (type === 'heredoc_redirect') {
    collectHeredoc(r, st, sink, out)
    return
  }
  if (type !== 'file_redirect') {
    sink.problem(`redirect syntax '${type}' is not analysed`, true)
    return
  }
  let op = ''
  const targets: Word[] = []
  const descriptors = childIdsForField(r, 'descriptor')
  const destinations = childIdsForField(r, 'destination')
  for (const c of childrenOf(r)) {
    const kind = kindOf(c)
    if (descriptors.has(c.id)) {
      if (kind.type !== 'file_descriptor')
        sink.problem(`redirect descriptor '${textOf(c)}' is not analysed`, true)
      continue
    }
    if (destinations.has(c.id)) {
      targets.push(resolveWord(c, sink))
      continue
    }
    if (!kind.named) op = kind.type
    else sink.problem(`redirect part '${kind.type}' is not analysed`, true)
  }
  out.push({ kind: 'file', op, targets, text: textOf(r) })
}

function collectHeredoc(r: Node, st: WalkState, sink: WordSink, out: RedirectIR[]): void {
  const redirectIds = childIdsForField(r, 'redirect')
  for (const c of childrenOf(r)) {
    const kind = kindOf(c)
    switch (kind.type) {
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
        for (const part of childrenOf(c)) {
          if (kindOf(part).type !== 'heredoc_content') resolveWord(part, sink)
        }
        continue
      case 'file_redirect':
      case 'herestring_redirect':
        if (redirectIds.has(c.id)) {
          collectRedirect(c, st, sink, out)
          continue
        }
        break
      default:
        break
    }
    // tree-sitter-bash hangs the rest of a line (`cat <<EOF | grep x`, `&& ls`) under the heredoc.
    if (kind.named && kind.type !== 'file_redirect') walkStatement(c, st)
    else sink.problem(`heredoc part '${kind.type}' is not analysed`, true)
  }
}

function wordSink(st: WalkState, problem: (reason: string, unsure: boolean) => void): WordSink {
  return {
    substitution(node) {
      // Classify the commands a substitution runs as part of the whole command.
      for (const c of childrenOf(node)) if (kindOf(c).named) walkStatement(c, st)
    },
    problem,
  }
}

function walkCommand(node: Node, outerRedirects: readonly Node[], st: WalkState): void {
  let problem: Problem | undefined
  const sink = wordSink(st, (reason, unsure) => {
    problem ??= { reason, unsure }
  })
  const tokens: string[] = []
  const words: Word[] = []
  const redirects: Node[] = []
  const argumentIds = childIdsForField(node, 'argument')
  for (const c of childrenOf(node)) {
    const kind = kindOf(c)
    tokens.push(textOf(c))
    switch (kind.type) {
      case 'variable_assignment': {
        const name = c.childForFieldName('name')
        const valueNode = c.childForFieldName('value')
        const value: Word = valueNode === null ? { kind: 'static', value: '' } : resolveWord(valueNode, sink)
        if (
          name === null ||
          kindOf(name).type !== 'variable_name' ||
          !isSafeEnvAssignment(textOf(name), value)
        ) {
          sink.problem(
            `environment prefix '${clip(textOf(c))}' can change what the command runs or loads`,
            false,
          )
        }
        continue
      }
      case 'command_name': {
        const inner = childrenOf(c)
        if (inner.length !== 1) sink.problem('the command name is not a single word', true)
        else words.push(resolveWord(inner[0]!, sink))
        continue
      }
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        redirects.push(c)
        continue
      case 'comment':
        continue
      case 'ERROR':
        sink.problem(`the command does not parse near '${clip(textOf(c))}'`, true)
        continue
      default:
        if (argumentIds.has(c.id)) {
          words.push(resolveWord(c, sink))
          continue
        }
        sink.problem(`command part '${kind.type}' is not analysed`, true)
    }
  }
  let text = textOf(node)
  for (const r of outerRedirects) {
    const t = textOf(r)
    tokens.push(t)
    text += ` ${t}`
  }
  const redirectIR = collectRedirects(
    outerRedirects.length === 0 ? redirects : [...redirects, ...outerRedirects],
    st,
  )
  recordSimpleCommand(
    {
      text,
      canonical: tokens.join(' '),
      words,
      ...(problem !== undefined ? { problem } : {}),
      redirects: redirectIR,
    },
    st,
  )
}

/** `[ ... ]` and `[[ ... ]]`: read-only only when fully static (see programs.ts `judgeTestArgs`). */
function walkTest(node: Node, st: WalkState): void {
  const words: string[] = []
  let problem: string | undefined
  const quiet: WordSink = { substitution: () => {}, problem: () => {} }
  const visit = (n: Node): void => {
    if (problem !== undefined) return
    const kind = kindOf(n)
    switch (kind.type) {
      case 'ERROR':
        problem = 'the test expression does not parse'
        return
      case 'word':
      case 'number':
      case 'raw_string':
      case 'string':
      case 'concatenation': {
        const w = resolveWord(n, quiet)
        if (w.kind === 'dynamic')
          problem = `test expression with a dynamic operand (${w.why}) is not analysed`
        else words.push(w.value)
        return
      }
      case 'test_operator':
      case 'regex':
        words.push(textOf(n))
        return
      case 'unary_expression':
      case 'binary_expression':
      case 'parenthesized_expression':
        for (const c of childrenOf(n)) visit(c)
        return
      default:
        if (!kind.named) {
          words.push(kind.type)
          return
        }
        problem = `test expression part '${kind.type}' is not analysed`
    }
  }
  const children = childrenOf(node)
  for (const c of children) visit(c)
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
  const text = textOf(node)
  st.commands.push({
    text,
    canonical: text,
    program: children[0] !== undefined ? kindOf(children[0]).type : '[',
    readOnly: verdict.readOnly,
    reason: verdict.reason,
    writes: [],
  })
}
