import { classifyCommand, initShellParser } from '@toolgate/policy'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { scanSedScript } from '../src/shell/sed.js'
import { type Fixture, makeFixture, runBash } from './bash-proof.js'
import { bash, engineFor, makeSandbox } from './permissions-helpers.js'

// The sed script scanner against GNU sed itself (issue 12 §2): scripts built from the pieces where
// sed's reading is subtle (labels ending at `;` or a blank, `v`, brackets in regexes, text and file
// arguments to the end of the line, `s` flags). Whenever the scanner says a script only prints,
// GNU sed run on an input whose lines are `pwned` must create no file and run no program.

const PIECES = [
  'p',
  'd',
  'n',
  'N',
  '=',
  'l 5',
  'q',
  ':a',
  ': b',
  'b a',
  'ba',
  't',
  'T x',
  'v',
  'v 4.2',
  'w PWN',
  'W PWN2',
  'w /dev/stdout',
  'e',
  'e pwned',
  'r notes.txt',
  'R notes.txt',
  's/a/b/',
  's/a/b/g',
  's/x/y/w PWN3',
  's/x/y/e',
  's/[/]/x/w PWN4',
  's,a,b,',
  's/a/[/',
  'y/ab/cd/',
  'a text',
  'i\\',
  'c x;w PWN5',
  '{',
  '}',
  '#c',
  '1',
  '$',
  '/pwned/',
  '/[/]/',
  '\\,p,',
  '1,2',
  '!',
  'z',
  'F',
  'x',
  'h',
  'G',
]
const SEPARATORS = [';', '\n', ' ', '']

const script = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.map(([p, s]) => p + s).join(''))

let f: Fixture
beforeAll(async () => {
  await initShellParser()
  f = makeFixture({ minimal: true })
  f.write('input.txt', 'pwned\npwned\n')
})
afterAll(() => f.cleanup())

describe('sed scripts the scanner calls printing-only are printing-only in GNU sed', () => {
  test('property (real GNU sed, bubblewrap when available)', () => {
    let printing = 0
    fc.assert(
      fc.property(script, (s) => {
        const scan = scanSedScript(s)
        if (scan.kind !== 'prints') return
        printing++
        const quoted = `'${s.replaceAll("'", `'\\''`)}'`
        const r = runBash(f, `sed -n ${quoted} input.txt > /dev/null`)
        expect({ script: s, changed: r.changed, ran: r.ran }).toEqual({ script: s, changed: [], ran: [] })
      }),
      { numRuns: Number(process.env.SED_RUNS ?? 250), seed: 1212 },
    )
    // The property proves something only if many scripts were called printing-only.
    expect(printing).toBeGreaterThan(30)
  }, 120_000)

  test.each([
    [':a;w PWN', { kind: 'writes', why: 'command w writes PWN', files: ['PWN'] }],
    [':a w PWN', { kind: 'writes', why: 'command w writes PWN', files: ['PWN'] }],
    ['v;w PWN', { kind: 'writes', why: 'command w writes PWN', files: ['PWN'] }],
    ['b end;w PWN', { kind: 'writes', why: 'command w writes PWN', files: ['PWN'] }],
    ['s/[/]/x/w PWN', { kind: 'writes', why: 'command w writes PWN', files: ['PWN'] }],
    ['/[/]/w PWN', { kind: 'writes', why: 'command w writes PWN', files: ['PWN'] }],
    ['a x;w PWN', { kind: 'prints', reads: [] }],
    ['r x;w y', { kind: 'prints', reads: ['x;w y'] }],
    ['1e id', { kind: 'runs', why: 'command e runs a shell command' }],
    ['s/a/b/e', { kind: 'runs', why: 'flag e runs the pattern space as a command' }],
    ['w /dev/stdout', { kind: 'prints', reads: [] }],
    ['k', { kind: 'unsure', why: "command 'k' is not analysed" }],
  ])('%j', (s, expected) => {
    expect(scanSedScript(s)).toEqual(expected)
  })

  test('sed r reads a file: read-only, and the protected-path check sees the read', () => {
    expect(classifyCommand("sed 'r ~/.ssh/id_rsa' notes.txt").readOnly).toBe(true)
    const sb = makeSandbox()
    try {
      sb.write('home/.ssh/id_rsa', 'KEY')
      expect(engineFor(sb).decide(bash("sed 'r ~/.ssh/id_rsa' notes.txt"))).toMatchObject({
        kind: 'deny',
        step: 'protected-path',
        protectedPattern: '~/.ssh/**',
      })
    } finally {
      sb.cleanup()
    }
  })
})
