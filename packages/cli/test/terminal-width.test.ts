// Lines are measured in terminal columns: CJK and emoji take two, ZWJ sequences and variation
// selectors make one glyph, combining marks none. Cards, the status line and the progress line never
// print a line wider than the terminal, whatever the text (a fast-check property over such text).
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { renderCallCard, renderResultCard } from '../src/render/cards.js'
import { createStyle } from '../src/render/colors.js'
import { createScreen } from '../src/render/progress.js'
import { renderStatusLine } from '../src/render/status-line.js'
import { clipToWidth, displayWidth, wrapToWidth } from '../src/render/text-width.js'

const plain = createStyle(false)
const styled = createStyle(true)

/** Glyphs whose width a code-unit count gets wrong. */
const GLYPHS = [
  'a',
  ' ',
  '中',
  '文',
  'ｶ', // half-width katakana: one column
  '한',
  '😀',
  '👩‍💻', // ZWJ sequence: one glyph, two columns
  '❤️', // heart + VS16: emoji presentation, two columns
  '👍🏽', // skin tone modifier
  '🇯🇵', // flag: a pair of regional indicators
  'é', // e + combining acute
  '…',
]
const text = fc.array(fc.constantFrom(...GLYPHS), { maxLength: 80 }).map((g) => g.join(''))

describe('displayWidth', () => {
  test.for([
    ['abc', 3],
    ['中文', 4],
    ['😀', 2],
    ['👩‍💻', 2],
    ['❤️', 2],
    ['🇯🇵', 2],
    ['é', 1],
    ['ｶ', 1],
    ['\x1b[31m中\x1b[39m', 2],
  ] as const)('%s is %i columns', ([s, w]) => {
    expect(displayWidth(s)).toBe(w)
  })
})

describe('clipToWidth and wrapToWidth', () => {
  test('exact cuts: a wide glyph that would straddle the edge is left out, never split', () => {
    expect(clipToWidth('中文中文', 5)).toBe('中文…')
    expect(clipToWidth('ab中文', 4)).toBe('ab…')
    expect(clipToWidth('👩‍💻👩‍💻👩‍💻', 5)).toBe('👩‍💻👩‍💻…')
    expect(clipToWidth('中文', 4)).toBe('中文')
    expect(wrapToWidth('中文中文中', 4)).toEqual(['中文', '中文', '中'])
    expect(wrapToWidth('hello 世界 again', 7)).toEqual(['hello', '世界', 'again'])
  })

  test('a styled line is cut in columns and its styles are closed before the ellipsis', () => {
    const cut = clipToWidth(styled.red(`中文${styled.bold('中文')}中文`), 7)
    expect(displayWidth(cut)).toBe(7)
    expect(cut.endsWith('\x1b[39m…')).toBe(true)
  })

  test('property: no line is ever wider than asked, plain or styled, and nothing is lost when it fits', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 60 }), (s, width) => {
        for (const input of [s, styled.dim(`${styled.red(s)} ${styled.bold(s)}`)]) {
          const clipped = clipToWidth(input, width)
          expect(displayWidth(clipped)).toBeLessThanOrEqual(width)
          if (displayWidth(input) <= width) expect(clipped).toBe(input)
        }
        if (width >= 2)
          for (const line of wrapToWidth(s, width)) expect(displayWidth(line)).toBeLessThanOrEqual(width)
      }),
    )
  })
})

describe('unbounded text is measured a bounded piece at a time', () => {
  // ICU's grapheme segmenter took 141 s on one 100,000-character CJK string on Node 20, and a tool
  // result card froze the CLI that long. These finish at once because nothing long is segmented.
  const huge = '漢'.repeat(200_000)

  test('a 200,000-character line is clipped to its first columns, styled or not', () => {
    expect(clipToWidth(huge, 9)).toBe('漢漢漢漢…')
    expect(clipToWidth(`  ${styled.dim('│')} ${huge}`, 9)).toBe(`  ${styled.dim('│')} 漢漢…`)
    expect(clipToWidth('a'.repeat(200_000), 5)).toBe('aaaa…')
  })

  test('its width is exact, however the pieces fall', () => {
    expect(displayWidth(huge)).toBe(400_000)
    expect(displayWidth(styled.red(huge))).toBe(400_000)
  })

  test('property: the width of a long text is the sum of its glyphs, across every piece boundary', () => {
    const widths = new Map(GLYPHS.map((g) => [g, displayWidth(g)]))
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...GLYPHS), { minLength: 1500, maxLength: 3000 }), (glyphs) => {
        expect(displayWidth(glyphs.join(''))).toBe(glyphs.reduce((n, g) => n + widths.get(g)!, 0))
      }),
      { numRuns: 30 },
    )
  })

  test('a wrapped text stops at the lines asked for and says that text was left out', () => {
    const lines = wrapToWidth(`${huge}\n${'word '.repeat(100_000)}`, 10, 3)
    expect([...lines]).toEqual(['漢漢漢漢漢', '漢漢漢漢漢', '漢漢漢漢漢'])
    expect(lines.cut).toBe(true)
    const all = wrapToWidth('one two\nthree', 7, 3)
    expect([...all]).toEqual(['one two', 'three'])
    expect(all.cut).toBeUndefined()
  })

  test('an error card with a 1 MB message shows its first lines and says there is more', () => {
    const card = renderResultCard(
      {
        name: 'bash',
        arguments: {},
        result: {
          callId: 'c',
          isError: true,
          content: [],
          error: { kind: 'tool_error', code: 'TOOL_ERROR', message: 'x'.repeat(1_000_000) },
        },
      } as unknown as Parameters<typeof renderResultCard>[0],
      plain,
      { width: 20, maxLines: 2 },
    )
    expect(card.split('\n').slice(1)).toEqual([
      `  │ ${'x'.repeat(16)}`,
      `  │ ${'x'.repeat(16)}`,
      '  │ … more',
      '',
    ])
  })
})

describe('cards, the status line and the progress line stay inside the terminal', () => {
  test('property: every card line fits the width, for CJK and emoji titles, paths, output and errors', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 20, max: 100 }), fc.boolean(), (s, width, colour) => {
        const style = colour ? styled : plain
        const cards = [
          renderCallCard(
            { name: 'bash', args: {}, view: { card: 'terminal', command: s, description: s } },
            style,
            {
              width,
            },
          ),
          renderResultCard(
            {
              name: 'read',
              args: {},
              result: { isError: false, content: [{ type: 'text', text: s }] },
              resultView: { card: 'read', path: s, startLine: 1, lines: [s, s], totalLines: 2 },
            },
            style,
            { width },
          ),
          renderResultCard(
            {
              name: 'write',
              args: {},
              result: { isError: true, content: [{ type: 'text', text: `${s} ${s}` }] },
            },
            style,
            { width },
          ),
        ]
        for (const line of cards.join('').split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(width)
      }),
    )
  })

  test('property: the status line fits, whatever the model name', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 20, max: 100 }), (model, width) => {
        const line = renderStatusLine(
          {
            model,
            contextTokens: 1234,
            contextWindow: 200_000,
            cost: 0.5,
            preset: 'workspace-write',
            mcp: { starting: 2, reconnecting: 1 },
          },
          styled,
          width,
        )
        expect(displayWidth(line)).toBeLessThanOrEqual(width)
      }),
    )
  })

  test('the progress line of a call with a CJK title fits a 30-column terminal (it is redrawn with \\r)', async () => {
    let drawn: (line: string) => void = () => {}
    const firstDraw = new Promise<string>((resolve) => {
      drawn = resolve
    })
    let clock = 0
    const screen = createScreen(
      {
        isTTY: true,
        columns: 30,
        write: (chunk: string) => {
          if (chunk.startsWith('\r\x1b[2K') && chunk.length > 5) drawn(chunk.slice(5))
          return true
        },
      },
      plain,
      { progress: true, delayMs: 0, intervalMs: 1, now: () => clock },
    )
    screen.begin('c1', '读取 src/配置文件/非常长的名字.ts 😀😀😀')
    clock = 1500
    const line = await firstDraw
    screen.dispose()
    // 29 columns: the label gets 22 (the elapsed part takes 7); 非 would straddle the edge.
    expect(line).toBe('⠋ 读取 src/配置文件/… · 1.5s')
    expect(displayWidth(line)).toBe(28)
  })
})
