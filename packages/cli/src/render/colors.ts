// ANSI styling that disappears entirely when colour is off: NO_COLOR (https://no-color.org: set and
// not empty), or the stream is not a TTY. FORCE_COLOR (not "0") forces it on, for pipes into `less -R`.
import type { OutStream } from '../io.js'

export interface Style {
  readonly enabled: boolean
  bold(text: string): string
  dim(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  blue(text: string): string
  magenta(text: string): string
  cyan(text: string): string
}

export function colorEnabled(stream: OutStream, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true
  return stream.isTTY === true && env.TERM !== 'dumb'
}

const wrap = (open: number, close: number) => (text: string) =>
  text === '' ? text : `\x1b[${open}m${text}\x1b[${close}m`

export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    const id = (text: string) => text
    return { enabled, bold: id, dim: id, red: id, green: id, yellow: id, blue: id, magenta: id, cyan: id }
  }
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    blue: wrap(34, 39),
    magenta: wrap(35, 39),
    cyan: wrap(36, 39),
  }
}

/** Remove ANSI escape sequences (tests, width computations). */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
}
