// Untrusted text on a terminal (DESIGN §6: tool output never reaches a terminal with its control
// sequences). Model text, tool output, card fields, tool error messages, paths from the model and
// provider error text can all carry escape sequences: clear the screen, set the window title (OSC
// 0/2), write the clipboard (OSC 52), move the cursor, overwrite a line with CR, reorder text with
// bidi overrides. Everything the CLI prints that it did not write itself goes through
// `terminalSafe`, which makes every such character visible instead of interpreted: C0 controls and
// DEL become their Unicode control pictures (ESC -> ␛, so `ESC[2J` prints as `␛[2J`), C1 controls
// `\x9b`, bidi and line-separator controls `\u202e`. `\n` and `\t` stay; CRLF becomes LF. Only the
// CLI's own styling (colors.ts) emits escapes.

// C0 except \t and \n, DEL, C1, ALM, LRM/RLM, LS/PS, LRE..RLO, LRI..PDI.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_ALL = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

function visible(char: string): string {
  if (char === '\r\n') return '\n'
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code) // ␀..␟ (ESC -> ␛, CR -> ␍)
  if (code === 0x7f) return '\u2421' // ␡
  if (code <= 0x9f) return `\\x${code.toString(16)}`
  return `\\u${code.toString(16).padStart(4, '0')}`
}

/** Text from outside the CLI, safe to print: control characters shown, never interpreted. */
export function terminalSafe(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, visible) : text
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
