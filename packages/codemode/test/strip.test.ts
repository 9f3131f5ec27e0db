import { describe, expect, it } from 'vitest'
import { formatStripIssues, MAX_SYNTAX_DEPTH, stripTypes } from '../src/index.js'

function issues(code: string): string {
  const r = stripTypes(code)
  if (r.ok) throw new Error(`expected a failure, got ${r.js}`)
  return formatStripIssues(r.issues)
}

describe('stripTypes', () => {
  it('erases types and keeps positions (wrapped as an async arrow on the same first line)', () => {
    const r = stripTypes('const x: number = 1\ntype T = { a: string }\nreturn x as number')
    expect(r).toEqual({
      ok: true,
      js: `(async () => {const x         = 1\n;${' '.repeat(21)}\nreturn x;${' '.repeat(9)}\n})`,
    })
  })

  it('allows top-level await and return, generics, satisfies, non-null', () => {
    const r = stripTypes(
      'function f<T>(a: T): T { return a }\nconst v = await f<number>(1)!\nreturn ({ v } satisfies { v: number })',
    )
    expect(r.ok).toBe(true)
  })

  it.each([
    ['enum E { A }', 'program.ts:1:1: `enum` is not erasable TypeScript.'],
    [
      'namespace N { export const a = 1 }',
      'program.ts:1:1: `namespace`/`module` with values is not erasable',
    ],
    ['class A {\n  constructor(private x: number) {}\n}', 'program.ts:2:15: Parameter properties'],
    ['import fs = require("fs")', 'program.ts:1:1: `import x = require(...)` is not available'],
    ['import fs from "fs"', 'program.ts:1:1: `import`/`export` are not available'],
    [
      'let y = <string>x',
      'program.ts:1:9: Angle-bracket type assertions (<T>value) are not supported. Write `value as T`.',
    ],
    ['@dec class A {}', 'program.ts:1:1: Decorators are not supported in run_code.'],
    ['let x = ;', 'program.ts:1:9: Expression expected.'],
    ['}); (async () => {', 'program.ts:1:1: The program closes its own function body early'],
  ])('rejects %j with line:column and what to write instead', (code, expected) => {
    expect(issues(code)).toContain(expected)
  })

  it('lists every non-erasable construct, in source order', () => {
    expect(
      issues('enum A { X }\nconst a = 1\nenum B { Y }')
        .split('\n')
        .map((l) => l.slice(0, 13)),
    ).toEqual(['program.ts:1:', 'program.ts:3:'])
  })

  it('rejects nesting deeper than the limit (QuickJS would overflow the host stack)', () => {
    const deep = `return ${'['.repeat(MAX_SYNTAX_DEPTH + 5)}${']'.repeat(MAX_SYNTAX_DEPTH + 5)}`
    expect(issues(deep)).toContain(`more than ${MAX_SYNTAX_DEPTH} levels deep`)
    const ok = `return ${'['.repeat(MAX_SYNTAX_DEPTH - 5)}${']'.repeat(MAX_SYNTAX_DEPTH - 5)}`
    expect(stripTypes(ok).ok).toBe(true)
  })
})
