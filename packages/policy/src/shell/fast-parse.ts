import type { RedirectIR, SimpleCommandIR } from './simple-command.js'
import type { Word } from './types.js'

/**
 * A strict lexer and parser for a small, fully specified subset of POSIX shell, used before
 * tree-sitter so that everyday commands (`git log --oneline -n 5`, `rg -n "x y" src | head`) need
 * no WASM parse. It is a real parser (a tokenizer and a grammar over its tokens, not pattern
 * matching on the command), and it fails closed by delegation: anything outside the subset returns
 * `undefined` and the caller parses with tree-sitter. It never guesses.
 *
 * The subset (grammar over tokens separated by spaces or tabs):
 *
 *   list     := command (op command)* [';']
 *   op       := '|' | '&&' | '||' | ';'
 *   command  := word+ redirect*                   (redirects only after the last word, and only
 *                                                  on the first command of a statement: tree-sitter
 *                                                  attaches those of `a | b 2>&1` to the chain)
 *   word     := part+                             (adjacent parts concatenate, as in bash)
 *   part     := [A-Za-z0-9_./:=,+@%^-]+            (unquoted; nothing in it expands in bash;
 *                                                  also `~` inside a run, not after `=`/`:`)
 *             | the same with `*` or `?`           (arguments only: a glob, so the word is
 *                                                  dynamic: `{ kind: 'dynamic', why: 'glob ...' }`)
 *             | "'" [printable ASCII except ']* "'"             (literal)
 *             | '"' [printable ASCII except " $ ` \ !]* '"'    (nothing in it expands: literal)
 *   redirect := '2>&1' | '1>&2' | '>&2' | ('>' | '1>' | '2>' | '&>') blank* '/dev/null'
 *               (whole tokens: followed by a blank, the end, '|', ';' or '&&')
 *
 * Everything else delegates: `$`, backquotes, backslashes, `[ ]`, globs in command position, braces, `~` (but see above), `#`,
 * parentheses, other redirects (`>`, `<`, `>>`, heredocs), `&` alone, `|&`, `;;`, newlines, any
 * control character, any non-ASCII character, an empty command, a redirect before or between
 * words or after a bare `-` word, and in command position: a word holding `=` (an assignment or something tree-sitter may
 * read as one), unquoted `@ % +` (tree-sitter-bash does not parse `a@b` or `a+:` as a command name), a
 * word starting with `-` or `=`, a reserved word glued to quotes (`if"x"`), or a reserved word or declaration builtin (`if`, `do`,
 * `time`, `export`, `local` ...). Every unquoted character allowed is one bash treats as a plain
 * literal character in a word in a non-interactive shell (no history expansion, `!` is excluded
 * anyway). Words are static except globs, which are dynamic exactly as the tree path makes them
 * (the reason names the first unquoted run holding `*` or `?`).
 *
 * The result is the same intermediate representation the tree-sitter walk produces, judged by the
 * same code (simple-command.ts), and a differential property test (test/shell-fast-path.test.ts)
 * checks that whenever this parser accepts, the classification equals the tree-sitter path's.
 */
export type FastOperator = '|' | '&&' | '||' | ';'

export interface FastParse {
  /** The simple commands, in source order. */
  readonly commands: readonly SimpleCommandIR[]
  /** The operators between them (`operators[i]` follows `commands[i]`), a trailing `;` included. */
  readonly operators: readonly FastOperator[]
}

enum Ch {
  Tab = 9,
  Space = 32,
  Bang = 33,
  DoubleQuote = 34,
  Dollar = 36,
  Percent = 37,
  Amp = 38,
  Star = 42,
  SingleQuote = 39,
  Plus = 43,
  Dash = 45,
  Colon = 58,
  Equals = 61,
  Question = 63,
  At = 64,
  Backslash = 92,
  Backquote = 96,
  Semicolon = 59,
  Pipe = 124,
  Tilde = 126,
}

/** Unquoted characters that are literal in a bash word: [A-Za-z0-9_./:=,+@%^-]. */
const WORD_CHAR = new Uint8Array(128)
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+@%^-') {
  WORD_CHAR[c.charCodeAt(0)] = 1
}

/** Characters allowed inside "...": printable ASCII except `"` and the ones that expand or escape. */
const DOUBLE_QUOTED_CHAR = new Uint8Array(128)
/** Characters allowed inside '...': printable ASCII except `'`. */
const SINGLE_QUOTED_CHAR = new Uint8Array(128)
for (let c = Ch.Space; c < Ch.Tilde + 1; c++) {
  SINGLE_QUOTED_CHAR[c] = c === Ch.SingleQuote ? 0 : 1
  DOUBLE_QUOTED_CHAR[c] =
    c === Ch.DoubleQuote || c === Ch.Dollar || c === Ch.Backquote || c === Ch.Backslash || c === Ch.Bang
      ? 0
      : 1
}

/**
 * Words that are not plain command names in command position: bash reserved words, and the
 * declaration builtins tree-sitter-bash reads as their own node types (the tree path reports them
 * as shell state changes; delegating keeps the two paths identical).
 */
const RESERVED: ReadonlySet<string> = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'in',
  'select',
  'function',
  'time',
  'coproc',
  'declare',
  'typeset',
  'export',
  'readonly',
  'local',
  'unset',
  'unsetenv',
])

interface RedirectToken {
  readonly text: string
  readonly ir: RedirectIR
}

const dup = (text: string, op: string, target: string): RedirectToken => ({
  text,
  ir: Object.freeze({
    kind: 'file',
    op,
    targets: Object.freeze([{ kind: 'static' as const, value: target }]),
    text,
  }),
})

const DEV_NULL: readonly Word[] = Object.freeze([{ kind: 'static' as const, value: '/dev/null' }])

// As tree-sitter-bash reads them: descriptor (if any), operator, destination.
const DUPLICATIONS: readonly RedirectToken[] = [
  dup('2>&1', '>&', '1'),
  dup('1>&2', '>&', '2'),
  dup('>&2', '>&', '2'),
]
const TO_DEV_NULL: readonly {
  readonly prefix: string
  readonly op: string
  readonly token: RedirectToken
}[] = [
  { prefix: '2>', op: '>', token: dup('2>/dev/null', '>', '/dev/null') },
  { prefix: '1>', op: '>', token: dup('1>/dev/null', '>', '/dev/null') },
  { prefix: '&>', op: '&>', token: dup('&>/dev/null', '&>', '/dev/null') },
  { prefix: '>', op: '>', token: dup('>/dev/null', '>', '/dev/null') },
]

/** Parse `command` if it is inside the subset; `undefined` means "delegate to tree-sitter". */
export function fastParse(command: string): FastParse | undefined {
  const n = command.length
  const commands: SimpleCommandIR[] = []
  const operators: FastOperator[] = []
  let words: Word[] = []
  let tokens: string[] = []
  let redirects: RedirectIR[] = []
  let redirectTexts: string[] = []
  let start = -1
  let end = -1
  let i = 0

  const finish = (): void => {
    let text = command.slice(start, end)
    for (const t of redirectTexts) text += ` ${t}`
    commands.push({
      text,
      canonical: redirectTexts.length === 0 ? tokens.join(' ') : [...tokens, ...redirectTexts].join(' '),
      words,
      redirects,
    })
    words = []
    tokens = []
    redirects = []
    redirectTexts = []
  }

  while (i < n) {
    const c = command.charCodeAt(i)
    if (c === Ch.Space || c === Ch.Tab) {
      i++
      continue
    }
    // Operators.
    let op: FastOperator | undefined
    const next = i + 1 < n ? command.charCodeAt(i + 1) : -1
    if (c === Ch.Pipe) {
      if (next === Ch.Amp) return undefined // |&
      op = next === Ch.Pipe ? '||' : '|'
    } else if (c === Ch.Semicolon) {
      if (next === Ch.Semicolon || next === Ch.Amp) return undefined // ;; ;& (case syntax)
      op = ';'
    } else if (c === Ch.Amp && next === Ch.Amp) {
      op = '&&'
    }
    if (op !== undefined) {
      if (words.length === 0) return undefined // empty command
      finish()
      operators.push(op)
      i += op.length
      continue
    }
    // Redirects: exact whole tokens, only after the words of a command.
    const redirect = matchRedirect(command, i, c)
    if (redirect !== undefined) {
      if (words.length === 0) return undefined
      // tree-sitter-bash attaches trailing redirects of `a | b 2>&1` (also `&&`, `||`) to the whole
      // chain, not to `b` as bash does; only the first command of a statement keeps its own.
      const before = operators.length === 0 ? ';' : operators[operators.length - 1]
      if (before !== ';') return undefined
      // tree-sitter-bash drops a bare `-` word before `2>&1` (bash passes it): delegate.
      if (tokens[tokens.length - 1] === '-') return undefined
      redirects.push(redirect.ir)
      redirectTexts.push(redirect.text)
      i += redirect.text.length
      continue
    }
    if (redirects.length > 0) return undefined // a word after a redirect
    // A word: one or more adjacent parts.
    const wordStart = i
    let value = ''
    // The first unquoted run holding `*` or `?`: the word is then a glob, known only at run time.
    let glob: string | undefined
    while (i < n) {
      const ch = command.charCodeAt(i)
      if (ch < 128 && WORD_CHAR[ch] === 1) {
        const from = i
        while (i < n) {
          const k = command.charCodeAt(i)
          if (k < 128 && WORD_CHAR[k] === 1) {
            i++
            continue
          }
          // Globs (`*.ts`, `src/*/x`, `a?`) in arguments: the word becomes dynamic, as in the tree
          // path (`[` is not accepted: it also starts `[ ... ]` tests and bracket expressions).
          if ((k === Ch.Star || k === Ch.Question) && words.length > 0) {
            i++
            continue
          }
          // `~` inside an unquoted run (`HEAD~1`) is literal in bash: tilde expansion applies only
          // at the start of a word and after `=` or `:` of an assignment (bash also expands
          // `--opt=~/x` in arguments), so it is accepted only after another run character.
          if (k === Ch.Tilde && words.length > 0 && i > from) {
            const prev = command.charCodeAt(i - 1)
            if (prev !== Ch.Equals && prev !== Ch.Colon) {
              i++
              continue
            }
          }
          break
        }
        // `==`/`=~` start special argument forms in tree-sitter-bash; `=x` is rare: delegate.
        if (command.charCodeAt(from) === Ch.Equals) return undefined
        if (words.length === 0) {
          // tree-sitter-bash fails to parse command names such as `a@b`, `a%b`, `a+:`, `if"x"` and
          // `- a=` (bash runs them): delegate those shapes.
          if (hasNameBreaker(command, from, i)) return undefined
          if (
            from === wordStart &&
            (RESERVED.has(command.slice(from, i)) || command.charCodeAt(from) === Ch.Dash)
          )
            return undefined
        }
        const run = command.slice(from, i)
        if (glob === undefined && (run.includes('*') || run.includes('?'))) glob = run
        value += run
        continue
      }
      // A run may also start with a glob character (`*.ts`), in arguments only.
      if ((ch === Ch.Star || ch === Ch.Question) && words.length > 0) {
        const from = i
        while (i < n) {
          const k = command.charCodeAt(i)
          if ((k < 128 && WORD_CHAR[k] === 1) || k === Ch.Star || k === Ch.Question) i++
          else if (
            k === Ch.Tilde &&
            command.charCodeAt(i - 1) !== Ch.Equals &&
            command.charCodeAt(i - 1) !== Ch.Colon
          )
            i++
          else break
        }
        const run = command.slice(from, i)
        glob ??= run
        value += run
        continue
      }
      if (ch === Ch.SingleQuote || ch === Ch.DoubleQuote) {
        const table = ch === Ch.SingleQuote ? SINGLE_QUOTED_CHAR : DOUBLE_QUOTED_CHAR
        const from = ++i
        while (i < n && command.charCodeAt(i) !== ch) {
          const k = command.charCodeAt(i)
          if (k >= 128 || table[k] !== 1) return undefined
          i++
        }
        if (i >= n) return undefined // unterminated quote
        value += command.slice(from, i)
        i++ // closing quote
        continue
      }
      if (ch === Ch.Space || ch === Ch.Tab || ch === Ch.Pipe || ch === Ch.Semicolon || ch === Ch.Amp) break
      return undefined // any other character: outside the subset
    }
    if (i === wordStart) return undefined // `&` alone (a background job) or another stray operator
    const raw = command.slice(wordStart, i)
    if (words.length === 0) {
      if (raw.includes('=') || RESERVED.has(raw) || RESERVED.has(value)) return undefined
      start = wordStart
    }
    words.push(glob === undefined ? { kind: 'static', value } : { kind: 'dynamic', why: `glob ${glob}` })
    tokens.push(raw)
    end = i
  }
  if (words.length > 0) finish()
  // Nothing after the last operator: fine only for a trailing `;` (`ls;`), and not for empty input.
  else if (operators.length === 0 || operators[operators.length - 1] !== ';') return undefined
  return { commands, operators }
}

function hasNameBreaker(command: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = command.charCodeAt(k)
    if (c === Ch.At || c === Ch.Percent || c === Ch.Plus) return true
  }
  return false
}

function matchRedirect(command: string, i: number, c: number): RedirectToken | undefined {
  // Every redirect token starts with one of `2 1 > &`.
  if (c !== 50 && c !== 49 && c !== 62 && c !== Ch.Amp) return undefined
  for (const r of DUPLICATIONS) {
    if (command.startsWith(r.text, i)) return endsToken(command, i + r.text.length) ? r : undefined
  }
  for (const op of TO_DEV_NULL) {
    if (!command.startsWith(op.prefix, i)) continue
    // `> /dev/null`: tree-sitter-bash reads the blanks as part of the redirect, as bash does.
    let j = i + op.prefix.length
    while (command.charCodeAt(j) === Ch.Space || command.charCodeAt(j) === Ch.Tab) j++
    if (!command.startsWith('/dev/null', j) || !endsToken(command, j + 9)) return undefined
    const text = command.slice(i, j + 9)
    if (text.length === op.prefix.length + 9) return op.token
    return { text, ir: { kind: 'file', op: op.op, targets: DEV_NULL, text } }
  }
  return undefined
}

/** A redirect token ends at the end, a blank, `|`, `;` or `&&` (not `&`, `>`, a quote ...). */
function endsToken(command: string, at: number): boolean {
  if (at >= command.length) return true
  const d = command.charCodeAt(at)
  if (d === Ch.Space || d === Ch.Tab || d === Ch.Pipe || d === Ch.Semicolon) return true
  return d === Ch.Amp && command.charCodeAt(at + 1) === Ch.Amp
}
