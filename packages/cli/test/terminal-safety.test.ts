// Untrusted text never drives the terminal (issue 13 §4, DESIGN §6): model text, tool output, card
// fields, tool error messages and paths from the model are printed with their control sequences
// made visible, live (`run` against a real model server on loopback, real bash) and in `replay`.
// Only the CLI's own SGR styling may reach the terminal.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { main } from '../src/index.js'
import { renderResultCard } from '../src/render/cards.js'
import { createStyle } from '../src/render/colors.js'
import { jsonLine, terminalSafe, terminalSafeDeep, visible } from '../src/render/terminal-text.js'
import { testIO } from './helpers.js'
import { call, finish, modelServer, type ScriptedServer, text } from './model-server.js'

/** Every class of sequence, as the attacker writes it and as the terminal must show it. */
const CLASSES = [
  ['clear screen', '\x1b[2J\x1b[3J\x1b[H', '␛[2J␛[3J␛[H'],
  ['cursor up, erase line', '\x1b[1A\x1b[2K', '␛[1A␛[2K'],
  ['title osc0', '\x1b]0;pwned\x07', '␛]0;pwned␇'],
  ['title osc2', '\x1b]2;pwned\x1b\\', '␛]2;pwned␛\\'],
  ['clipboard osc52', '\x1b]52;c;cm0gLXJmIH4=\x07', '␛]52;c;cm0gLXJmIH4=␇'],
  ['c1 csi', '\u009b2J\u009d0;x\u009c', '\\x9b2J\\x9d0;x\\x9c'],
  ['bidi', 'a\u202eevil\u202c\u2066b\u2069', 'a\\u202eevil\\u202c\\u2066b\\u2069'],
  ['carriage return', 'safe\rEVIL', 'safe␍EVIL'],
  ['bs bel del', 'a\x08b\x07c\x7fd', 'a␈b␇c␡d'],
] as const

// Anything a terminal could act on: C0 except \n, DEL, C1, bidi and line-separator controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point
const ACTIVE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/
/** The CLI's own styling: Select Graphic Rendition, nothing else. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching SGR escapes is the point
const SGR = /\x1b\[[0-9;]*m/g

describe('terminalSafe', () => {
  test.each(CLASSES)('%s', (_name, raw, shown) => {
    expect(terminalSafe(`x ${raw} y`)).toBe(`x ${shown} y`)
  })

  test('\\n and \\t stay, CRLF becomes LF, NUL and the rest of C0 become control pictures', () => {
    expect(terminalSafe('a\tb\r\nc\nd\0e\x01f\x1fg')).toBe('a\tb\nc\nd␀e␁f␟g')
  })

  test('property: nothing active survives, a clean string is returned as is, and it is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const safe = terminalSafe(s)
        expect(safe.replaceAll('\t', '')).not.toMatch(ACTIVE)
        expect(terminalSafe(safe)).toBe(safe)
        if (!ACTIVE.test(s.replaceAll('\t', ''))) expect(safe).toBe(s)
      }),
      { numRuns: 500 },
    )
  })

  test("property: the approval prompt's `visible` is at least as strict — nothing terminalSafe would change survives it, and nothing that does not show as itself", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const shown = visible(s).text
        expect(terminalSafe(shown)).toBe(shown)
        expect(shown).not.toMatch(ACTIVE)
        expect(shown).not.toMatch(/[\p{Cf}]|[^\S \n]/u)
      }),
      { numRuns: 500 },
    )
    // One classification, two forms: a control picture in a card, a name at the prompt.
    expect(CLASSES.map(([, raw]) => visible(raw).text)).toEqual([
      '⟨ESC⟩[2J⟨ESC⟩[3J⟨ESC⟩[H',
      '⟨ESC⟩[1A⟨ESC⟩[2K',
      '⟨ESC⟩]0;pwned⟨U+0007⟩',
      '⟨ESC⟩]2;pwned⟨ESC⟩\\',
      '⟨ESC⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩',
      '⟨U+009B⟩2J⟨U+009D⟩0;x⟨U+009C⟩',
      'a⟨U+202E⟩evil⟨U+202C⟩⟨U+2066⟩b⟨U+2069⟩',
      'safe⟨CR⟩EVIL',
      'a⟨U+0008⟩b⟨U+0007⟩c⟨DEL⟩d',
    ])
  })

  test('deep: strings inside objects and arrays (keys too); an untouched value keeps its identity', () => {
    const clean = { a: ['x', { b: 'y' }] }
    expect(terminalSafeDeep(clean)).toBe(clean)
    expect(terminalSafeDeep({ '\x1b]0;k\x07': ['\x1b[2J', 3, null, { c: '\u202e' }] })).toEqual({
      '␛]0;k␇': ['␛[2J', 3, null, { c: '\\u202e' }],
    })
  })

  test('--json lines: same value, but DEL, C1, bidi and separators are \\u escapes in the bytes', () => {
    const value = { text: '\x1b[2J\u009b\u202e\u2028\x7f' }
    const line = jsonLine(value)
    expect(line).toBe('{"text":"\\u001b[2J\\u009b\\u202e\\u2028\\u007f"}\n')
    expect(JSON.parse(line)).toEqual(value)
  })

  test('a card in colour: only the CLI’s SGR sequences are escapes', () => {
    const card = renderResultCard(
      {
        name: 'mcp__x__y',
        args: { q: '\x1b]0;t\x07' },
        result: { isError: false, content: [{ type: 'text', text: CLASSES.map((c) => c[1]).join('\n') }] },
      },
      createStyle(true),
    )
    expect(card.replace(SGR, '')).not.toMatch(ACTIVE)
  })
})

describe('live (`run`, real HTTP and real bash) and `replay` print the same safe bytes', () => {
  let server: ScriptedServer
  let root: string
  let log: string
  const live = testIO()
  const hostileFile = `${CLASSES.map(([name, raw]) => `${name}: ${raw}`).join('\n')}\n`

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'toolgate-tsafe-'))
    log = join(root, '..', `${root.split('/').pop()}.jsonl`)
    writeFileSync(join(root, 'hostile.txt'), hostileFile)
    server = await modelServer([
      [
        text(`Here:\n${CLASSES.map(([name, raw]) => `${name}: ${raw}`).join('\n')}\n`),
        call(0, 'call_1', 'bash', { command: 'sed -n 1,5p hostile.txt # \x1b]0;cmd\x07' }),
        call(1, 'call_2', 'bash', { command: 'sed -n 6,9p hostile.txt' }),
        call(2, 'call_3', 'read', { path: 'no\x1b[31mpe\u202e.txt' }),
        call(3, 'call_4', 'x\x1b[2Jy', {}),
        finish('tool_calls'),
      ],
      [text('Done.'), finish('stop')],
    ])
    const argv = [
      'run',
      '--provider',
      'openai-chat',
      '--base-url',
      server.baseUrl,
      '--model',
      'm',
      '--root',
      root,
    ]
    expect(await main([...argv, '--yes', '--log', log, 'show me'], live.io)).toBe(0)
  }, 60_000)
  afterAll(() => server.close())

  /** Card blocks (header + body lines), without durations and the live-only parallel badge. */
  const cards = (out: string) =>
    out
      .split('\n')
      .filter((l) => /^(▸|✓|✗) |^ {2}│/.test(l))
      .map((l) => l.replace(/ ‖ parallel/, '').replace(/ {2}\d+(ms|\.\ds)$/, ''))
      .join('\n')

  const EXPECTED_CARDS = [
    '✓ bash $ sed -n 1,5p hostile.txt # ␛]0;cmd␇ · exit 0',
    ...CLASSES.slice(0, 5).map(([name, , shown]) => `  │ ${name}: ${shown}`),
    '✓ bash $ sed -n 6,9p hostile.txt · exit 0',
    ...CLASSES.slice(5).map(([name, , shown]) => `  │ ${name}: ${shown}`),
    '✗ read Read no␛[31mpe\\u202e.txt · TOOL_ERROR',
    '  │ no␛[31mpe\\u202e.txt does not exist. Check the path (use glob or ls to find the file).',
    '✗ x␛[2Jy {} · UNKNOWN_TOOL',
    // the model-facing message quotes the name as JSON, so the escape arrives as text
    '  │ No tool named "x\\u001b[2Jy" is available. Call one of the tools listed in your tool definitions.',
  ]

  test('live: the model text, every card field and tool output, exact bytes; nothing active on stdout', () => {
    const out = live.stdout.text()
    expect(out).toContain(`Here:\n${CLASSES.map(([name, , shown]) => `${name}: ${shown}`).join('\n')}\n`)
    const shown = cards(out)
    for (const [from, to] of [
      [0, 6],
      [6, 11],
      [11, 13],
      [13, 15],
    ])
      expect(shown).toContain(EXPECTED_CARDS.slice(from, to).join('\n'))
    expect(shown).toContain('▸ bash $ sed -n 1,5p hostile.txt # ␛]0;cmd␇')
    expect(shown).toContain('▸ x␛[2Jy {}')
    expect(out).not.toMatch(ACTIVE)
    expect(live.stderr.text()).not.toMatch(ACTIVE)
  })

  test('replay: the same cards from the log, exact bytes; nothing active on stdout', async () => {
    const r = testIO()
    expect(await main(['replay', log], r.io)).toBe(0)
    expect(cards(r.stdout.text())).toBe(
      [
        '▸ bash $ sed -n 1,5p hostile.txt # ␛]0;cmd␇',
        '▸ bash $ sed -n 6,9p hostile.txt',
        '▸ read Read no␛[31mpe\\u202e.txt',
        ...EXPECTED_CARDS.slice(0, 13),
        '▸ x␛[2Jy {}',
        ...EXPECTED_CARDS.slice(13),
      ].join('\n'),
    )
    expect(r.stdout.text()).not.toMatch(ACTIVE)
  })

  test('colour on (FORCE_COLOR): the only escapes on stdout are the CLI’s own SGR', async () => {
    const r = testIO({ NO_COLOR: undefined, FORCE_COLOR: '1' })
    expect(await main(['replay', log], r.io)).toBe(0)
    const out = r.stdout.text()
    expect(out).toContain('\x1b[')
    expect(out.replace(SGR, '')).not.toMatch(ACTIVE)
  })

  test('--json: every line parses to the raw values, and its bytes carry nothing active', async () => {
    const r = testIO()
    const again = await modelServer([[text('\x1b]52;c;aGk=\x07\u202e\u009b'), finish('stop')]])
    try {
      const argv = [
        'run',
        '--provider',
        'openai-chat',
        '--base-url',
        again.baseUrl,
        '--model',
        'm',
        '--root',
        root,
      ]
      expect(await main([...argv, '--json', '--log', join(root, 'j.jsonl'), 'hi'], r.io)).toBe(0)
    } finally {
      await again.close()
    }
    const out = r.stdout.text()
    expect(out).not.toMatch(ACTIVE)
    const deltas = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string })
      .filter((e) => e.type === 'text-delta')
    expect(deltas.map((e) => e.text).join('')).toBe('\x1b]52;c;aGk=\x07\u202e\u009b')
  })
})
