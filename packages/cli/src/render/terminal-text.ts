// Untrusted text on a terminal (DESIGN §6: tool output never reaches a terminal with its control
// sequences). Model text, tool output, card fields, tool error messages, paths from the model and
// provider error text can all carry escape sequences: clear the screen, set the window title (OSC
// 0/2), write the clipboard (OSC 52), move the cursor, overwrite a line with CR, reorder text with
// bidi overrides. Only the CLI's own styling (colors.ts) emits escapes. One classification of
// characters, two ways of showing them:
// - `terminalSafe` (everything the CLI prints that it did not write itself): every ACTIVE character
//   is made visible instead of interpreted, one for one — C0 controls and DEL become their Unicode
//   control pictures (ESC -> ␛, so `ESC[2J` prints as `␛[2J`), C1 controls `\x9b`, bidi and
//   line-separator controls `\u202e`. `\n` and `\t` stay; CRLF becomes LF.
// - `visible` (what a person approves, issue 12 §7): stricter — every character that does not show
//   as itself is NAMED (the ACTIVE ones, every other format character such as U+200B, blanks other
//   than the space: `⟨ESC⟩`, `⟨U+202E⟩`), long and trailing runs of spaces are counted, and the text
//   is cut at MAX_SHOWN with the rest counted. Its set contains terminalSafe's by construction.
import type { Style } from './colors.js'

/** Characters a terminal acts on: C0 except \t and \n, DEL, C1, ALM, LRM/RLM, LS/PS, LRE..RLO, LRI..PDI. */
const ACTIVE = '\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069'
const UNSAFE = new RegExp(`[${ACTIVE}]`)
const UNSAFE_ALL = new RegExp(`\\r\\n|[${ACTIVE}]`, 'g')
/** What does not show as itself: the ACTIVE set, every control and format character, blanks but the space and \n. */
const INVISIBLE = new RegExp(`[${ACTIVE}\\p{Cc}\\p{Cf}]|[^\\S \\n]`, 'u')

function controlPicture(char: string): string {
  if (char === '\r\n') return '\n'
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code) // ␀..␟ (ESC -> ␛, CR -> ␍)
  if (code === 0x7f) return '\u2421' // ␡
  if (code <= 0x9f) return `\\x${code.toString(16)}`
  return `\\u${code.toString(16).padStart(4, '0')}`
}

/** Text from outside the CLI, safe to print: control characters shown, never interpreted. */
export function terminalSafe(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, controlPicture) : text
}

/**
 * Every string inside a JSON-like value made terminal-safe (keys too). Returns the same reference
 * when nothing needed a change, so clean cards cost a scan and no copy.
 */
export function terminalSafeDeep<T>(value: T): T {
  if (typeof value === 'string') return terminalSafe(value) as T
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const safe = terminalSafeDeep(item)
      if (safe !== item) {
        out ??= value.slice()
        out[i] = safe
      }
    }
    return (out ?? value) as T
  }
  let out: Record<string, unknown> | undefined
  const source = value as Record<string, unknown>
  for (const key of Object.keys(source)) {
    const item = source[key]
    const safeKey = terminalSafe(key)
    const safe = terminalSafeDeep(item)
    if (safe !== item || safeKey !== key) {
      out ??= { ...source }
      if (safeKey !== key) delete out[key]
      out[safeKey] = safe
    }
  }
  return (out ?? value) as T
}

// JSON.stringify escapes C0 but not DEL, C1, bidi or line separators.
const JSON_UNSAFE = /[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/** One JSON line whose bytes carry no control character a terminal would act on (same value). */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`
}

/** At most this many characters of a command are shown; the rest is counted, never dropped silently. */
export const MAX_SHOWN = 8000

const NAMES: Readonly<Record<string, string>> = {
  '\r': 'CR',
  '\t': 'TAB',
  '\x1b': 'ESC',
  '\x00': 'NUL',
  '\x7f': 'DEL',
}

/**
 * Text as a person must see it at an approval prompt: every character that does not show as itself
 * is named (`⟨CR⟩`, `⟨ESC⟩`, `⟨U+202E⟩`), runs of 8 or more spaces and trailing spaces are counted
 * (`⟨150 spaces⟩`), newlines are kept as line breaks. Longer than MAX_SHOWN: the rest is counted.
 * Nothing terminalSafe would change survives (tested as a property), so it needs no terminalSafe first.
 */
export function visible(text: string, style?: Style): { readonly text: string; readonly omitted: number } {
  const mark = (s: string) => (style === undefined ? `⟨${s}⟩` : style.yellow(`⟨${s}⟩`))
  const chars = [...text]
  const omitted = Math.max(0, chars.length - MAX_SHOWN)
  let out = ''
  for (let i = 0; i < Math.min(chars.length, MAX_SHOWN); i++) {
    const c = chars[i]!
    if (c === ' ') {
      let j = i
      while (j < chars.length && j < MAX_SHOWN && chars[j] === ' ') j++
      const run = j - i
      const trailing = j >= chars.length || chars[j] === '\n'
      out += run >= 8 || (trailing && run > 0) ? mark(`${run} space${run === 1 ? '' : 's'}`) : ' '.repeat(run)
      i = j - 1
      continue
    }
    if (c !== '\n' && INVISIBLE.test(c)) {
      const code = c.codePointAt(0)!
      out += mark(NAMES[c] ?? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`)
      continue
    }
    out += c
  }
  return { text: out, omitted }
}
