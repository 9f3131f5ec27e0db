import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script without type declarations
import { PRELUDE_MODULE, PRELUDE_OUTPUT, preludeModule, preludeSource } from '../scripts/prelude.mjs'
import { PRELUDE_SOURCE } from '../src/prelude.js'

const typescript = readFileSync(PRELUDE_MODULE, 'utf8')

describe('the embedded prelude', () => {
  it('is what scripts/prelude.mjs builds from prelude/prelude.ts (run `npm run build:prelude` after editing it)', () => {
    expect(readFileSync(PRELUDE_OUTPUT, 'utf8')).toBe(preludeModule(typescript))
    expect(PRELUDE_SOURCE).toBe(preludeSource(typescript))
  })

  it('is one parenthesized function expression without types, comments or indentation', () => {
    expect(
      PRELUDE_SOURCE.startsWith(
        '(function prelude(hostLog, hostDone, toolNamesJson, maxArgsChars, subCallLimitsJson) {\n',
      ),
    ).toBe(true)
    expect(PRELUDE_SOURCE.endsWith('\n})')).toBe(true)
    expect(PRELUDE_SOURCE.split('\n')[1]).toBe("'use strict';")
    for (const line of PRELUDE_SOURCE.split('\n')) {
      expect(line).toBe(line.trim())
      expect(line.startsWith('//')).toBe(false)
    }
    // no TypeScript survives: the text parses as JavaScript
    expect(() => new Function(`return ${PRELUDE_SOURCE}`)).not.toThrow()
  })

  it('refuses a prelude module with anything besides the one function', () => {
    expect(() => preludeSource(`${typescript}\nexport const extra = 1\n`)).toThrow(/exactly one/)
    expect(() => preludeSource(`const before = 1\n${typescript}`)).toThrow(/exactly one/)
  })
})
