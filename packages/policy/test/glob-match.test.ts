import { compileGlob, compileGlobSet, GlobPatternError, globSource, parseRule } from '@toolgate/policy'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { legacyPolicyGlob } from './glob-legacy.js'
import { referenceMatch } from './glob-reference.js'

// The one glob matcher (issue 14 §4): the syntax table of the policy README, as examples; the
// matcher against an independent reference written from that table (property); and the proof that
// no pattern the old policy matcher accepted matches less now (property).

const matches = (pattern: string, path: string, options = {}) => compileGlob(pattern, options).test(path)

describe('glob syntax (the README table, as examples)', () => {
  test.each<[string, string, boolean]>([
    // `*` and `?` stay inside one segment
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['?.md', 'a.md', true],
    ['?.md', 'ab.md', false],
    ['a?b', 'a/b', false],
    // `**` as a whole segment spans segments, zero included
    ['**', '', true],
    ['**', 'a/b/c', true],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/a.ts', true],
    ['src/**', 'src', true],
    ['src/**', 'src/a/b', true],
    ['src/**', 'srcx', false],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/xb', false],
    // elsewhere `**` is `*`, and so is a longer run
    ['a**b', 'axxb', true],
    ['a**b', 'a/b', false],
    ['***/b', 'x/b', true],
    ['***/b', 'x/y/b', false],
    // classes: one character, never `/`
    ['[ab].txt', 'b.txt', true],
    ['[!a]*', 'b', true],
    ['[!a]*', 'a', false],
    ['[^a]*', 'a', false],
    ['x[!a]y', 'x/y', false],
    ['x[+-0]y', 'x/y', false],
    ['x[+-0]y', 'x.y', true],
    ['[]]', ']', true],
    ['[a-c]', 'b', true],
    ['[[:digit:]]x', '7x', true],
    ['[[:punct:]]', '/', false],
    ['[[:punct:]]', '!', true],
    ['[ab', '[ab', true],
    // braces: alternatives, nested, with `/` and `**`
    ['src/{a,x}.*', 'src/x.js', true],
    ['{src,test}/**/*.ts', 'test/a/b.ts', true],
    ['{a,b{c,d}}', 'bd', true],
    ['{a/b,c}', 'a/b', true],
    ['{**/x,y}', 'p/q/x', true],
    ['x{,y}', 'x', true],
    // escapes
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['\\{a\\}', '{a}', true],
    ['a\\[1]', 'a[1]', true],
    // dotfiles are not special
    ['*', '.env', true],
    ['**/.env*', 'config/.env.production', true],
    ['src/**', 'src/.hidden/x', true],
    // any character in a name, a newline included
    ['*', 'line\nbreak', true],
    // case: exact unless folded
    ['.git/config', '.GIT/config', false],
  ])('%j against %j: %s', (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected)
  })

  test('case folding is an option (the protected-path table uses it)', () => {
    expect(matches('**/.git/config', 'x/.GIT/Config', { caseInsensitive: true })).toBe(true)
    expect(matches('**/.git/config', 'x/.GIT/Config')).toBe(false)
  })

  test.each<[string, string]>([
    ['{a,b', "unclosed '{' (write '\\{' for a literal brace)"],
    ['a}', "unexpected '}' (write '\\}' for a literal brace)"],
    ['[z-a]', "the class range 'z-a' is backwards"],
    [
      '[/]',
      "a character class here matches only '/', which a class never matches (it stands for one character of a name)",
    ],
    [
      '[[:alfa:]]',
      "'[:alfa:]' is not a character class name (use one of alnum, alpha, ascii, blank, cntrl, digit, graph, lower, print, punct, space, upper, word, xdigit)",
    ],
    ['a'.repeat(4097), 'the pattern is 4097 characters long, over the limit of 4096'],
  ])('%j is refused: %s', (pattern, message) => {
    expect(() => compileGlob(pattern)).toThrow(new GlobPatternError(message))
  })

  test('a permission rule reports a malformed pattern as its problem', () => {
    expect(parseRule('read(src/{a,b)')).toEqual({
      ok: false,
      problem: "unclosed '{' (write '\\{' for a literal brace)",
    })
  })
})

// Small alphabets so that matches are frequent; pieces cover every construct of the table.
const pieces = [
  '*',
  '**',
  '**/',
  '/**',
  '?',
  'a',
  'b',
  '.',
  '/',
  '[ab]',
  '[!a]',
  '\\*',
  '{a,b}',
  '{a/b,*}',
  '{.a,b{a,}}',
]
const pathChars = ['a', 'b', '.', '/', '*']

describe('the matcher agrees with a reference written from the syntax table (property)', () => {
  test('compileGlob(p).test(x) === referenceMatch(p, x)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 6 }),
        fc.array(fc.constantFrom(...pathChars), { maxLength: 10 }),
        (ps, xs) => {
          const pattern = ps.join('')
          const path = xs.join('')
          expect([pattern, path, matches(pattern, path)]).toEqual([
            pattern,
            path,
            referenceMatch(pattern, path),
          ])
        },
      ),
      { numRuns: 3000 },
    )
  })

  test('RE2 and JavaScript read the translation alike (the source is portable)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces, '[[:punct:]]', '[+-0]'), { maxLength: 6 }),
        fc.array(fc.constantFrom(...pathChars, '+', '!'), { maxLength: 10 }),
        (ps, xs) => {
          const pattern = ps.join('')
          const path = xs.join('')
          expect(matches(pattern, path)).toBe(new RegExp(`^(?:${globSource(pattern)})$`, 's').test(path))
        },
      ),
      { numRuns: 2000 },
    )
  })
})

describe('a glob set answers "does any match" like testing each (property)', () => {
  test('compileGlobSet(ps).test(x) === ps.some((p) => compileGlob(p).test(x)), folded or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...pieces, 'A'), { maxLength: 4 }), { maxLength: 4 }),
        fc.array(fc.constantFrom(...pathChars, 'A'), { maxLength: 10 }),
        fc.boolean(),
        (pss, xs, caseInsensitive) => {
          const patterns = pss.map((ps) => ps.join(''))
          const path = xs.join('')
          const each = patterns.some((p) => compileGlob(p, { caseInsensitive }).test(path))
          expect(compileGlobSet(patterns, { caseInsensitive }).test(path)).toBe(each)
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('no pattern matches less than under the old policy matcher (security, property)', () => {
  // The old matcher's grammar: `*`, `?`, `**` segments, `{a,b}` inside a segment, literals. It had
  // no classes and no escapes (`[` and `\` were literals); those now mean something (README).
  const oldPieces = ['*', '?', '**', 'a', '.', '/', '{a,.git}', '{,b}', '.git', 'hooks']
  const oldPathChars = ['a', 'b', '.', '/', '.git', 'hooks']

  test('legacy(p).test(x) implies compileGlob(p).test(x), and likewise folded', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...oldPieces), { maxLength: 7 }),
        fc.array(fc.constantFrom(...oldPathChars), { maxLength: 8 }),
        (ps, xs) => {
          const pattern = ps.join('')
          const path = xs.join('')
          let legacy: RegExp
          try {
            legacy = legacyPolicyGlob(pattern)
          } catch {
            return // the old matcher refused it; nothing to keep
          }
          if (!legacy.test(path)) return
          expect([pattern, path, matches(pattern, path)]).toEqual([pattern, path, true])
          expect(matches(pattern, path, { caseInsensitive: true })).toBe(true)
        },
      ),
      { numRuns: 3000 },
    )
  })

  test('the default protected patterns: every path the old matcher caught is still caught', async () => {
    const { PROTECTED_PATHS } = await import('@toolgate/policy')
    const paths = [
      '/w/.git/config',
      '/w/.git/hooks',
      '/w/.git/hooks/pre-commit',
      '/w/sub/.git/modules/m/hooks/post-checkout',
      '/w/.git/worktrees/x/config.worktree',
      '/w/.git/modules/m/commondir',
      '/w/.git/info/exclude',
      '/w/.toolgate/settings.json',
      '/w/.bashrc',
      '/w/.env',
      '/w/a/.env.local',
      '/w/.env.example',
      '/w/.husky/pre-commit',
      '/w/.vscode/tasks.json',
      'x/.ssh',
      'x/.ssh/id_rsa',
      '.ssh/id_rsa',
      '.aws/credentials',
      '.gitconfig',
      '.config/git/config',
    ]
    for (const entry of PROTECTED_PATHS) {
      const pattern = entry.pattern.startsWith('~/') ? entry.pattern.slice(2) : entry.pattern
      const legacy = legacyPolicyGlob(pattern)
      const now = compileGlob(pattern, { caseInsensitive: true })
      for (const path of paths)
        if (legacy.test(path)) expect([pattern, path, now.test(path)]).toEqual([pattern, path, true])
    }
  })
})
