import type { Node } from 'web-tree-sitter'
import type { Cwd } from './analysis.js'
import type { Stdin } from './context.js'
import { isSafeEnvAssignment } from './env.js'
import { readHeredoc } from './heredoc.js'
import {
  type CodeProblem,
  clip,
  judgeRedirects,
  type Problem,
  type RedirectIR,
  recordSimpleCommand,
  structural,
  type WalkState,
} from './simple-command.js'
import { judgeTest } from './simple-programs.js'
import { childIdsForField, childrenOf, kindOf, sourceSlice, textOf } from './tree-view.js'
import type { Judgement, Word } from './types.js'
import { describeWord, resolveWord, type WordSink } from './words.js'

/**
 * The tree-sitter front-end: walks a tree-sitter-bash syntax tree with an allowlist of node types
 * and turns every simple command into the intermediate representation of simple-command.ts, which
 * judges it. Structure that cannot write by itself is descended: `&& || ; |`, `&`, subshells,
 * groups, `!`, and `if`/`for`/`while`/`until`/`case` (issue 12 §8: read-only when every part is).
 * Every other node type makes the whole command not read-only with a reason that names it (fail
 * closed, seed 003 §8.4).
 *
 * Along the way it tracks what bash tracks: the working directory through `cd` (issue 12 §6; a
 * subshell, a pipeline element or a substitution keeps its own), the values of `for` variables,
 * and what each command reads on standard input (for `... | sh`).
 *
 * Precondition: the tree has no ERROR or MISSING node (classify.ts checks `rootNode.hasError`).
 */

const MAX_DEPTH = 64

interface Ctx {
  readonly stdin: Stdin
}
const INHERIT: Ctx = { stdin: { kind: 'inherit' } }
const PIPE: Stdin = { kind: 'pipe' }

const SEPARATORS: ReadonlySet<string> = new Set(['&&', '||', ';', '\n', '(', ')', '{', '}', '!'])
const KEYWORDS: ReadonlySet<string> = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'while',
  'until',
  'do',
  'done',
  'for',
  'in',
  'case',
  'esac',
  ';;',
  ';&',
  ';;&',
])

export function walkStatement(node: Node, st: WalkState, ctx: Ctx = INHERIT): void {
  if (++st.depth > MAX_DEPTH) {
    structural(st, `nesting deeper than ${MAX_DEPTH} levels is not analysed`, true)
    st.depth--
    return
  }
  try {
    walkInner(node, st, ctx)
  } finally {
    st.depth--
  }
}

function walkInner(node: Node, st: WalkState, ctx: Ctx): void {
  const { type } = kindOf(node)
  switch (type) {
    case 'program':
    case 'list':
    case 'compound_statement':
    case 'negated_command':
    case 'do_group':
    case 'if_statement':
    case 'elif_clause':
    case 'else_clause':
    case 'while_statement':
      walkChildren(node, st, ctx)
      return
    case 'subshell':
      scoped(st, () => walkChildren(node, st, ctx))
      return
    case 'pipeline':
      walkPipeline(node, st, ctx)
      return
    case 'for_statement':
      walkFor(node, st, ctx)
      return
    case 'case_statement':
      walkCase(node, st, ctx)
      return
    case 'comment':
      return
    case 'command':
      walkCommand(node, [], st, ctx)
      return
    case 'redirected_statement':
      walkRedirected(node, st, ctx)
      return
    case 'test_command':
      walkTest(node, st)
      return
    case 'variable_assignment':
    case 'variable_assignments':
      if (textOf(node).includes('GLOBIGNORE')) st.globOptions = true
      structural(st, `variable assignment '${clip(textOf(node))}' changes shell state`, false)
      return
    case 'function_definition':
      structural(st, 'defining a shell function is not read-only (it can shadow any command)', false)
      walkInside(node, st, ctx)
      return
    case 'declaration_command':
    case 'unset_command':
      structural(st, `'${clip(textOf(node))}' changes shell state`, false)
      return
    default:
      // c-style for, arithmetic commands, coprocesses and anything new: not analysed.
      structural(st, `shell syntax '${type}' is not analysed`, true)
      walkInside(node, st, ctx)
  }
}

/**
 * The commands inside syntax that is not analysed (a function body, a c-style for loop, a
 * coprocess) are still recorded, so that deny rules, destructive checks and protected paths see
 * them; the whole stays not read-only and not split part by part (the structural problem above).
 */
function walkInside(node: Node, st: WalkState, ctx: Ctx): void {
  for (const c of childrenOf(node)) {
    const t = kindOf(c).type
    if (
      [
        'compound_statement',
        'do_group',
        'command',
        'redirected_statement',
        'list',
        'pipeline',
        'subshell',
      ].includes(t)
    )
      scoped(st, () => walkStatement(c, st, ctx))
  }
}

/** Run `f` in a subshell: directory and variables changed inside do not leak out. */
function scoped(st: WalkState, f: () => void): void {
  const cwd = st.cwd
  const vars = st.vars
  st.vars = new Map(vars)
  try {
    f()
  } finally {
    st.cwd = cwd
    st.vars = vars
  }
}

function walkChildren(node: Node, st: WalkState, ctx: Ctx): void {
  const children = childrenOf(node)
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!
    const kind = kindOf(child)
    if (!kind.named) {
      if (SEPARATORS.has(kind.type) || KEYWORDS.has(kind.type) || kind.type === '&') continue
      structural(st, `shell token '${kind.type}' is not analysed`, true)
      continue
    }
    // A background job (`ls &`) runs in a subshell.
    const next = children[i + 1]
    if (next !== undefined && kindOf(next).type === '&') scoped(st, () => walkStatement(child, st, ctx))
    else walkStatement(child, st, ctx)
  }
}

/** Every element of a pipeline runs in its own subshell; all but the first read the pipe. */
function walkPipeline(node: Node, st: WalkState, ctx: Ctx): void {
  let afterPipe = false
  for (const child of childrenOf(node)) {
    const kind = kindOf(child)
    if (!kind.named) {
      if (kind.type === '|' || kind.type === '|&') afterPipe = true
      else if (!SEPARATORS.has(kind.type)) structural(st, `shell token '${kind.type}' is not analysed`, true)
      continue
    }
    // bash's pipeline elements are commands (simple or compound); tree-sitter-bash sometimes reads
    // `a | b | c && d` as `a | (b | c && d)`, which would hide a `cd` in a subshell.
    if (misreadElement(child)) {
      structural(
        st,
        'the parser reads this pipeline differently from bash (an element holds a list or a redirected pipeline)',
        true,
      )
      continue
    }
    const stdin = afterPipe ? PIPE : ctx.stdin
    scoped(st, () => walkStatement(child, st, { stdin }))
  }
}

function misreadElement(node: Node): boolean {
  const t = kindOf(node).type
  if (t === 'list' || t === 'pipeline') return true
  if (t !== 'redirected_statement') return false
  const body = node.childForFieldName('body')
  return body !== null && ['list', 'pipeline'].includes(kindOf(body).type)
}

/** `for NAME in WORDS; do ...; done`: NAME takes the values of WORDS in the body. */
function walkFor(node: Node, st: WalkState, ctx: Ctx): void {
  const nameNode = node.childForFieldName('variable')
  const name = nameNode === null ? '' : textOf(nameNode)
  // `for PATH in ...` would change what later commands run.
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
    structural(
      st,
      `for loop variable '${name}' is not a plain lowercase name (it may change what commands run)`,
      false,
    )
    return
  }
  const valueIds = childIdsForField(node, 'value')
  const values: Word[] = []
  let hasIn = false
  const sink = wordSink(st, (reason, unsure) => structural(st, reason, unsure))
  let body: Node | undefined
  for (const c of childrenOf(node)) {
    const t = kindOf(c).type
    if (t === 'in') hasIn = true
    if (valueIds.has(c.id)) values.push(resolveWord(c, sink))
    if (t === 'do_group') body = c
  }
  if (!hasIn) values.push({ kind: 'dynamic', why: 'the positional parameters', prefix: '', split: true })
  if (body === undefined) {
    structural(st, 'for loop without a body is not analysed', true)
    return
  }
  st.vars.set(name, values)
  walkStatement(body, st, ctx)
  // After the loop it holds its last value, or the one before when the list was empty: unknown.
  st.vars.delete(name)
}

function walkCase(node: Node, st: WalkState, ctx: Ctx): void {
  const sink = wordSink(st, (reason, unsure) => structural(st, reason, unsure))
  for (const c of childrenOf(node)) {
    const kind = kindOf(c)
    if (!kind.named) continue
    if (kind.type === 'case_item') {
      const values = childIdsForField(c, 'value')
      for (const part of childrenOf(c)) {
        const pk = kindOf(part)
        if (!pk.named) continue
        if (values.has(part.id)) {
          casePattern(part, st, sink)
          continue
        }
        walkStatement(part, st, ctx)
      }
      continue
    }
    if (kind.type === 'comment') continue
    // The word being matched.
    resolveWord(c, sink)
  }
}

/** A case pattern is expanded like a word; extglob patterns are text, unless they hold expansions. */
function casePattern(part: Node, st: WalkState, sink: WordSink): void {
  if (kindOf(part).type === 'extglob_pattern') {
    if (/[$`]/.test(textOf(part)))
      structural(st, `case pattern '${clip(textOf(part))}' is not analysed`, true)
    return
  }
  resolveWord(part, sink)
}

function walkRedirected(node: Node, st: WalkState, ctx: Ctx): void {
  walkRedirectedWith(node, [], st, ctx)
}

function walkRedirectedWith(node: Node, extra: readonly Node[], st: WalkState, ctx: Ctx): void {
  const body = node.childForFieldName('body')
  const redirects = [...redirectsOf(node, st), ...extra]
  if (body === null) {
    // `> file` alone truncates a file.
    const col = collectRedirects(redirects, st)
    const red = judgeRedirects(col.redirects)
    structural(st, red.problem ?? 'a redirect without a command', red.problem === undefined)
    for (const w of red.writes) st.structuralWrites.push({ word: w, cwd: st.cwd })
    for (const w of red.writes) if (w.kind === 'static') st.writes.push(w.value)
    return
  }
  if (kindOf(body).type === 'command') {
    walkCommand(body, redirects, st, ctx)
    return
  }
  // bash applies a redirect after `a | b` or `a && b` to the last command; tree-sitter-bash hangs
  // it on the whole pipeline or list. Give it back to the last command, as bash does.
  if (['list', 'pipeline'].includes(kindOf(body).type)) {
    walkTrailing(body, redirects, st, ctx)
    return
  }
  judgeStructuralRedirects(redirects, st, ctx, (stdin) =>
    walkStatement(body, st, { stdin: stdin ?? ctx.stdin }),
  )
}

/** Redirects of a statement that is not a simple command (`while ...; done < f`, `(ls) > out`). */
function judgeStructuralRedirects(
  redirects: readonly Node[],
  st: WalkState,
  ctx: Ctx,
  body?: (stdin: Stdin | undefined) => void,
): void {
  const col = collectRedirects(redirects, st)
  if (col.extra.length > 0)
    structural(
      st,
      `words after a redirect of a compound statement are not analysed (${describeWord(col.extra[0]!)})`,
      true,
    )
  body?.(col.stdin)
  const red = judgeRedirects(col.redirects)
  if (red.problem !== undefined) structural(st, red.problem, red.unsure)
  for (const w of red.writes) {
    st.structuralWrites.push({ word: w, cwd: st.cwd })
    if (w.kind === 'static') st.writes.push(w.value)
  }
  for (const w of red.reads) st.structuralReads.push({ word: w, cwd: st.cwd })
  for (const n of col.rest) walkStatement(n, st, ctx)
}

/** Walk a list or pipeline whose last command carries `redirects` (see walkRedirected). */
function walkTrailing(node: Node, redirects: readonly Node[], st: WalkState, ctx: Ctx): void {
  const children = childrenOf(node)
  let last = -1
  for (let i = 0; i < children.length; i++) if (kindOf(children[i]!).named) last = i
  const isPipeline = kindOf(node).type === 'pipeline'
  let afterPipe = false
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!
    const kind = kindOf(child)
    if (!kind.named) {
      if (kind.type === '|' || kind.type === '|&') afterPipe = true
      else if (!SEPARATORS.has(kind.type) && kind.type !== '&')
        structural(st, `shell token '${kind.type}' is not analysed`, true)
      continue
    }
    const c: Ctx = isPipeline && afterPipe ? { stdin: PIPE } : ctx
    if (isPipeline && misreadElement(child)) {
      structural(
        st,
        'the parser reads this pipeline differently from bash (an element holds a list or a redirected pipeline)',
        true,
      )
      continue
    }
    const walk = () => {
      if (i !== last) walkStatement(child, st, c)
      else if (kind.type === 'command') walkCommand(child, redirects, st, c)
      else if (kind.type === 'list' || kind.type === 'pipeline') walkTrailing(child, redirects, st, c)
      else if (kind.type === 'redirected_statement') walkRedirectedWith(child, redirects, st, c)
      else judgeStructuralRedirects(redirects, st, c, () => walkStatement(child, st, c))
    }
    if (isPipeline) scoped(st, walk)
    else walk()
  }
}

const REDIRECTS: ReadonlySet<string> = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect'])

/**
 * Every redirect of a redirected statement, whatever field the parser filed it under:
 * tree-sitter-bash hangs a here-string after a compound statement (`while ...; done <<< $(x)`)
 * on no field at all (found by the differential fuzzer). Anything else beside the body is refused.
 */
function redirectsOf(node: Node, st: WalkState): Node[] {
  const body = node.childForFieldName('body')
  const out: Node[] = []
  for (const c of childrenOf(node)) {
    if (body !== null && c.id === body.id) continue
    const { type, named } = kindOf(c)
    if (REDIRECTS.has(type)) out.push(c)
    else if (named) structural(st, `'${type}' beside a redirected statement is not analysed`, true)
  }
  return out
}

interface Collected {
  readonly redirects: RedirectIR[]
  /** Words tree-sitter-bash hung on a redirect that bash reads as arguments (`sort < in -o out`). */
  readonly extra: Word[]
  /** What the command reads on standard input, when a redirect says. */
  stdin: Stdin | undefined
  /** Statements tree-sitter-bash hung under a heredoc (`cat <<EOF | grep x`), walked after. */
  readonly rest: Node[]
}

/** Read redirect nodes into the intermediate representation (classifying any substitutions). */
function collectRedirects(redirects: readonly Node[], st: WalkState): Collected {
  const out: Collected = { redirects: [], extra: [], stdin: undefined, rest: [] }
  if (redirects.length === 0) return out
  const sink = wordSink(st, (reason, unsure) => {
    out.redirects.push({ kind: 'problem', reason, unsure })
  })
  for (let i = 0; i < redirects.length; i++) collectRedirect(redirects[i]!, redirects[i + 1], st, sink, out)
  return out
}

function collectRedirect(
  r: Node,
  next: Node | undefined,
  st: WalkState,
  sink: WordSink,
  out: Collected,
): void {
  const { type } = kindOf(r)
  if (type === 'herestring_redirect') {
    for (const c of childrenOf(r)) {
      if (!kindOf(c).named) continue
      const w = resolveWord(c, sink)
      out.stdin = { kind: 'text', text: w.kind === 'static' ? { kind: 'static', value: `${w.value}\n` } : w }
    }
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
  let target: Word | undefined
  const descriptors = childIdsForField(r, 'descriptor')
  const destinations = childIdsForField(r, 'destination')
  const children = childrenOf(r)
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!
    const kind = kindOf(c)
    if (descriptors.has(c.id)) {
      if (kind.type !== 'file_descriptor')
        sink.problem(`redirect descriptor '${textOf(c)}' is not analysed`, true)
      continue
    }
    if (destinations.has(c.id)) {
      if (target === undefined) {
        target = resolveWord(c, sink)
        continue
      }
      // tree-sitter-bash hangs the words after a redirect target on the redirect; bash reads them
      // as arguments, except a number written against the next redirect (`< a 2>b`): its descriptor.
      const last = i === children.length - 1
      if (last && kind.type === 'number' && next !== undefined && c.endIndex === next.startIndex) continue
      out.extra.push(resolveWord(c, sink))
      continue
    }
    if (!kind.named) op = kind.type
    else sink.problem(`redirect part '${kind.type}' is not analysed`, true)
  }
  if (target === undefined) {
    sink.problem(`redirect '${clip(textOf(r))}' without a target is not analysed`, true)
    return
  }
  out.redirects.push({ kind: 'file', op, target, text: textOf(r) })
  if (op === '<') out.stdin = { kind: 'file' }
}

function collectHeredoc(r: Node, st: WalkState, sink: WordSink, out: Collected): void {
  if (st.substitution > 0) {
    sink.problem(
      'a here-document inside a command substitution is not analysed (bash and the parser may read it differently)',
      true,
      true,
    )
    return
  }
  const redirectIds = childIdsForField(r, 'redirect')
  let operator = '<<'
  let start: Node | undefined
  let body: Node | undefined
  let end: Node | undefined
  for (const c of childrenOf(r)) {
    const kind = kindOf(c)
    switch (kind.type) {
      case '<<':
      case '<<-':
        operator = kind.type
        continue
      case 'heredoc_start':
        start = c
        continue
      case 'heredoc_body':
        body = c
        continue
      case 'heredoc_end':
        end = c
        continue
      case '|':
      case '|&':
      case '&&':
      case '||':
      case ';':
      case '&':
        if (kind.type === '&') sink.problem('a background job after a here-document is not analysed', true)
        continue
      case 'file_redirect':
      case 'herestring_redirect':
        if (redirectIds.has(c.id)) {
          collectRedirect(c, undefined, st, sink, out)
          continue
        }
        break
      default:
        break
    }
    // tree-sitter-bash hangs the rest of a line (`cat <<EOF | grep x`, `&& ls`) under the heredoc.
    if (kind.named) out.rest.push(c)
    else sink.problem(`heredoc part '${kind.type}' is not analysed`, true)
  }
  if (start === undefined) {
    sink.problem('here-document without a delimiter is not analysed', true)
    return
  }
  const reading = readHeredoc({
    source: sourceSlice(0, Number.MAX_SAFE_INTEGER),
    operator,
    start: { text: textOf(start), end: start.endIndex },
    bodyStart: body?.startIndex,
    end: end === undefined ? undefined : { start: end.startIndex, text: textOf(end) },
  })
  if (!reading.ok) {
    // A body not read as bash reads it may hold substitutions the outer shell runs.
    sink.problem(reading.reason, true, true)
    return
  }
  out.stdin = { kind: 'text', text: reading.body }
}

function wordSink(st: WalkState, problem: WordSink['problem']): WordSink {
  return {
    substitution(node) {
      // Classify the commands a substitution runs as part of the whole command (in a subshell).
      st.substitution++
      try {
        scoped(st, () => {
          for (const c of childrenOf(node)) if (kindOf(c).named) walkStatement(c, st, INHERIT)
        })
      } finally {
        st.substitution--
      }
    },
    problem,
    variable: (name) => st.vars.get(name),
  }
}

function walkCommand(node: Node, outerRedirects: readonly Node[], st: WalkState, ctx: Ctx): void {
  let problem: Problem | undefined
  let runsCode: CodeProblem | undefined
  const sink = wordSink(st, (reason, unsure, code) => {
    problem ??= { reason, unsure }
    if (code === true) runsCode ??= { reason }
  })
  const tokens: string[] = []
  const words: Word[] = []
  const assignments: Word[] = []
  const programAssignments: Word[] = []
  const own: Node[] = []
  const argumentIds = childIdsForField(node, 'argument')
  const collected: Collected = { redirects: [], extra: [], stdin: undefined, rest: [] }
  const redirectSink = wordSink(st, (reason, unsure, code) => {
    collected.redirects.push({ kind: 'problem', reason, unsure })
    if (code === true) runsCode ??= { reason }
  })
  const children = childrenOf(node)
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!
    const kind = kindOf(c)
    // bash ends a command at an unescaped newline; tree-sitter-bash sometimes reads the next line's
    // words as more arguments (`sort -rn⏎sh < x` as `sort -rn sh`).
    if (i > 0 && /(^|[^\\])\n/.test(sourceSlice(children[i - 1]!.endIndex - 1, c.startIndex)))
      sink.problem('the parser reads two lines as one command (bash and the parser disagree)', true)
    tokens.push(textOf(c))
    switch (kind.type) {
      case 'variable_assignment': {
        const name = c.childForFieldName('name')
        const valueNode = c.childForFieldName('value')
        const value: Word = valueNode === null ? { kind: 'static', value: '' } : resolveWord(valueNode, sink)
        assignments.push(value)
        if (name !== null && textOf(name) === 'GLOBIGNORE') st.globOptions = true
        if (
          name === null ||
          kindOf(name).type !== 'variable_name' ||
          !isSafeEnvAssignment(textOf(name), value)
        ) {
          sink.problem(
            `environment prefix '${clip(textOf(c))}' can change what the command runs or loads`,
            false,
          )
          // Its value may be a program the command runs (`PAGER=`, `GIT_SSH_COMMAND=`,
          // `GIT_CONFIG_VALUE_0=`, `BASH_ENV=`): analysed as shell code, like `git -c` values.
          programAssignments.push(value)
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
      case 'herestring_redirect': {
        own.push(c)
        const before = collected.extra.length
        collectRedirect(c, nextRedirect(children, i), st, redirectSink, collected)
        // Words tree-sitter-bash hung on the redirect are arguments at this place.
        for (const w of collected.extra.slice(before)) words.push(w)
        continue
      }
      case 'comment':
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
  for (let i = 0; i < outerRedirects.length; i++) {
    const r = outerRedirects[i]!
    const t = textOf(r)
    tokens.push(t)
    text += ` ${t}`
    const before = collected.extra.length
    collectRedirect(r, outerRedirects[i + 1], st, redirectSink, collected)
    for (const w of collected.extra.slice(before)) words.push(w)
  }
  if (words[0]?.kind === 'static' && (words[0].value === 'shopt' || words[0].value === 'set'))
    st.globOptions = true
  recordSimpleCommand(
    {
      text,
      canonical: tokens.join(' '),
      words,
      assignments,
      ...(problem !== undefined ? { problem } : {}),
      ...(runsCode !== undefined ? { runsCode } : {}),
      ...(programAssignments.length > 0 ? { programAssignments } : {}),
      redirects: collected.redirects,
      stdin: collected.stdin ?? ctx.stdin,
    },
    st,
  )
  applyDirectoryChange(words, st)
  for (const n of collected.rest) walkStatement(n, st, ctx)
}

function nextRedirect(children: readonly Node[], i: number): Node | undefined {
  const n = children[i + 1]
  if (n === undefined) return undefined
  return REDIRECTS.has(kindOf(n).type) ? n : undefined
}

/**
 * `cd DIR`, `pushd DIR` (also behind `command`/`builtin`, which run in this shell) move where the
 * next commands run. A `cd` can fail, so the previous directory stays a candidate.
 */
function applyDirectoryChange(words: readonly Word[], st: WalkState): void {
  let i = 0
  // `command cd`, `builtin cd` and the `time` keyword (`time -p cd x`) run cd in this shell.
  while (
    words[i]?.kind === 'static' &&
    ['command', 'builtin', 'time'].includes((words[i] as { value: string }).value)
  ) {
    i++
    while (words[i]?.kind === 'static' && /^-[pvV]$/.test((words[i] as { value: string }).value)) i++
  }
  const name = words[i]
  if (name?.kind !== 'static' || !['cd', 'pushd', 'popd'].includes(name.value)) return
  if (name.value === 'popd') {
    st.cwd = { dirs: st.cwd.dirs, unknown: true }
    return
  }
  const args = words
    .slice(i + 1)
    .filter((w) => !(w.kind === 'static' && (/^-[LPe@]+$/.test(w.value) || w.value === '--')))
  const target = args[0]
  if (target === undefined) {
    st.cwd = moveTo(st.cwd, '~')
    return
  }
  if (
    target.kind !== 'static' ||
    target.value === '-' ||
    target.value.startsWith('~+') ||
    target.value.startsWith('~-') ||
    args.length > 1
  ) {
    st.cwd = { dirs: st.cwd.dirs, unknown: true }
    return
  }
  st.cwd = moveTo(st.cwd, target.value)
}

function moveTo(cwd: Cwd, target: string): Cwd {
  const next = cwd.dirs.map((d) =>
    target.startsWith('/') || target.startsWith('~') ? target : d === '.' ? target : `${d}/${target}`,
  )
  return { dirs: [...new Set([...cwd.dirs, ...next])], unknown: cwd.unknown }
}

const ARITHMETIC_TEST_OPS: ReadonlySet<string> = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])
const TEST_SYNTAX: ReadonlySet<string> = new Set(['[', ']', '[[', ']]', '!', '(', ')', '&&', '||'])

/** `[ ... ]` and `[[ ... ]]`: read-only only when fully static (see programs.ts `judgeTest`). */
function walkTest(node: Node, st: WalkState): void {
  const words: string[] = []
  let problem: string | undefined
  let runsCode = false
  let dynamicOperand = false
  // Substitutions in operands run (`[[ -n $(rm x) ]]`): walk them like any other word's.
  const sink = wordSink(st, (_reason, _unsure, code) => {
    if (code === true) runsCode = true
  })
  const visit = (n: Node): void => {
    const kind = kindOf(n)
    switch (kind.type) {
      case 'word':
      case 'number':
      case 'raw_string':
      case 'string':
      case 'concatenation':
      case 'simple_expansion':
      case 'expansion':
      case 'command_substitution':
      case 'process_substitution':
      case 'arithmetic_expansion':
      case 'ansi_c_string':
      case 'translated_string': {
        const w = resolveWord(n, sink)
        if (w.kind !== 'static') {
          dynamicOperand = true
          problem ??= `test expression with a dynamic operand (${describeWord(w)}) is not analysed`
          words.push('$dynamic')
        } else words.push(w.value)
        return
      }
      case 'test_operator':
      case 'regex':
      case 'extglob_pattern':
        // A pattern is a leaf in the tree; an expansion inside it would be unseen.
        if (kind.type !== 'test_operator' && /[$`]/.test(textOf(n))) {
          problem ??= `test pattern with an expansion (${clip(textOf(n))}) is not analysed`
          runsCode = true
        }
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
        // A part not understood may hold a substitution the walk did not see.
        problem ??= `test expression part '${kind.type}' is not analysed`
        runsCode = true
    }
  }
  const children = childrenOf(node)
  for (const c of children) visit(c)
  // `[[ -v 'a[$(rm x)]' ]]` and `[[ x -eq 'a[$(rm x)]' ]]` evaluate a subscript: code only known at
  // run time unless every arithmetic operand is a plain integer and no name is tested.
  const isDouble = kindOf(children[0] ?? node).type === '[['
  if (words.includes('-v') || words.includes('-R')) runsCode = true
  if (isDouble && words.some((w) => ARITHMETIC_TEST_OPS.has(w))) {
    const operands = words.filter((w) => !w.startsWith('-') && !TEST_SYNTAX.has(w))
    if (dynamicOperand || !operands.every((w) => /^\d+$/.test(w))) runsCode = true
  }
  const verdict: Judgement =
    problem !== undefined || runsCode
      ? {
          readOnly: false,
          reason: problem ?? 'test expression that evaluates a name or arithmetic is not analysed',
          unsure: true,
          writes: [],
          reads: [],
          runs: [],
          ...(runsCode ? { code: 'dynamic' as const } : {}),
        }
      : judgeTest(
          words
            .filter((w) => w !== '[' && w !== ']' && w !== '[[' && w !== ']]')
            .map((value) => ({ kind: 'static', value })),
        )
  if (!verdict.readOnly) st.problems.push({ reason: verdict.reason, unsure: verdict.unsure === true })
  const text = textOf(node)
  const info = {
    text,
    canonical: text,
    program: children[0] !== undefined ? kindOf(children[0]).type : '[',
    readOnly: verdict.readOnly,
    reason: verdict.reason,
    writes: [],
  }
  st.commands.push(info)
  st.facts.push({
    info,
    cwd: st.cwd,
    words: [],
    judgement: verdict,
    redirectReads: [],
    redirectWrites: [],
    assignments: [],
    inner: [],
  })
}
