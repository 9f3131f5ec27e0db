// Styles through util.styleText: nested styles keep the outer one, and colour is off under
// NO_COLOR and off a TTY. The escapes are read back by a small SGR interpreter, so the tests say
// what a terminal shows (which attributes each character has), not which bytes a Node version emits.
import { describe, expect, test } from 'vitest'
import { colorEnabled, createStyle, stripAnsi } from '../src/render/colors.js'

const FG = new Map([
  [31, 'red'],
  [32, 'green'],
  [33, 'yellow'],
  [34, 'blue'],
  [35, 'magenta'],
  [36, 'cyan'],
])

const SGR_SPLIT = new RegExp(`(${'\x1b'}\\[[0-9;]*m)`)
const SGR = new RegExp(`^${'\x1b'}\\[([0-9;]*)m$`)

/** What a terminal shows: each visible character with its foreground, bold and dim. */
function shown(text: string): { ch: string; fg: string; bold: boolean; dim: boolean }[] {
  let fg = 'default'
  let bold = false
  let dim = false
  const out: { ch: string; fg: string; bold: boolean; dim: boolean }[] = []
  for (const part of text.split(SGR_SPLIT)) {
    const sgr = SGR.exec(part)
    if (!sgr) {
      for (const ch of part) out.push({ ch, fg, bold, dim })
      continue
    }
    for (const code of (sgr[1] || '0').split(';').map(Number)) {
      if (code === 0) [fg, bold, dim] = ['default', false, false]
      else if (code === 1) bold = true
      else if (code === 2) dim = true
      else if (code === 22) [bold, dim] = [false, false]
      else if (code === 39) fg = 'default'
      else if (FG.has(code)) fg = FG.get(code)!
      else throw new Error(`unexpected SGR ${code}`)
    }
  }
  return out
}

const at = (text: string, ch: string) => shown(text).find((c) => c.ch === ch)

describe('createStyle(true): styleText with nesting that keeps the outer style', () => {
  const style = createStyle(true)

  test('a red span containing a bold span stays red after the bold ends', () => {
    const text = style.red(`a ${style.bold('B')} c`)
    expect(at(text, 'a')).toEqual({ ch: 'a', fg: 'red', bold: false, dim: false })
    expect(at(text, 'B')).toEqual({ ch: 'B', fg: 'red', bold: true, dim: false })
    expect(at(text, 'c')).toEqual({ ch: 'c', fg: 'red', bold: false, dim: false })
    expect(shown(`${text}d`).at(-1)).toEqual({ ch: 'd', fg: 'default', bold: false, dim: false })
  })

  test('a red span containing a green one is red again after it (same closing code)', () => {
    const text = style.red(`a ${style.green('G')} c`)
    expect([at(text, 'a')?.fg, at(text, 'G')?.fg, at(text, 'c')?.fg]).toEqual(['red', 'green', 'red'])
  })

  test('a dim span containing a bold span is dim again after it (bold and dim share code 22)', () => {
    const text = style.dim(`a ${style.bold('B')} c`)
    expect(at(text, 'B')).toMatchObject({ bold: true })
    expect(at(text, 'c')).toEqual({ ch: 'c', fg: 'default', bold: false, dim: true })
  })

  test('three levels deep, and an empty span adds nothing', () => {
    const text = style.dim(`a ${style.red(`r ${style.bold('B')} s`)} c`)
    expect(at(text, 's')).toEqual({ ch: 's', fg: 'red', bold: false, dim: true })
    expect(at(text, 'c')).toEqual({ ch: 'c', fg: 'default', bold: false, dim: true })
    expect(style.red('')).toBe('')
    expect(stripAnsi(text)).toBe('a r B s c')
  })
})

describe('colour is off under NO_COLOR and off a TTY', () => {
  const tty = { isTTY: true, write: () => true }
  const pipe = { isTTY: false, write: () => true }

  test.for([
    ['a TTY', tty, {}, true],
    ['a pipe', pipe, {}, false],
    ['a TTY with NO_COLOR=1', tty, { NO_COLOR: '1' }, false],
    ['a TTY with NO_COLOR empty (not set, per no-color.org)', tty, { NO_COLOR: '' }, true],
    ['a TTY with TERM=dumb', tty, { TERM: 'dumb' }, false],
    ['a pipe with FORCE_COLOR=1', pipe, { FORCE_COLOR: '1' }, true],
    ['a pipe with FORCE_COLOR=0', pipe, { FORCE_COLOR: '0' }, false],
    ['NO_COLOR wins over FORCE_COLOR', tty, { NO_COLOR: '1', FORCE_COLOR: '1' }, false],
  ] as const)('%s -> %s', ([, stream, env, expected]) => {
    expect(colorEnabled(stream, env)).toBe(expected)
  })

  test('a disabled style returns the text unchanged; an enabled one styles even when this process is piped', () => {
    const off = createStyle(false)
    expect(off.red(`a ${off.bold('b')}`)).toBe('a b')
    expect(off.enabled).toBe(false)
    // The decision is the CLI's (FORCE_COLOR into `less -R`): styleText must not re-check process.stdout.
    expect(createStyle(true).red('x')).toBe('\x1b[31mx\x1b[39m')
  })
})
