import type { Node } from 'web-tree-sitter'
import { childrenOf, kindOf, sourceSlice, textOf } from './tree-view.js'
import type { Word } from './types.js'

/**
 * Static resolution of shell words: quote removal for literal words, `dynamic` for anything whose
 * value is only known at run time (expansions, substitutions, globs, brace expansion, ANSI-C
 * quoting). Substitutions inside a word are handed to `visit` so the walker classifies the commands
 * they run; constructs that can run code or assign by themselves are reported through `problem`.
 */
export interface WordSink {
  /** A command or process substitution inside a word: classify the commands it runs. */
  substitution(node: Node): void
  /** A construct that makes the whole command not read-only. */
  problem(reason: string, unsure: boolean): void
}

const dyn = (why: string): Word => ({ kind: 'dynamic', why })

// Operators of ${...} that only read a variable. Excluded on purpose: `=`/`:=` assign, `@` transforms
// (`@P` runs prompt expansion, which can substitute commands), `!` indirection (a name such as
// `a[$(id)]` evaluates its subscript), `/` and `//` are fine but rare (excluded to keep the list short).
const READING_EXPANSION_OPERATORS: ReadonlySet<string> = new Set([':-', '-', ':+', '+', '#', '##', '%', '%%'])

export function resolveWord(node: Node, sink: WordSink): Word {
  const { type } = kindOf(node)
  switch (type) {
    case 'word':
      return resolveUnquoted(textOf(node), sink)
    case 'number':
      return { kind: 'static', value: textOf(node) }
    case 'raw_string':
      return { kind: 'static', value: textOf(node).slice(1, -1) }
    case 'string':
      return resolveDoubleQuoted(node, sink)
    case 'concatenation': {
      let value = ''
      let dynamic: Word | undefined
      for (const child of childrenOf(node)) {
        const part = resolveWord(child, sink)
        if (part.kind === 'dynamic') dynamic ??= part
        else value += part.value
      }
      return dynamic ?? { kind: 'static', value }
    }
    case 'simple_expansion':
      return dyn(`variable ${textOf(node)}`)
    case 'expansion':
      checkExpansion(node, sink)
      return dyn(`parameter expansion ${textOf(node)}`)
    case 'command_substitution':
      sink.substitution(node)
      return dyn('command substitution')
    case 'process_substitution':
      if (kindOf(childrenOf(node)[0]!).type !== '<(')
        sink.problem('output process substitution >(...) runs a command', true)
      sink.substitution(node)
      return dyn('process substitution')
    case 'arithmetic_expansion':
      // Arithmetic evaluates array subscripts of variable values, which can run commands.
      sink.problem('arithmetic expansion $((...)) is not analysed (it can assign and run code)', true)
      return dyn('arithmetic expansion')
    case 'ansi_c_string':
    case 'translated_string':
      return dyn(`${type === 'ansi_c_string' ? "ANSI-C quoted string $'...'" : 'translated string $"..."'}`)
    case 'brace_expression':
      return dyn('brace expansion')
    default:
      sink.problem(`unsupported word syntax '${type}'`, true)
      return dyn(type)
  }
}

function checkExpansion(node: Node, sink: WordSink): void {
  for (const child of childrenOf(node)) {
    const kind = kindOf(child)
    const t = kind.type
    if (t === '${' || t === '}' || t === 'variable_name' || t === 'special_variable_name') continue
    if (!kind.named) {
      if (READING_EXPANSION_OPERATORS.has(t)) continue
      sink.problem(`parameter expansion with operator '${t}' can assign or run code: ${textOf(node)}`, true)
      return
    }
    if (
      t === 'word' ||
      t === 'string' ||
      t === 'raw_string' ||
      t === 'concatenation' ||
      t === 'simple_expansion'
    ) {
      resolveWord(child, sink)
      continue
    }
    if (t === 'command_substitution' || t === 'expansion') {
      resolveWord(child, sink)
      continue
    }
    sink.problem(`parameter expansion with '${t}' is not analysed: ${textOf(node)}`, true)
    return
  }
}

/** An unquoted word: backslash escapes one character; unescaped glob or brace characters expand. */
function resolveUnquoted(text: string, sink: WordSink): Word {
  let value = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '\\') {
      const next = text[i + 1]
      i++
      if (next === undefined || next === '\n') continue
      value += next
      continue
    }
    if (c === ' ' || c === '\t' || c === '\n') {
      // bash ends a word at unquoted blanks; tree-sitter-bash sometimes does not (`ls\n\\rm x` parses
      // as one command). When the parser and bash may disagree, nothing is read-only.
      sink.problem(
        'the parser and bash may split this command differently (a word holds an unquoted blank)',
        true,
      )
      return dyn('unquoted blank in a word')
    }
    if (c === '*' || c === '?' || c === '[') return dyn(`glob ${text}`)
    if (c === '{' || c === '}') return dyn(`brace expansion ${text}`)
    value += c
  }
  return { kind: 'static', value }
}

/** "...": static only when it holds no expansion; `\` escapes only `$ \` " \\` and newline. */
function resolveDoubleQuoted(node: Node, sink: WordSink): Word {
  let value = ''
  let dynamic: Word | undefined
  // Blanks are content too: tree-sitter-bash reads `" "` as two quote tokens, the closing one
  // spanning ` "` (no string_content child), and bash passes one blank. So any text before a
  // closing quote or between children is literal content.
  let pos = node.startIndex
  for (const child of childrenOf(node)) {
    const { type } = kindOf(child)
    const start = child.startIndex
    if (start > pos) value += unescapeDoubleQuoted(sourceSlice(pos, start))
    pos = child.endIndex
    if (type === '"') {
      if (start > node.startIndex && pos - start > 1)
        value += unescapeDoubleQuoted(sourceSlice(start, pos - 1))
      continue
    }
    if (type === 'string_content') {
      value += unescapeDoubleQuoted(sourceSlice(start, pos))
      continue
    }
    const part = resolveWord(child, sink)
    if (part.kind === 'dynamic') dynamic ??= part
    else value += part.value
  }
  return dynamic ?? { kind: 'static', value }
}

function unescapeDoubleQuoted(text: string): string {
  if (!text.includes('\\')) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    const next = text[i + 1]
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') out += next
      i++
      continue
    }
    out += c
  }
  return out
}
