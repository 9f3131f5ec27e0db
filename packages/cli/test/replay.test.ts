import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { main } from '../src/index.js'
import { testIO } from './helpers.js'
import { call, finish, modelServer, text } from './model-server.js'

const fixture = join(import.meta.dirname, 'fixtures', 'torn-session.jsonl')

const EXPECTED = `toolgate replay <log>

▸ read Read package.json
▸ read Read README.md
✓ read package.json · lines 1-9 of 9  35ms
  │ 1  {
  │ 2    "name": "demo-app",
  │ 3    "version": "1.0.0",
  │ 4    "type": "module",
  │ 5    "scripts": {
  │ 6      "start": "node src/index.js",
  │ 7      "lint": "node scripts/lint.mjs src"
  │ 8    }
  │ … 1 more lines
  · allowed by policy: the preset's defaults
✓ read README.md · lines 1-7 of 7  36ms
  │ 1  # demo-app
  │ 2  
  │ 3  A tiny app that greets people.
  │ 4  
  │ 5  ## Usage
  │ 6  
  │ 7  Run \`npm start\`.
  · allowed by policy: the preset's defaults
▸ edit README.md
✓ edit README.md · +4 -0  30ms
  │ @@ -5,3 +5,7 @@
  │  ## Usage
  │  
  │  Run \`npm start\`.
  │ +
  │ +## Development
  │ +
  │ +Run \`npm run lint\` before committing; it flags \`var\` declarations.
  · allowed by policy: the preset's defaults
▸ bash $ node scripts/lint.mjs src
  Run the project linter
  ? approval asked for bash (demo_lint): The command is not read-only (node: runs arbitrary code) and no sandbox confines it.
  ✓ approval allowed-once (demo_lint)
✓ bash $ node scripts/lint.mjs src · exit 1  1.4s
  │ src/util.js:2  error  Unexpected var, use let or const instead  no-var
  │ 
  │ ✖ 1 problem
▸ mcp__weather__forecast {"city":"Oslo"}
✓ mcp__weather__forecast {"city":"Oslo"}  41ms
  │ Oslo: 4°C, light rain

Summary
  calls     5: 5 ok
  time      tools 1.5s in total, slowest bash 1.4s
  approvals 1 asked: 1 allowed-once
  events    19
`

describe('toolgate replay', () => {
  test('re-renders the cards from the log alone (unknown tool: generic card); a torn last line is a notice', async () => {
    const { io, stdout, stderr } = testIO()
    expect(await main(['replay', fixture], io)).toBe(0)
    expect(stdout.text().replace(fixture, '<log>')).toBe(EXPECTED)
    expect(stderr.text()).toBe(
      'toolgate replay: notice: the last line (20) is incomplete — the session was cut off while writing; it was skipped.\n',
    )
  })

  test('a corrupt line in the middle is reported with its number and skipped (exit 0); a missing file is exit 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-replay-'))
    const bad = join(dir, 'bad.jsonl')
    writeFileSync(
      bad,
      '{"seq":1,"type":"tool/call","callId":"a","name":"mcp__x__y","arguments":{"q":1}}\nnot json\n{"seq":3,"type":"tool/result","callId":"a","name":"mcp__x__y","isError":false,"content":[{"type":"text","text":"fine"}]}\n',
    )
    const a = testIO()
    expect(await main(['replay', bad], a.io)).toBe(0)
    expect(a.stdout.text()).toBe(
      `toolgate replay ${bad}\n\n▸ mcp__x__y {"q":1}\n✓ mcp__x__y {"q":1}\n  │ fine\n\nSummary\n  calls     1: 1 ok\n  time      tools 0ms in total, slowest mcp__x__y 0ms\n  approvals none asked\n  events    2\n`,
    )
    expect(a.stderr.text()).toBe(
      'toolgate replay: notice: line 2 is not valid JSON (a session cut off while writing leaves one such line); it was skipped.\n',
    )

    const b = testIO()
    expect(await main(['replay', join(dir, 'nope.jsonl')], b.io)).toBe(3)
    expect(b.stderr.text()).toBe(`toolgate replay: session log ${join(dir, 'nope.jsonl')} does not exist\n`)
    expect(b.stdout.text()).toBe('')

    const c = testIO()
    expect(await main(['replay'], c.io)).toBe(2)
    expect(c.stderr.text()).toBe(
      'toolgate replay: missing argument <log> (the session log (a .jsonl file written by demo, run or chat)). See `toolgate replay --help`.\n',
    )
  })

  test('a run appended to a log with a torn tail: the tail is closed first, both sessions replay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-replay-append-'))
    const log = join(dir, 'session.jsonl')
    copyFileSync(fixture, log)
    writeFileSync(join(dir, 'notes.txt'), 'milk\n')
    const server = await modelServer([
      [call(0, 'call_n', 'read', { path: 'notes.txt' }), finish('tool_calls')],
      [text('It says milk.'), finish('stop')],
    ])
    try {
      const argv = [
        'run',
        '--provider',
        'openai-chat',
        '--base-url',
        server.baseUrl,
        '--model',
        'm',
        '--root',
        dir,
      ]
      expect(await main([...argv, '--log', log, 'read my notes'], testIO().io)).toBe(0)
    } finally {
      await server.close()
    }
    // The torn line was closed with a newline: the new session starts on a line of its own.
    const lines = readFileSync(log, 'utf8').split('\n')
    expect(lines[19]).toBe('{"seq":20,"type":"tool/call","callId":"demo_read_index","name":"re')
    expect(JSON.parse(lines[20]!)).toMatchObject({ seq: 1 })
    expect(lines.slice(20).map((l) => (l === '' ? undefined : JSON.parse(l)))).toContainEqual(
      expect.objectContaining({ type: 'tool/call', callId: 'call_n', name: 'read' }),
    )

    const r = testIO()
    expect(await main(['replay', log], r.io)).toBe(0)
    const out = r.stdout.text().replace(log, '<log>')
    // The first session's cards as before, then the new session's card.
    expect(out.startsWith(EXPECTED.slice(0, EXPECTED.indexOf('\nSummary')))).toBe(true)
    // ...then the new session: its header, the user's message, the card, who allowed it, the answer.
    const tail = '  │ Oslo: 4°C, light rain\n'
    const second = out.slice(out.indexOf(tail) + tail.length)
    expect(
      second.replace(/ {2}\d+(\.\d+)?m?s\n/, '  <t>\n').replace(/\n {2}time .*\n/, '\n  time      <t>\n'),
    ).toBe(
      [
        `── toolgate 0.1.0 · openai-chat m · preset workspace-write · ${dir}`,
        '› read my notes',
        '▸ read Read notes.txt',
        '✓ read notes.txt · line 1 of 1  <t>',
        '  │ 1  milk',
        "  · allowed by policy: the preset's defaults",
        'It says milk.',
        '',
        'Summary',
        '  calls     6: 6 ok',
        '  time      <t>',
        '  approvals 1 asked: 1 allowed-once',
        '  events    28',
        '',
      ].join('\n'),
    )
    expect(r.stderr.text()).toBe(
      'toolgate replay: notice: line 20 is not valid JSON (a session cut off while writing leaves one such line); it was skipped.\n',
    )
  })

  test('a file with no session event at all is exit 3; a file of only bad lines past the limit too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-replay-'))
    const notes = join(dir, 'notes.txt')
    writeFileSync(notes, 'hello\nworld\n')
    const a = testIO()
    expect(await main(['replay', notes], a.io)).toBe(3)
    expect(a.stderr.text()).toBe(
      `toolgate replay: ${notes} has no session event (2 lines are not session events); it is not a session log.\n`,
    )
    const big = join(dir, 'big.txt')
    writeFileSync(big, 'x\n'.repeat(5000))
    const b = testIO()
    expect(await main(['replay', big], b.io)).toBe(3)
    expect(b.stderr.text()).toBe(
      `toolgate replay: session log ${big}: more than 1000 lines are not session events; it is not a session log, or it is badly damaged.\n`,
    )
    expect([a.stdout.text(), b.stdout.text()]).toEqual(['', ''])
  })

  test('a live demo and the replay of its log print the same cards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-replay-live-'))
    const live = testIO()
    expect(await main(['demo', '--dir', dir], live.io)).toBe(0)
    const logPath = /^ {2}log +(.+)$/m.exec(live.stdout.text())?.[1]
    expect(logPath).toBeDefined()
    const replayed = testIO()
    expect(await main(['replay', logPath!], replayed.io)).toBe(0)
    // Cards only, as blocks (a header line and its body). The live run prints results as they settle
    // (parallel reads in completion order) and marks parallel calls; the log holds them in model
    // order. So: the same set of cards, each with exactly the same text.
    const cards = (text: string) => {
      const blocks: string[] = []
      for (const line of text.split('\n')) {
        if (/^(▸|✓|✗) /.test(line)) blocks.push(line.replace(' ‖ parallel', ''))
        else if (/^ {2}│/.test(line) && blocks.length > 0) blocks[blocks.length - 1] += `\n${line}`
      }
      return blocks.sort()
    }
    const liveCards = cards(live.stdout.text())
    expect(liveCards.length).toBe(20)
    expect(cards(replayed.stdout.text())).toEqual(liveCards)
    // Same count of model-level calls; run_code's sub-calls are summarized apart, not as cards.
    const callsLine = (text: string) => /^ {2}calls +(.+)$/m.exec(text)?.[1]
    expect(callsLine(replayed.stdout.text())).toBe(callsLine(live.stdout.text()))
    expect(replayed.stdout.text()).toMatch(/^ {2}sub-calls +3 inside run_code programs$/m)
  })
})
