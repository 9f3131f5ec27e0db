// JSONL session files on disk (issue 13 §4): a torn tail is closed before a new session is
// appended, logs are read as a stream with bounded lines, and a bad line is reported with its
// number, never fatal. Real files, a real FIFO.
import { execFileSync } from 'node:child_process'
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRuntime, defineTool, textOutput } from '../src/index.js'
import {
  jsonlSink,
  readSessionEntries,
  readSessionLog,
  type SessionLogEntry,
  SessionLogError,
} from '../src/node/index.js'

const dir = () => mkdtempSync(join(tmpdir(), 'toolgate-log-'))
const tool = defineTool({
  name: 'e',
  description: 'A tool.',
  parameters: { type: 'object' },
  output: textOutput(),
  execute: () => 'done',
})

async function entries(path: string, options?: Parameters<typeof readSessionEntries>[1]) {
  const out: SessionLogEntry[] = []
  for await (const e of readSessionEntries(path, options)) out.push(e)
  return out
}

describe('torn tail, then a new session', () => {
  it('the sink closes the torn line with a newline; both sessions read back, the torn line is reported', async () => {
    const path = join(dir(), 'session.jsonl')
    const first = jsonlSink(path)
    expect(first.repairedTornTail).toBe(false)
    const runtime = createRuntime({ session: first })
    runtime.register(tool)
    await runtime.execute({ callId: 'a', name: 'e', arguments: {} })
    first.close()
    const clean = readFileSync(path, 'utf8')
    expect(await readSessionLog(path)).toMatchObject({ issues: [] })

    // A crash mid-write leaves half a line.
    appendFileSync(path, '{"seq":3,"type":"tool/ca')
    const torn = await readSessionLog(path)
    expect(torn.events.map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect(torn.issues).toEqual([
      {
        line: 3,
        kind: 'torn-tail',
        text: '{"seq":3,"type":"tool/ca',
        message: 'line 3 is incomplete (the session was cut off while writing); it was skipped.',
      },
    ])

    // The next session continues the same file.
    const second = jsonlSink(path)
    expect(second.repairedTornTail).toBe(true)
    const again = createRuntime({ session: second })
    again.register(tool)
    await again.execute({ callId: 'b', name: 'e', arguments: {} })
    second.close()

    const text = readFileSync(path, 'utf8')
    expect(
      text.startsWith(`${clean}{"seq":3,"type":"tool/ca\n{"seq":1,"type":"tool/call","callId":"b"`),
    ).toBe(true)
    const read = await readSessionLog(path)
    expect(read.events.map((e) => [e.seq, e.type, e.callId])).toEqual([
      [1, 'tool/call', 'a'],
      [2, 'tool/result', 'a'],
      [1, 'tool/call', 'b'],
      [2, 'tool/result', 'b'],
    ])
    expect(read.issues).toEqual([
      {
        line: 3,
        kind: 'not-json',
        text: '{"seq":3,"type":"tool/ca',
        message:
          'line 3 is not valid JSON (a session cut off while writing leaves one such line); it was skipped.',
      },
    ])
  })

  it('a clean log and an empty file are continued byte for byte (no newline added)', () => {
    const d = dir()
    const clean = join(d, 'clean.jsonl')
    writeFileSync(clean, '{"seq":1,"type":"a"}\n')
    const sink = jsonlSink(clean)
    expect(sink.repairedTornTail).toBe(false)
    sink.write({ seq: 1, type: 'b' })
    sink.close()
    expect(readFileSync(clean, 'utf8')).toBe('{"seq":1,"type":"a"}\n{"seq":1,"type":"b"}\n')

    const empty = join(d, 'empty.jsonl')
    writeFileSync(empty, '')
    const s2 = jsonlSink(empty)
    expect(s2.repairedTornTail).toBe(false)
    s2.close()
    expect(readFileSync(empty, 'utf8')).toBe('')
  })
})

describe('reading', () => {
  it('a malformed line in the middle is reported with its number; every other line is read, in order', async () => {
    const path = join(dir(), 'mid.jsonl')
    writeFileSync(path, '{"seq":1,"type":"a"}\nnot json\n\n[1,2]\n{"seq":4,"type":"d"}\n')
    expect(await entries(path)).toEqual([
      { kind: 'event', line: 1, event: { seq: 1, type: 'a' } },
      {
        kind: 'issue',
        issue: {
          line: 2,
          kind: 'not-json',
          text: 'not json',
          message:
            'line 2 is not valid JSON (a session cut off while writing leaves one such line); it was skipped.',
        },
      },
      {
        kind: 'issue',
        issue: {
          line: 4,
          kind: 'not-an-event',
          text: '[1,2]',
          message: 'line 4 is not a session event ({ seq, type, ... }); it was skipped.',
        },
      },
      { kind: 'event', line: 5, event: { seq: 4, type: 'd' } },
    ])
  })

  it('a line longer than the cap is skipped without being held, across read chunks; the cap itself fits', async () => {
    const path = join(dir(), 'long.jsonl')
    const cap = 100_000
    const event = (n: number, length: number) => {
      const head = `{"seq":${n},"type":"x","pad":"`
      return `${head}${'p'.repeat(length - head.length - 2)}"}`
    }
    const exact = event(2, cap)
    const over = event(3, cap + 1)
    expect([exact.length, over.length]).toEqual([cap, cap + 1])
    writeFileSync(path, `${event(1, 50)}\n${exact}\n${over}\n${event(4, 50)}\n${'q'.repeat(300_000)}`)
    const read = await entries(path, { maxLineBytes: cap })
    expect(
      read.map((e) => (e.kind === 'event' ? [e.line, e.event.seq] : [e.issue.line, e.issue.kind])),
    ).toEqual([
      [1, 1],
      [2, 2],
      [3, 'too-long'],
      [4, 4],
      [5, 'too-long'],
    ])
    expect(read[2]).toEqual({
      kind: 'issue',
      issue: {
        line: 3,
        kind: 'too-long',
        text: '',
        message: 'line 3 is longer than 100000 bytes (maxLineBytes); it was skipped.',
      },
    })
  })

  it('a log of many MB is read as a stream: memory stays far below the file size', async () => {
    const path = join(dir(), 'big.jsonl')
    const file = await open(path, 'w')
    const pad = 'x'.repeat(400)
    const lines = 240_000
    const batch: string[] = []
    for (let i = 1; i <= lines; i++) {
      batch.push(`{"seq":${i},"type":"tool/result","callId":"c${i}","text":"${pad}"}\n`)
      if (batch.length === 5000) {
        await file.write(batch.join(''))
        batch.length = 0
      }
    }
    await file.close()
    const size = statSync(path).size // ~106 MB
    expect(size).toBeGreaterThan(100 * 2 ** 20)

    const used = () => {
      const m = process.memoryUsage()
      return m.heapUsed + m.arrayBuffers
    }
    const before = used()
    let peak = before
    let count = 0
    let last = 0
    for await (const e of readSessionEntries(path)) {
      if (e.kind !== 'event') throw new Error(`unexpected ${JSON.stringify(e)}`)
      count++
      last = e.event.seq
      if (count % 1000 === 0) peak = Math.max(peak, used())
    }
    expect([count, last]).toEqual([lines, lines])
    // Reading it whole would hold the file at least once (and every event). The stream holds a
    // read buffer and one line; the bound leaves room for garbage the collector has not reached.
    expect(peak - before).toBeLessThan(size / 3)
    rmSync(path)
  }, 60_000)

  it('missing file, a directory, a FIFO (never opened, so never blocks): clear errors', async () => {
    const d = dir()
    await expect(entries(join(d, 'nope.jsonl'))).rejects.toThrow(
      new SessionLogError(`session log ${join(d, 'nope.jsonl')} does not exist`),
    )
    mkdirSync(join(d, 'sub'))
    await expect(entries(join(d, 'sub'))).rejects.toThrow(
      `session log ${join(d, 'sub')} is not a regular file`,
    )
    const fifo = join(d, 'fifo')
    execFileSync('mkfifo', [fifo])
    await expect(entries(fifo)).rejects.toThrow(`session log ${fifo} is not a regular file`)
  })

  it('a file that is not a session log at all ends after maxBadLines, naming the file', async () => {
    const path = join(dir(), 'notes.txt')
    writeFileSync(path, 'just some text\n'.repeat(50))
    const seen: SessionLogEntry[] = []
    const read = async () => {
      for await (const e of readSessionEntries(path, { maxBadLines: 10 })) seen.push(e)
    }
    await expect(read()).rejects.toThrow(
      new SessionLogError(
        `session log ${path}: more than 10 lines are not session events; it is not a session log, or it is badly damaged.`,
      ),
    )
    expect(seen).toHaveLength(10)
  })

  it('invalid options are a clear error', async () => {
    const path = join(dir(), 'x.jsonl')
    writeFileSync(path, '')
    await expect(entries(path, { maxLineBytes: Number.NaN })).rejects.toThrow(
      new RangeError('maxLineBytes must be a whole number of at least 1; got NaN.'),
    )
  })

  it('property: every event line reads back and every bad line is reported, whatever the line lengths', async () => {
    const d = dir()
    const line = fc.oneof(
      fc.record({ kind: fc.constant('event' as const), pad: fc.nat({ max: 150_000 }) }),
      fc.record({ kind: fc.constant('bad' as const), text: fc.string({ minLength: 1, maxLength: 50 }) }),
    )
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 12 }), fc.boolean(), async (spec, finalNewline) => {
        const path = join(d, `p${run++}.jsonl`)
        const texts = spec.map((l, i) =>
          l.kind === 'event'
            ? JSON.stringify({ seq: i + 1, type: 't', pad: 'y'.repeat(l.pad) })
            : `#${l.text.replaceAll('\n', ' ')}`,
        )
        writeFileSync(path, texts.join('\n') + (finalNewline && texts.length > 0 ? '\n' : ''))
        const read = await entries(path)
        const expected = spec.map((l, i) =>
          l.kind === 'event'
            ? [i + 1, 'event']
            : [i + 1, finalNewline || i < spec.length - 1 ? 'not-json' : 'torn-tail'],
        )
        expect(
          read.map((e) => (e.kind === 'event' ? [e.line, 'event'] : [e.issue.line, e.issue.kind])),
        ).toEqual(expected)
      }),
      { numRuns: 40 },
    )
  })
})
