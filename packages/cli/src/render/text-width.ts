// Terminal columns, not UTF-16 code units: a CJK character or an emoji takes two columns, a
// ZWJ sequence (👩‍💻) or an emoji with a variation selector (❤️) is one glyph of two, combining marks
// take none. `string-width` measures (grapheme clusters, East Asian Width, emoji presentation);
// `wrap-ansi` wraps and cuts by that measure and keeps SGR styles open across the cut.
//
// Both segment graphemes with ICU, which on Node 20 takes minutes on one long non-ASCII string
// (measured: 141 s for 100,000 CJK characters; Node 24: 0.1 s). Tool output and model text are
// untrusted and unbounded, so nothing here hands either library more than a bounded piece: a
// line is cut to what its width can show before it is measured, a wrapped text to what a card shows.
import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'

/** The most code units ever measured or wrapped in one piece. */
const PIECE = 4096

/** Columns the text takes on a terminal (SGR escapes take none). */
export function displayWidth(text: string): number {
  let width = 0
  for (let at = 0; at < text.length; ) {
    const piece = boundedPrefix(text, at, PIECE)
    width += stringWidth(piece)
    at += piece.length
  }
  return width
}

/**
 * Cut a (possibly styled) line to at most `width` columns, ending with `…` when anything was cut;
 * styles open at the cut are closed. Tabs count as two spaces.
 */
export function clipToWidth(line: string, width: number): string {
  // No glyph is narrower than a quarter column per code unit except zero-width ones, so this
  // prefix holds every column the line can show (a line of marks alone is cut a little early).
  const bounded = boundedPrefix(line, 0, Math.max(1, width) * 4 + 256)
  const text = bounded.replace(/\t/g, '  ')
  if (bounded.length === line.length && displayWidth(text) <= width) return text
  if (width <= 1) return width === 1 ? '…' : ''
  // One line of at most width - 1 columns (a wide glyph that would straddle the edge moves down).
  const head = wrapAnsi(text, width - 1, { hard: true, wordWrap: false, trim: false }).split('\n')[0] ?? ''
  // wrap-ansi keeps a glyph wider than the whole line on it (two columns into one): nothing fits then.
  return displayWidth(head) > width - 1 ? '…' : `${head}…`
}

/**
 * Word-wrap text to `width` columns; a word longer than a line is split (by glyph, never mid-glyph).
 * At most `maxLines` lines (default all); `cut` says whether any text was left out.
 */
export function wrapToWidth(
  text: string,
  width: number,
  maxLines = Number.POSITIVE_INFINITY,
): string[] & { cut?: true } {
  const columns = Math.max(1, width)
  const out: string[] & { cut?: true } = []
  let at = 0
  while (at < text.length && out.length < maxLines) {
    const newline = text.indexOf('\n', at)
    const end = newline === -1 ? text.length : newline
    // A long source line is wrapped a piece at a time; a piece ends at a blank where there is one.
    let piece = boundedPrefix(text, at, Math.min(end - at, PIECE))
    if (at + piece.length < end) {
      const blank = piece.lastIndexOf(' ')
      if (blank > 0) piece = piece.slice(0, blank + 1)
    }
    // trim: false keeps indentation; the blank a line was broken at is dropped from its end.
    for (const line of wrapAnsi(piece, columns, { hard: true, trim: false }).split('\n'))
      out.push(line.replace(/ +$/, ''))
    at += piece.length
    if (at === end) at++
  }
  if (out.length > maxLines) out.length = maxLines
  if (at < text.length) out.cut = true
  return out
}

/**
 * At most `max` code units of `text` from `start`, never ending inside a surrogate pair, an SGR
 * escape or before a combining mark or joiner (so a grapheme is measured whole), and never empty.
 */
function boundedPrefix(text: string, start: number, max: number): string {
  if (text.length - start <= max) return start === 0 ? text : text.slice(start)
  let end = start + max
  const esc = text.lastIndexOf('\x1b', end - 1)
  if (esc >= start) {
    const sequence = sgrLength(text, esc)
    if (esc + sequence > end) end = esc > start ? esc : esc + sequence
  }
  // Back off over what joins the previous glyph (bounded: a run of marks longer than this is split).
  for (let steps = 0; steps < 32 && end - 1 > start && joinsPrevious(text, end); steps++) end--
  return text.slice(start, end)
}

/**
 * Length of the SGR escape at `at` (the CLI's own styling: untrusted text had its control
 * characters made visible before styling), or 1 for a lone ESC.
 */
function sgrLength(text: string, at: number): number {
  if (text[at + 1] !== '[') return 1
  let i = at + 2
  while (i < at + 64 && /[0-9;:]/.test(text[i] ?? '')) i++
  return text[i] === 'm' ? i + 1 - at : 1
}

const MARK = /\p{M}/u

/** Whether a glyph boundary before `index` could split a grapheme cluster. */
function joinsPrevious(text: string, index: number): boolean {
  const code = text.charCodeAt(index)
  if (code >= 0xdc00 && code <= 0xdfff) return true // the second half of a surrogate pair
  if (code === 0x200d || text.charCodeAt(index - 1) === 0x200d) return true // a zero-width joiner
  const next = text.codePointAt(index) ?? 0
  return (
    (next >= 0xfe00 && next <= 0xfe0f) || // variation selectors
    (next >= 0x1f3fb && next <= 0x1f3ff) || // skin tone modifiers
    (next >= 0xe0020 && next <= 0xe007f) || // tag characters (subdivision flags)
    (next >= 0x300 && MARK.test(String.fromCodePoint(next)))
  )
}
