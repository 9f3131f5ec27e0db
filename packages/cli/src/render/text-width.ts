// Terminal columns, not UTF-16 code units: a CJK character or an emoji takes two columns, a
// ZWJ sequence (👩‍💻) or an emoji with a variation selector (❤️) is one glyph of two, combining marks
// take none. `string-width` measures (grapheme clusters, East Asian Width, emoji presentation);
// `wrap-ansi` wraps and cuts by that measure and keeps SGR styles open across the cut.
import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'

/** Columns the text takes on a terminal (SGR escapes take none). */
export function displayWidth(text: string): number {
  return stringWidth(text)
}

/**
 * Cut a (possibly styled) line to at most `width` columns, ending with `…` when anything was cut;
 * styles open at the cut are closed. Tabs count as two spaces.
 */
export function clipToWidth(line: string, width: number): string {
  const text = line.replace(/\t/g, '  ')
  if (stringWidth(text) <= width) return text
  if (width <= 1) return width === 1 ? '…' : ''
  // One line of at most width - 1 columns (a wide glyph that would straddle the edge moves down).
  const head = wrapAnsi(text, width - 1, { hard: true, wordWrap: false, trim: false }).split('\n')[0] ?? ''
  // wrap-ansi keeps a glyph wider than the whole line on it (two columns into one): nothing fits then.
  return stringWidth(head) > width - 1 ? '…' : `${head}…`
}

/** Word-wrap text to `width` columns; a word longer than a line is split (by glyph, never mid-glyph). */
export function wrapToWidth(text: string, width: number): string[] {
  // trim: false keeps indentation; the blank a line was broken at is dropped from its end.
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: false })
    .split('\n')
    .map((line) => line.replace(/ +$/, ''))
}
