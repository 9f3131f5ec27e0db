import { assertNever } from '@toolgate/core'
import type { Node } from 'web-tree-sitter'
import { childrenOf, kindOf, sourceSlice, textOf } from './tree-view.js'
import type { DynamicWord, Word } from './types.js'

/**
 * Static resolution of shell words, as bash expands them: quote removal for literal text; brace
 * expansion (`{a,b}`, `{1..3}`) and expansions (`$x`, `${x}`, `$(...)`) are `dynamic`; unquoted
 * `* ? [` make a `glob` (pathname expansion), whose pattern keeps quoted characters escaped.
 * Substitutions are handed to the sink so the walker classifies the commands they run; constructs
 * that can run code or assign by themselves are reported through `problem`.
 */
export interface WordSink {
  /** A command or process substitution inside a word: classify the commands it runs. */
  substitution(node: Node): void
  /**
   * A construct that makes the whole command not read-only. `runsCode`: bash may run commands
   * the walk does not see there (an arithmetic subscript `$((a[$(rm x)]))`, a `${...}` operand),
   * so the command is judged as running code only known at run time (destructive, seen by every
   * deny rule).
   */
  problem(reason: string, unsure: boolean, runsCode?: boolean): void
  /** The values a variable is known to take (a `for` loop variable), if any. */
  variable?(name: string): readonly Word[] | undefined
}

// Operators of ${...} that only read a variable. Excluded on purpose: `=`/`:=` assign, `@` transforms
// (`@P` runs prompt expansion, which can substitute commands), `!` indirection (a name such as
// `a[$(id)]` evaluates its subscript), `/` and `//` are fine but rare (excluded to keep the list short).
const READING_EXPANSION_OPERATORS: ReadonlySet<string> = new Set([':-', '-', ':+', '+', '#', '##', '%', '%%'])

const GLOB_META = '*?[]\\'

/** Accumulates the parts of one word in order. */
class WordBuilder {
  text = ''
  pattern = ''
  glob = false
  dynamic: string | undefined
  prefix = ''
  split = false
  values: readonly Word[] | undefined
  /** The word so far is static text, `$HOME`, static text: the path it names (with `~`). */
  home: string | undefined

  literal(s: string): void {
    if (this.dynamic === undefined) this.prefix += s
    if (this.home !== undefined) this.home += s
    this.text += s
    for (const c of s) this.pattern += GLOB_META.includes(c) ? `\\${c}` : c
  }

  meta(c: string): void {
    this.home = undefined
    this.glob = true
    this.split = true
    this.text += c
    this.pattern += c
  }

  add(w: Word): void {
    switch (w.kind) {
      case 'static':
        this.literal(w.value)
        return
      case 'glob':
        this.home = undefined
        this.glob = true
        this.split = true
        this.text += w.text
        this.pattern += w.pattern
        if (this.dynamic === undefined) this.prefix += w.text
        return
      case 'dynamic':
        this.home =
          this.dynamic === undefined && !this.glob && w.path !== undefined ? this.text + w.path : undefined
        if (this.dynamic === undefined) {
          this.dynamic = w.why
          this.prefix += w.prefix
          this.values = w.values
        } else this.values = undefined
        if (w.split) this.split = true
        return
      default:
        assertNever(w, 'word')
    }
  }

  build(): Word {
    if (this.dynamic !== undefined) {
      // Values are only exact when the variable is the whole word (`"$f"`, `$f`).
      const exact = this.values !== undefined && this.text === '' && this.prefix === ''
      return {
        kind: 'dynamic',
        why: this.dynamic,
        prefix: this.prefix,
        split: this.split,
        ...(exact ? { values: this.values! } : {}),
        ...(this.home !== undefined ? { path: this.home } : {}),
      }
    }
    if (this.glob) return { kind: 'glob', pattern: this.pattern, text: this.text }
    return { kind: 'static', value: this.text }
  }
}

export function resolveWord(node: Node, sink: WordSink): Word {
  const b = new WordBuilder()
  if (kindOf(node).type === 'concatenation') {
    if (hasBraceExpansion(node)) {
      for (const c of childrenOf(node)) resolvePart(c, sink, new WordBuilder())
      return dyn(`brace expansion ${textOf(node)}`, '', true)
    }
    for (const c of childrenOf(node)) resolvePart(c, sink, b)
  } else {
    if (kindOf(node).type === 'word' && hasBraceExpansion(node))
      return dyn(`brace expansion ${textOf(node)}`, '', true)
    resolvePart(node, sink, b)
  }
  return b.build()
}

function dyn(why: string, prefix: string, split: boolean, values?: readonly Word[]): DynamicWord {
  return values === undefined
    ? { kind: 'dynamic', why, prefix, split }
    : { kind: 'dynamic', why, prefix, split, values }
}

function resolvePart(node: Node, sink: WordSink, b: WordBuilder): void {
  const { type } = kindOf(node)
  switch (type) {
    case 'word':
      resolveUnquoted(textOf(node), sink, b)
      return
    case 'number':
      b.literal(textOf(node))
      return
    case 'raw_string':
      b.literal(textOf(node).slice(1, -1))
      return
    case 'string':
      resolveDoubleQuoted(node, sink, b)
      return
    case 'concatenation':
      for (const c of childrenOf(node)) resolvePart(c, sink, b)
      return
    default:
      b.add(resolveExpansion(node, type, sink, false))
  }
}

/** Expansions and substitutions; `quoted` inside "..." (then they do not split). */
function resolveExpansion(node: Node, type: string, sink: WordSink, quoted: boolean): Word {
  switch (type) {
    case 'simple_expansion': {
      const text = textOf(node)
      const name = text.slice(1)
      // "$@" and "$*"-like lists split even when quoted.
      const split = !quoted || name === '@'
      if (name === 'HOME') return { kind: 'dynamic', why: `variable ${text}`, prefix: '', split, path: '~' }
      return dyn(`variable ${text}`, '', split, sink.variable?.(name))
    }
    case 'expansion': {
      const plain = checkExpansion(node, sink)
      const text = textOf(node)
      const values = plain === undefined ? undefined : sink.variable?.(plain)
      if (plain === 'HOME')
        return { kind: 'dynamic', why: `parameter expansion ${text}`, prefix: '', split: !quoted, path: '~' }
      return dyn(`parameter expansion ${text}`, '', !quoted || /^\$\{[@*]|\[[@*]\]\}$/.test(text), values)
    }
    case 'command_substitution':
      sink.substitution(node)
      return dyn('command substitution', '', !quoted)
    case 'process_substitution':
      if (kindOf(childrenOf(node)[0]!).type !== '<(')
        sink.problem('output process substitution >(...) runs a command', true)
      sink.substitution(node)
      return dyn('process substitution', '', false)
    case 'arithmetic_expansion':
      // Arithmetic evaluates array subscripts of variable values, which can run commands.
      // Only digits and operators: nothing to evaluate but numbers. A name's value is evaluated as
      // an expression in turn (`x='a[$(rm f)]'; echo $((x))`), so any name may run code.
      sink.problem(
        'arithmetic expansion $((...)) is not analysed (it can assign and run code)',
        true,
        !/^\$\(\([0-9\s+\-*/%()<>=!&|^~?:,]*\)\)$/.test(textOf(node)),
      )
      return dyn('arithmetic expansion', '', !quoted)
    case 'ansi_c_string': {
      const decoded = decodeAnsiC(textOf(node).slice(2, -1))
      return decoded === undefined
        ? dyn("ANSI-C quoted string $'...'", '', false)
        : { kind: 'static', value: decoded }
    }
    case 'translated_string':
      return dyn('translated string $"..."', '', false)
    case 'brace_expression':
      return dyn('brace expansion', '', true)
    default:
      sink.problem(`unsupported word syntax '${type}'`, true, true)
      return dyn(type, '', true)
  }
}

/**
 * Checks the operators of `${...}`; returns the variable name when it is a plain `${name}`.
 * An operand (`${x:-word}`) is accepted only as plain text: bash reads quotes and backquotes inside
 * it differently from tree-sitter-bash (single quotes inside a double-quoted `${x-'$(id)'}` are not
 * quotes, and a backquote there is a command substitution the tree does not show).
 */
function checkExpansion(node: Node, sink: WordSink): string | undefined {
  let name: string | undefined
  let plain = true
  for (const child of childrenOf(node)) {
    const kind = kindOf(child)
    const t = kind.type
    if (t === '${' || t === '}') continue
    if (t === 'variable_name' || t === 'special_variable_name') {
      name = textOf(child)
      continue
    }
    plain = false
    if (!kind.named) {
      if (READING_EXPANSION_OPERATORS.has(t)) continue
      sink.problem(
        `parameter expansion with operator '${t}' can assign or run code: ${textOf(node)}`,
        true,
        true,
      )
      return undefined
    }
    if ((t === 'word' || t === 'number') && /^[A-Za-z0-9_.,:/@%+=~ -]*$/.test(textOf(child))) continue
    sink.problem(
      `parameter expansion with an operand that is not plain text is not analysed: ${textOf(node)}`,
      true,
      true,
    )
    return undefined
  }
  return plain ? name : undefined
}

/** An unquoted word: backslash escapes one character; unescaped `* ? [` are glob characters. */
function resolveUnquoted(text: string, sink: WordSink, b: WordBuilder): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '\\') {
      const next = text[i + 1]
      i++
      if (next === undefined || next === '\n') continue
      b.literal(next)
      continue
    }
    if (c === ' ' || c === '\t' || c === '\n') {
      // bash ends a word at unquoted blanks; tree-sitter-bash sometimes does not (`ls\n\\rm x` parses
      // as one command). When the parser and bash may disagree, nothing is read-only.
      sink.problem(
        'the parser and bash may split this command differently (a word holds an unquoted blank)',
        true,
      )
      b.add(dyn('unquoted blank in a word', '', true))
      return
    }
    if (c === '*' || c === '?' || c === '[') {
      b.meta(c)
      continue
    }
    b.literal(c)
  }
}

/** "...": expansions do not split; `\` escapes only `$ \` " \\` and newline; no globbing. */
function resolveDoubleQuoted(node: Node, sink: WordSink, b: WordBuilder): void {
  // Blanks are content too: tree-sitter-bash reads `" "` as two quote tokens, the closing one
  // spanning ` "` (no string_content child), and bash passes one blank. So any text before a
  // closing quote or between children is literal content.
  let pos = node.startIndex
  for (const child of childrenOf(node)) {
    const { type } = kindOf(child)
    const start = child.startIndex
    if (start > pos) b.literal(unescapeDoubleQuoted(sourceSlice(pos, start)))
    pos = child.endIndex
    if (type === '"') {
      if (start > node.startIndex && pos - start > 1)
        b.literal(unescapeDoubleQuoted(sourceSlice(start, pos - 1)))
      continue
    }
    if (type === 'string_content') {
      b.literal(unescapeDoubleQuoted(sourceSlice(start, pos)))
      continue
    }
    b.add(resolveExpansion(child, type, sink, true))
  }
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

/**
 * Does bash brace-expand this word? It does for an unquoted `{...}` holding an unquoted `,` or `..`
 * at its own level (`{a,b}`, `{"a",b}`, `x{1..3}`); `{}` and `{x}` stay literal. tree-sitter-bash
 * splits `{a,b}` into three word nodes, so the check runs over the unquoted text of the whole word,
 * with quoted parts and expansions replaced by a neutral character.
 */
function hasBraceExpansion(node: Node): boolean {
  let flat = ''
  const parts = kindOf(node).type === 'concatenation' ? childrenOf(node) : [node]
  for (const p of parts) {
    const t = kindOf(p).type
    if (t === 'brace_expression') return true
    flat += t === 'word' ? textOf(p) : 'Q'
  }
  if (!flat.includes('{')) return false
  const stack: { comma: boolean; start: number }[] = []
  for (let i = 0; i < flat.length; i++) {
    const c = flat[i]!
    if (c === '\\') {
      i++
      continue
    }
    if (c === '{') stack.push({ comma: false, start: i })
    else if (c === '}' && stack.length > 0) {
      const open = stack.pop()!
      if (open.comma) return true
    } else if (stack.length > 0 && (c === ',' || (c === '.' && flat[i + 1] === '.'))) {
      stack[stack.length - 1]!.comma = true
    }
  }
  return false
}

/**
 * May this word, once expanded, be (or contain) a word starting with `-`, that is an option? A glob
 * can match a file named `-o`; an unquoted expansion can split into several words.
 */
export function mayBeOption(w: Word): boolean {
  switch (w.kind) {
    case 'static':
      return w.value.startsWith('-') && w.value !== '-'
    case 'glob': {
      const first = w.pattern[0]
      return first === undefined || first === '-' || first === '*' || first === '?' || first === '['
    }
    case 'dynamic':
      if (w.split) return true
      if (w.values !== undefined) return w.values.some(mayBeOption)
      return w.prefix === '' || w.prefix.startsWith('-')
    default:
      return assertNever(w, 'word')
  }
}

/** A short description of a word that is not static, for reasons. */
export function describeWord(w: Word): string {
  switch (w.kind) {
    case 'static':
      return w.value
    case 'glob':
      return `glob ${w.text}`
    case 'dynamic':
      return w.why
    default:
      return assertNever(w, 'word')
  }
}

/**
 * The value of `$'...'` as bash computes it (found by the differential fuzzer: `$'\x2fdev\x2ftcp...'`
 * spells /dev/tcp). Escapes: \a \b \e \E \f \n \r \t \v \\ \' \" \?, octal \nnn, \xHH,
 * \uHHHH, \UHHHHHHHH, \cX. `undefined` for anything else (then the word is only known at run
 * time): a NUL ends the string in bash, and code points beyond Unicode are not analysed.
 */
export function decodeAnsiC(body: string): string | undefined {
  const simple: Readonly<Record<string, string>> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  }
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c !== '\\') {
      out += c
      continue
    }
    const n = body[i + 1]
    if (n === undefined) return undefined
    if (Object.hasOwn(simple, n)) {
      out += simple[n]
      i++
      continue
    }
    let digits: RegExpExecArray | null = null
    let code: number | undefined
    if (/[0-7]/.test(n)) {
      digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))
      code = Number.parseInt(digits![0], 8) & 0xff
      i += digits![0].length
    } else if (n === 'x' || n === 'u' || n === 'U') {
      const max = n === 'x' ? 2 : n === 'u' ? 4 : 8
      digits = new RegExp(`^[0-9A-Fa-f]{1,${max}}`).exec(body.slice(i + 2))
      if (digits === null) return undefined
      code = Number.parseInt(digits[0], 16)
      i += 1 + digits[0].length
    } else if (n === 'c') {
      const x = body[i + 2]
      if (x === undefined || x === '\\') return undefined
      code = x.toUpperCase().charCodeAt(0) ^ 0x40
      i += 2
    } else {
      // An unknown escape stays as written (backslash included).
      out += `\\${n}`
      i++
      continue
    }
    if (code === 0 || code > 0x10ffff) return undefined
    out += String.fromCodePoint(code)
  }
  return out
}
