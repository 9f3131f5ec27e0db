import { applyPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_DIFF_CHARS, MAX_EDIT_DISTANCE } from '../src/fs/diff.js'
import { unifiedDiff } from '../src/index.js'

// The diff card's text (issue 14 §4: jsdiff instead of a hand-written Myers). It never reaches the
// model; the card shows it, and a person may apply it.

const terminated = (t: string) => (t === '' || t.endsWith('\n') ? t : `${t}\n`)
const lines = (n: number, f: (i: number) => string) =>
  `${Array.from({ length: n }, (_, i) => f(i)).join('\n')}\n`

describe('unifiedDiff', () => {
  it('is the patch that turns the old text into the new one, with exact +/- counts (property)', () => {
    const text = fc
      .array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 25 })
      .chain((ls) => fc.boolean().map((nl) => ls.join('\n') + (nl && ls.length > 0 ? '\n' : '')))
    fc.assert(
      fc.property(text, text, (before, after) => {
        const { diff, added, removed } = unifiedDiff('f', before, after)
        if (terminated(before) === terminated(after)) {
          expect({ diff, added, removed }).toEqual({ diff: '', added: 0, removed: 0 })
          return
        }
        expect(applyPatch(terminated(before), diff)).toBe(terminated(after))
        const body = diff.split('\n').filter((l) => !l.startsWith('--- ') && !l.startsWith('+++ '))
        expect([added, removed]).toEqual([
          body.filter((l) => l.startsWith('+')).length,
          body.filter((l) => l.startsWith('-')).length,
        ])
      }),
      { numRuns: 1500 },
    )
  })

  it('writes the card shape: headers, hunk ranges, 0 for an empty side, no end-of-file markers', () => {
    expect(unifiedDiff('a/b.txt', '', 'x\ny')).toEqual({
      diff: '--- a/a/b.txt\n+++ b/a/b.txt\n@@ -0,0 +1,2 @@\n+x\n+y',
      added: 2,
      removed: 0,
    })
    expect(unifiedDiff('f', 'x\ny\n', '')).toEqual({
      diff: '--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y',
      added: 0,
      removed: 2,
    })
    expect(unifiedDiff('f', 'a', 'a\n')).toEqual({ diff: '', added: 0, removed: 0 })
    expect(unifiedDiff('f', 'a\r\nb\r\n', 'a\r\nB\r\n').diff).toBe(
      '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r',
    )
  })

  it('line numbers count from the file start when the change is deep in a long file', () => {
    const before = lines(10_000, (i) => `l${i + 1}`)
    const after = before.replace('l5000\n', 'L5000\n')
    expect(unifiedDiff('f', before, after).diff).toBe(
      [
        '--- a/f',
        '+++ b/f',
        '@@ -4997,7 +4997,7 @@',
        ' l4997',
        ' l4998',
        ' l4999',
        '-l5000',
        '+L5000',
        ' l5001',
        ' l5002',
        ' l5003',
      ].join('\n'),
    )
  })

  it(`past ${MAX_EDIT_DISTANCE} differing lines the middle is one replaced block, still exact and applicable`, () => {
    const before = lines(2 * MAX_EDIT_DISTANCE, (i) => `old ${i}`)
    const after = `keep\n${lines(2 * MAX_EDIT_DISTANCE, (i) => `new ${i}`)}`
    const withHead = `keep\n${before}`
    const r = unifiedDiff('f', withHead, after)
    expect([r.added, r.removed]).toEqual([2 * MAX_EDIT_DISTANCE, 2 * MAX_EDIT_DISTANCE])
    expect(r.diff.split('\n').slice(0, 5)).toEqual([
      '--- a/f',
      '+++ b/f',
      `@@ -1,${2 * MAX_EDIT_DISTANCE + 1} +1,${2 * MAX_EDIT_DISTANCE + 1} @@`,
      ' keep',
      '-old 0',
    ])
    expect(applyPatch(withHead, r.diff)).toBe(after)
  })

  it(`the text is cut at ${MAX_DIFF_CHARS} characters and says so; the counts stay whole`, () => {
    const after = lines(40_000, (i) => `a fairly long added line number ${i}`)
    const r = unifiedDiff('f', '', after)
    expect(r.added).toBe(40_000)
    expect(r.diff.length).toBeLessThan(MAX_DIFF_CHARS + 200)
    expect(r.diff.endsWith(`\n[diff cut at ${MAX_DIFF_CHARS} characters]`)).toBe(true)
  })
})
