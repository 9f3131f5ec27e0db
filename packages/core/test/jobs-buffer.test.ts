import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OutputBuffer, utf8Length } from '../src/jobs/index.js'

const encoder = new TextEncoder()

describe('utf8Length', () => {
  it('matches TextEncoder for any UTF-16 string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 64 }), (units) => {
        const s = String.fromCharCode(...units)
        expect(utf8Length(s)).toBe(encoder.encode(s).length)
      }),
      { numRuns: 2000 },
    )
  })

  it('counts 1, 2, 3 and 4 byte characters', () => {
    expect([utf8Length('a'), utf8Length('é'), utf8Length('€'), utf8Length('😀')]).toEqual([1, 2, 3, 4])
  })
})

describe('OutputBuffer', () => {
  it('keeps everything up to the limit', () => {
    const b = new OutputBuffer(10)
    b.write('abcdef')
    b.write('ghij')
    expect({ text: b.text(), bytes: b.bytes, dropped: b.droppedBytes }).toEqual({
      text: 'abcdefghij',
      bytes: 10,
      dropped: 0,
    })
  })

  it('drops the oldest bytes, splitting the oldest chunk when needed, and counts them', () => {
    const b = new OutputBuffer(10)
    b.write('abcdef')
    b.write('ghij')
    b.write('kl')
    expect({ text: b.text(), bytes: b.bytes, dropped: b.droppedBytes }).toEqual({
      text: 'cdefghijkl',
      bytes: 10,
      dropped: 2,
    })
    b.write('mnopqr')
    b.write('s')
    expect({ text: b.text(), bytes: b.bytes, dropped: b.droppedBytes }).toEqual({
      text: 'jklmnopqrs',
      bytes: 10,
      dropped: 9,
    })
  })

  it('keeps only the tail of a single chunk larger than the limit', () => {
    const b = new OutputBuffer(10)
    b.write('xyz')
    b.write('0123456789ABCDEFGHIJKLMNO') // 25 bytes
    expect({ text: b.text(), bytes: b.bytes, dropped: b.droppedBytes }).toEqual({
      text: 'FGHIJKLMNO',
      bytes: 10,
      dropped: 18,
    })
  })

  it('never splits a character: drops whole code points and counts their real bytes', () => {
    const b = new OutputBuffer(5)
    b.write('ééé') // 6 bytes, 1 over: the first é (2 bytes) goes
    expect({ text: b.text(), bytes: b.bytes, dropped: b.droppedBytes }).toEqual({
      text: 'éé',
      bytes: 4,
      dropped: 2,
    })
    b.write('😀') // 8 bytes, 3 over: both é go
    expect({ text: b.text(), bytes: b.bytes, dropped: b.droppedBytes }).toEqual({
      text: '😀',
      bytes: 4,
      dropped: 6,
    })
  })

  it('with limit 0 keeps nothing and counts everything', () => {
    const b = new OutputBuffer(0)
    b.write('hello')
    b.write('')
    expect({ text: b.text(), bytes: b.bytes, dropped: b.droppedBytes }).toEqual({
      text: '',
      bytes: 0,
      dropped: 5,
    })
  })

  it('rejects a negative or fractional limit', () => {
    expect(() => new OutputBuffer(-1)).toThrow('maxOutputBytes must be a non-negative integer, got -1')
    expect(() => new OutputBuffer(1.5)).toThrow('maxOutputBytes must be a non-negative integer, got 1.5')
  })

  it('property: kept bytes <= limit, kept + dropped = written, kept text is a suffix of all output', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.string({ unit: 'binary', maxLength: 30 }), { maxLength: 40 }),
        (limit, chunks) => {
          const b = new OutputBuffer(limit)
          let all = ''
          for (const c of chunks) {
            b.write(c)
            all += c
            const text = b.text()
            expect(b.bytes).toBeLessThanOrEqual(limit)
            expect(b.bytes).toBe(encoder.encode(text).length)
            expect(b.bytes + b.droppedBytes).toBe(encoder.encode(all).length)
            expect(all.endsWith(text)).toBe(true)
            // Dropping stops within one code point of the limit (a character is never split).
            if (b.droppedBytes > 0) expect(limit - b.bytes).toBeLessThanOrEqual(3)
          }
        },
      ),
      { numRuns: 500 },
    )
  })

  it('stays fast and compact under many small writes', () => {
    const b = new OutputBuffer(1000)
    for (let i = 0; i < 200_000; i++) b.write('line\n')
    expect(b.bytes).toBe(1000)
    expect(b.droppedBytes).toBe(999_000)
    expect(b.text()).toBe('line\n'.repeat(200))
  })
})
