import type { Word } from './types.js'

/**
 * Here-documents, read as bash reads them (issue 12 §1). tree-sitter-bash's reading of a heredoc
 * body differs from bash's in ways that hide code: it does not parse a backquote or a `$(` after a
 * blank in the body as a substitution, and it may end the body elsewhere (line continuations,
 * a delimiter line inside quotes). So the body is not taken from the tree: it is re-derived from
 * the source, and where the two readings could differ the answer is "not analysed".
 *
 * - The body starts after the newline that ends the redirect's line; that line's rest must be
 *   plain (balanced quotes, no backquote, no `$(`, no second `<<`, no line continuation), and the
 *   tree's body must start there.
 * - It ends at the first line equal to the delimiter (leading tabs removed for `<<-`), which must
 *   be where the tree ends it.
 * - With a quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) the body is literal text.
 * - Otherwise bash expands it like a double-quoted string: `$name` and `${name}` are variables
 *   (the text is then only known at run time); a backquote, `$(`, `$((`, `$[`, `${` with an
 *   operator, and any backslash-newline are not analysed.
 */

export interface HeredocSpan {
  /** Source text of the whole command. */
  readonly source: string
  /** `<<` or `<<-`. */
  readonly operator: string
  /** The delimiter word as written, and where it ends in the source. */
  readonly start: { readonly text: string; readonly end: number }
  /** Where the tree says the body and the end line start (the end line's text too). */
  readonly bodyStart: number | undefined
  readonly end: { readonly start: number; readonly text: string } | undefined
}

export type HeredocReading =
  | { readonly ok: true; readonly body: Word }
  | { readonly ok: false; readonly reason: string }

const DELIMITER = /^[A-Za-z0-9_.:+@%-]+$/

export function readHeredoc(h: HeredocSpan): HeredocReading {
  const fail = (reason: string): HeredocReading => ({ ok: false, reason: `here-document ${reason}` })
  const raw = h.start.text
  const quoted = /['"\\]/.test(raw)
  const delimiter = raw.replace(/['"\\]/g, '')
  if (!DELIMITER.test(delimiter) || !/^(?:'[^']*'|"[^"\\$`]*"|\\|[^'"\\])+$/.test(raw))
    return fail(`delimiter ${raw} is not analysed`)
  const lineEnd = h.source.indexOf('\n', h.start.end)
  if (lineEnd < 0) return fail('without a body is not analysed')
  const tail = h.source.slice(h.start.end, lineEnd)
  const plain = plainTail(tail)
  if (plain !== undefined)
    return fail(`line holds ${plain}, where bash and the parser may disagree on where the body starts`)
  const bodyStart = lineEnd + 1
  if (h.end === undefined) return fail('without an end line is not analysed')
  // tree-sitter-bash starts a body after the first line's leading blanks (the text itself is
  // taken from the source below, so only where the two readings put the body matters).
  const treeStart = h.bodyStart ?? h.end.start
  if (treeStart < bodyStart || !/^[ \t]*$/.test(h.source.slice(bodyStart, treeStart)))
    return fail('body does not start where bash starts it')
  // Where bash ends the body: the first line equal to the delimiter.
  let pos = bodyStart
  let endLine: number | undefined
  while (pos <= h.source.length) {
    const nl = h.source.indexOf('\n', pos)
    const lineStop = nl < 0 ? h.source.length : nl
    const line = h.source.slice(pos, lineStop)
    const compared = h.operator === '<<-' ? line.replace(/^\t+/, '') : line
    if (compared === delimiter) {
      endLine = pos
      break
    }
    if (nl < 0) break
    pos = nl + 1
  }
  if (endLine === undefined) return fail(`body has no line ${delimiter} ending it`)
  const endTabs = h.operator === '<<-' ? (/^\t*/.exec(h.source.slice(endLine))?.[0].length ?? 0) : 0
  if (h.end.start !== endLine + endTabs || h.end.text !== delimiter)
    return fail('ends where bash does not end it')
  let body = h.source.slice(bodyStart, endLine)
  if (h.operator === '<<-') body = body.replace(/^\t+/gm, '')
  if (quoted) return { ok: true, body: { kind: 'static', value: body } }
  return expandBody(body, fail)
}

/** Why the rest of the redirect's line is not plain, or `undefined` when it is. */
function plainTail(tail: string): string | undefined {
  let quote: string | undefined
  for (let i = 0; i < tail.length; i++) {
    const c = tail[i]!
    if (quote === "'") {
      if (c === "'") quote = undefined
      continue
    }
    if (c === '\\') {
      if (i === tail.length - 1) return 'a line continuation'
      i++
      continue
    }
    if (quote === '"') {
      if (c === '"') quote = undefined
      else if (c === '`' || (c === '$' && tail[i + 1] === '(')) return 'a substitution'
      continue
    }
    if (c === "'" || c === '"') quote = c
    else if (c === '`' || (c === '$' && tail[i + 1] === '(')) return 'a substitution'
    else if (c === '<' && tail[i + 1] === '<') return 'a second here-document'
    else if (c === '#' && (i === 0 || /\s/.test(tail[i - 1]!))) return undefined
  }
  return quote === undefined ? undefined : 'a quote that continues on the next line'
}

/** An unquoted-delimiter body: expansions like a double-quoted string. */
function expandBody(body: string, fail: (reason: string) => HeredocReading): HeredocReading {
  let value = ''
  let dynamic: string | undefined
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c === '\\') {
      const next = body[i + 1]
      if (next === '\n') return fail('body holds a line continuation')
      if (next !== undefined && '$`\\'.includes(next)) {
        value += next
        i++
        continue
      }
      value += c
      continue
    }
    if (c === '`') return fail('body holds a backquote command substitution')
    if (c !== '$') {
      value += c
      continue
    }
    const next = body[i + 1]
    if (next === undefined) {
      value += c
      continue
    }
    if (/[A-Za-z_]/.test(next)) {
      let j = i + 1
      while (j < body.length && /[A-Za-z0-9_]/.test(body[j]!)) j++
      dynamic ??= `variable ${body.slice(i, j)} in a here-document`
      i = j - 1
      continue
    }
    if (/[0-9@*#?$!-]/.test(next)) {
      dynamic ??= `variable $${next} in a here-document`
      i++
      continue
    }
    if (next === '{') {
      const close = body.indexOf('}', i + 2)
      const inner = close < 0 ? '' : body.slice(i + 2, close)
      if (!/^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/.test(inner))
        return fail(
          `body holds a parameter expansion with an operator (${body.slice(i, close < 0 ? i + 8 : close + 1)})`,
        )
      dynamic ??= `parameter expansion \${${inner}} in a here-document`
      i = close
      continue
    }
    if (next === '(' || next === '[') return fail(`body holds a substitution ($${next})`)
    if (next === "'" || next === '"') return fail(`body holds $${next}, which is not analysed`)
    value += c
  }
  if (dynamic !== undefined)
    return { ok: true, body: { kind: 'dynamic', why: dynamic, prefix: '', split: false } }
  return { ok: true, body: { kind: 'static', value } }
}
