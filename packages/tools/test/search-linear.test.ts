import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { createRuntime, type JsonValue } from '@toolgate/core'
import { compileGlob, globSource, parseRule } from '@toolgate/policy'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { builtinTools } from '../src/index.js'
import { fileGlob } from '../src/search/glob-pattern.js'
import { matchWorkerStats } from '../src/search/match-worker.js'
import { SLICE_BUDGET } from '../src/search/pacer.js'
import { harness, tempDir, text } from './helpers.js'

// Glob and grep patterns match in linear time, and no search holds the agent's thread (issue 13
// §3). The bounds below are generous correctness bounds, not measurements: the old backtracking
// regexes took minutes to years on the same inputs (`*a*a*a*a*a*a*a*a*a*a*.md`: 90 s on a 60
// character name; the bench measures speed).

const GENEROUS_MS = 1000

function elapsed(fn: () => void): number {
  const start = performance.now()
  fn()
  return performance.now() - start
}

describe('glob matcher (linear time)', () => {
  it('a 24-character pattern with ten stars against long names: no match, at once', () => {
    const m = compileGlob('*a*a*a*a*a*a*a*a*a*a*.md')
    for (const n of [60, 1000, 10_000]) {
      const name = `${'a'.repeat(n)}.txt`
      expect(elapsed(() => expect(m.test(name)).toBe(false))).toBeLessThan(GENEROUS_MS)
      expect(m.test(`${'a'.repeat(n)}.md`)).toBe(true)
    }
  })

  it('nested **/ patterns against deep paths', () => {
    const m = compileGlob('**/a/**/a/**/a/**/a/**/a/**/a/**/b.ts')
    const deep = `${'a/'.repeat(500)}c.ts`
    expect(elapsed(() => expect(m.test(deep)).toBe(false))).toBeLessThan(GENEROUS_MS)
    expect(m.test(`${'a/'.repeat(500)}b.ts`)).toBe(true)
  })

  it('means what the glob syntax says (examples)', () => {
    const cases: [string, string, boolean][] = [
      ['**/*.ts', 'a.ts', true],
      ['**/*.ts', 'src/deep/a.ts', true],
      ['*.ts', 'src/a.ts', false],
      ['src/**', 'src/a/b', true],
      ['src/{a,x}.*', 'src/x.js', true],
      ['{src,test}/**/*.ts', 'test/a/b.ts', true],
      ['[!a]*', 'b', true],
      ['[!a]*', 'a', false],
      ['?.md', 'ab.md', false],
      ['a\\*b', 'a*b', true],
      ['a\\*b', 'axb', false],
      ['.env*', '.env.local', true],
      ['*', 'line\nbreak', true],
    ]
    for (const [pattern, path, expected] of cases)
      expect([pattern, path, compileGlob(pattern).test(path)]).toEqual([pattern, path, expected])
  })

  it('agrees with the same translation run by JavaScript RegExp (property, small inputs)', () => {
    const piece = fc.constantFrom('*', '**/', '?', 'a', 'b', '/', '.', '{a,b}', '[ab]', '[!a]', '\\*')
    const pathChar = fc.constantFrom('a', 'b', '/', '.', '*')
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 6 }),
        fc.array(pathChar, { maxLength: 12 }),
        (pieces, chars) => {
          const pattern = pieces.join('')
          if (pattern === '') return
          const path = chars.join('')
          const js = new RegExp(`^(?:${globSource(pattern)})$`, 's')
          expect(compileGlob(pattern).test(path)).toBe(js.test(path))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('the search tools and the permission rules read a pattern alike (property, issue 14 §4)', () => {
    // Tools' `-g`-style glob (with a `/`: matched against the path below the root) and a
    // `read(...)` rule over the same workspace-relative path: one matcher, one answer.
    const piece = fc.constantFrom('*', '**', '**/', '?', 'a', 'b', '/', '.', '{a,b/c}', '[ab]', '[!a]', '\\*')
    const pathChar = fc.constantFrom('a', 'b', 'c', '/', '.')
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 6 }),
        fc.array(pathChar, { minLength: 1, maxLength: 10 }),
        (pieces, chars) => {
          const pattern = `a/${pieces.join('')}`
          // A trailing `/` is ripgrep's "directories only", which the glob tools drop; rules keep it.
          fc.pre(!pattern.endsWith('/'))
          fc.pre(!pattern.split('/').includes('..')) // rules refuse `..` (write an absolute path)
          const path = chars.join('')
          const rule = parseRule(`read(${pattern})`)
          if (!rule.ok || rule.matcher.kind !== 'path') throw new Error(`rule refused: ${pattern}`)
          const glob = fileGlob(pattern)
          expect([pattern, path, glob.matcher.test(glob.subject(path, path))]).toEqual([
            pattern,
            path,
            rule.matcher.pattern.test(path),
          ])
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('the glob tool answers the catastrophic pattern over a real long file name', async () => {
    const h = harness()
    writeFileSync(join(h.root, `${'a'.repeat(200)}.txt`), '')
    writeFileSync(join(h.root, 'a-a-a-a-a-a-a-a-a-a.md'), '')
    const r = await h.call('glob', { pattern: '*a*a*a*a*a*a*a*a*a*a*.md' })
    expect(text(r)).toBe('a-a-a-a-a-a-a-a-a-a.md')
  })

  it('a pattern over the length limit is a clear error', async () => {
    const h = harness()
    const r = await h.call('glob', { pattern: 'a'.repeat(5000) })
    expect(r.error?.message).toBe(
      `Invalid glob pattern ${JSON.stringify('a'.repeat(5000))}: the pattern is 5000 characters long, over the limit of 4096. Correct the pattern and call glob again.`,
    )
  })
})

describe('grep JS backend (linear time, never holding the thread)', () => {
  it('(a+)+$ against a long line: no match, at once', async () => {
    const h = harness({ grepBackend: 'js' })
    writeFileSync(join(h.root, 'long.txt'), `${'a'.repeat(50_000)}b\nshort aaa\n`)
    const start = performance.now()
    const r = await h.call('grep', { pattern: '(a+)+$', output_mode: 'content' })
    expect(performance.now() - start).toBeLessThan(5 * GENEROUS_MS)
    expect(text(r)).toBe('long.txt:2:short aaa')
  })

  it('uses RE2 syntax like ripgrep: inline flags, and look-around refused with a next step', async () => {
    const h = harness({ grepBackend: 'js' })
    writeFileSync(join(h.root, 'a.txt'), 'Hello World\n')
    expect(text(await h.call('grep', { pattern: '(?i)hello world', output_mode: 'content' }))).toBe(
      'a.txt:1:Hello World',
    )
    const r = await h.call('grep', { pattern: 'Hello(?= World)' })
    expect(r.error?.message).toBe(
      'Invalid regular expression "Hello(?= World)": error parsing regexp: invalid or unsupported Perl syntax: `(?=`. Escape special characters (e.g. \\( \\. \\[) to search for them literally.',
    )
  })

  it('a pattern with counted repetitions is compiled and matched in the worker', async () => {
    const h = harness({ grepBackend: 'js' })
    writeFileSync(join(h.root, 'w.txt'), `short\n${'x'.repeat(1200)}\n`)
    const before = matchWorkerStats.started
    const r = await h.call('grep', { pattern: '[a-z]{1000}', output_mode: 'count' })
    expect(text(r)).toBe('w.txt:1\n[1 matching line in 1 file]')
    expect(matchWorkerStats.started).toBe(before + 1)
    const bad = await h.call('grep', { pattern: 'a{1001}' })
    expect(bad.error?.message).toBe(
      'Invalid regular expression "a{1001}": error parsing regexp: invalid repeat count: `{1001}`. Escape special characters (e.g. \\( \\. \\[) to search for them literally.',
    )
  })

  it('a line longer than one slice is tested in the worker; shorter ones on the thread', async () => {
    const h = harness({ grepBackend: 'js' })
    const huge = `${'z'.repeat(SLICE_BUDGET)}needle`
    writeFileSync(join(h.root, 'bundle.js'), `first needle\n${huge}\nlast\n`)
    const before = matchWorkerStats.started
    const r = await h.call('grep', { pattern: 'needle$', output_mode: 'count' })
    expect(text(r)).toBe('bundle.js:2\n[2 matching lines in 1 file]')
    expect(matchWorkerStats.started).toBe(before + 1)
  })

  it('the event loop keeps turning during a long in-thread search', async () => {
    const h = harness({ grepBackend: 'js' })
    writeFileSync(join(h.root, 'big.txt'), 'some ordinary line of text\n'.repeat(200_000))
    let turns = 0
    let running = true
    const ticker = (async () => {
      while (running) {
        await nextTurn()
        turns++
      }
    })()
    const r = await h.call('grep', { pattern: 'needle|haystack', output_mode: 'count' })
    running = false
    await ticker
    expect(text(r)).toBe('(no matches for needle|haystack in .)')
    // 5.4 MB x the program size is several slices of SLICE_BUDGET; each gives the loop a turn.
    expect(turns).toBeGreaterThan(3)
  })
})

describe('an abort ends a search promptly with its one result', () => {
  const aborted = (name: string) =>
    `This ${name} call was interrupted while running (the user cancelled); it may have partially completed. Check the current state before retrying.`

  function runtimeWith(root: string) {
    // A body that ignored its signal would hold the call for a minute: the test would time out.
    const runtime = createRuntime({ abortGraceMs: 60_000 })
    runtime.use(
      builtinTools({ root, sandbox: false, grepBackend: 'js', tempDir: tempDir('toolgate-session-') }),
    )
    return (name: string, args: JsonValue, signal: AbortSignal) =>
      runtime.execute({ callId: `abort-${name}`, name, arguments: args, signal })
  }

  it('glob and grep abort mid-walk', async () => {
    const root = tempDir()
    for (let d = 0; d < 40; d++) {
      mkdirSync(join(root, `d${d}`))
      for (let f = 0; f < 100; f++) writeFileSync(join(root, `d${d}`, `f${f}.txt`), 'text\n')
    }
    const call = runtimeWith(root)
    for (const [name, args] of [
      ['glob', { pattern: '**/*.txt' }],
      ['grep', { pattern: 'text' }],
    ] as const) {
      const controller = new AbortController()
      const pending = call(name, args, controller.signal)
      await nextTurn()
      controller.abort()
      const r = await pending
      expect(r.error?.message).toBe(aborted(name))
    }
  })

  it('grep aborts while the worker matches a huge line', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'huge.txt'), `${'ab'.repeat(20_000_000)}\n`)
    const call = runtimeWith(root)
    const controller = new AbortController()
    const before = matchWorkerStats.started
    const pending = call('grep', { pattern: '(?:[a-z]{2}){500}c' }, controller.signal)
    while (matchWorkerStats.started === before) await nextTurn()
    controller.abort()
    const r = await pending
    expect(r.error?.message).toBe(aborted('grep'))
  })
})
