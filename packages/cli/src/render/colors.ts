// Terminal styling through `util.styleText` (Node >= 20.12), all of it disappearing when colour is
// off: NO_COLOR (https://no-color.org: set and not empty), or the stream is not a TTY. FORCE_COLOR
// (not "0") forces it on, for pipes into `less -R`. The decision is ours, made once per stream from
// the CLI's own env (tests pass theirs), so styleText is told not to check process.stdout itself.
//
// Nested styles keep the outer style: a red line holding a green word is red again after the word,
// and a dim line holding a bold word is dim again (bold and dim share the closing code 22). Node 24's
// styleText re-opens the outer style itself; Node 20's does not, so there the inner closing codes are
// followed by the outer opening code before styleText wraps the text.
import { inspect, stripVTControlCharacters, styleText } from 'node:util'
import type { OutStream } from '../io.js'

type Format = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan'

export type Style = { readonly enabled: boolean } & { readonly [F in Format]: (text: string) => string }

export function colorEnabled(stream: OutStream, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true
  return stream.isTTY === true && env.TERM !== 'dumb'
}

const RAW = { validateStream: false } as const

const sgr = (code: number) => `\x1b[${code}m`

/** Whether this Node's styleText re-opens the outer style after a nested one closes (Node 24 does). */
const REOPENS = !styleText('red', `${styleText('green', 'g', RAW)}r`, RAW).includes(`${sgr(39)}r`)

function styler(format: Format): (text: string) => string {
  const [open, close] = inspect.colors[format] as [number, number]
  const closing = sgr(close)
  const reopened = `${closing}${sgr(open)}`
  return (text) =>
    text === '' ? text : styleText(format, REOPENS ? text : text.replaceAll(closing, reopened), RAW)
}

const id = (text: string) => text
const PLAIN: Style = {
  enabled: false,
  bold: id,
  dim: id,
  red: id,
  green: id,
  yellow: id,
  blue: id,
  magenta: id,
  cyan: id,
}
const STYLED: Style = {
  enabled: true,
  bold: styler('bold'),
  dim: styler('dim'),
  red: styler('red'),
  green: styler('green'),
  yellow: styler('yellow'),
  blue: styler('blue'),
  magenta: styler('magenta'),
  cyan: styler('cyan'),
}

export function createStyle(enabled: boolean): Style {
  return enabled ? STYLED : PLAIN
}

/** Remove ANSI escape sequences (tests, width computations). */
export function stripAnsi(text: string): string {
  return stripVTControlCharacters(text)
}
