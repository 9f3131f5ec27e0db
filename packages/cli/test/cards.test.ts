import { describe, expect, test } from 'vitest'
import { type ResultLike, renderCallCard, renderResultCard } from '../src/render/cards.js'
import { colorEnabled, createStyle, stripAnsi } from '../src/render/colors.js'

const plain = createStyle(false)
const ok = (text: string, durationMs = 12): ResultLike => ({
  isError: false,
  content: [{ type: 'text', text }],
  timing: { durationMs },
})

describe('call cards', () => {
  test('generic, terminal, diff and the argument fallback', () => {
    expect(
      renderCallCard(
        {
          name: 'read',
          args: { path: 'a.ts' },
          view: { card: 'generic', title: 'Read a.ts', locations: [{ path: 'a.ts' }] },
        },
        plain,
      ),
    ).toBe('▸ read Read a.ts\n')
    expect(
      renderCallCard(
        {
          name: 'grep',
          args: {},
          view: {
            card: 'generic',
            title: 'Grep TODO',
            locations: [{ path: 'a.ts', line: 3 }, { path: 'b.ts' }],
          },
        },
        plain,
      ),
    ).toBe('▸ grep Grep TODO (a.ts:3, b.ts)\n')
    expect(
      renderCallCard(
        { name: 'bash', args: {}, view: { card: 'terminal', command: 'pnpm lint', description: 'Lint' } },
        plain,
      ),
    ).toBe('▸ bash $ pnpm lint\n  Lint\n')
    expect(renderCallCard({ name: 'edit', args: {}, view: { card: 'diff', path: 'README.md' } }, plain)).toBe(
      '▸ edit README.md\n',
    )
    expect(renderCallCard({ name: 'mcp__x', args: { q: 'hi', n: 2 } }, plain)).toBe(
      '▸ mcp__x {"q":"hi","n":2}\n',
    )
    expect(renderCallCard({ name: 'x', args: { raw: '{"broken' } }, plain)).toBe('▸ x {"broken\n')
  })
})

describe('result cards (NO_COLOR: exact text)', () => {
  test('read card: numbered lines, range, cut after maxLines', () => {
    const lines = ['{', '  "name": "demo"', '}']
    expect(
      renderResultCard(
        {
          name: 'read',
          args: {},
          result: ok(''),
          resultView: { card: 'read', path: 'package.json', startLine: 1, lines, totalLines: 3 },
        },
        plain,
      ),
    ).toBe('✓ read package.json · lines 1-3 of 3  12ms\n  │ 1  {\n  │ 2    "name": "demo"\n  │ 3  }\n')
    const many = Array.from({ length: 12 }, (_, i) => `line ${i + 9}`)
    expect(
      renderResultCard(
        {
          name: 'read',
          args: {},
          result: ok('', 3),
          resultView: { card: 'read', path: 'a', startLine: 9, lines: many, totalLines: 40 },
        },
        plain,
        { maxLines: 2 },
      ),
    ).toBe('✓ read a · lines 9-20 of 40  3ms\n  │  9  line 9\n  │ 10  line 10\n  │ … 10 more lines\n')
  })

  test('terminal card: exit code and the tail of the output', () => {
    const view = { card: 'terminal' as const, command: 'pnpm lint', output: 'a\nb\nc\n', exitCode: 1 }
    expect(
      renderResultCard({ name: 'bash', args: {}, result: ok('', 1500), resultView: view }, plain, {
        maxLines: 2,
      }),
    ).toBe('✓ bash $ pnpm lint · exit 1  1.5s\n  │ … 1 earlier lines\n  │ b\n  │ c\n')
    expect(
      renderResultCard(
        {
          name: 'bash',
          args: {},
          result: ok(''),
          resultView: { card: 'terminal', command: 'sleep 9', output: '', exitCode: null, signal: 'SIGTERM' },
        },
        plain,
      ),
    ).toBe('✓ bash $ sleep 9 · killed by SIGTERM  12ms\n  │ (no output)\n')
  })

  test('diff card: counts, hunks, file headers dropped; coloured only when enabled', () => {
    const diff = '--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n # demo\n-old\n+new\n'
    const input = {
      name: 'edit',
      args: {},
      result: ok(''),
      resultView: { card: 'diff' as const, path: 'README.md', diff, added: 1, removed: 1 },
      parallel: false,
    }
    expect(renderResultCard(input, plain)).toBe(
      '✓ edit README.md · +1 -1  12ms\n  │ @@ -1,2 +1,2 @@\n  │  # demo\n  │ -old\n  │ +new\n',
    )
    const coloured = renderResultCard(input, createStyle(true))
    expect(coloured).toContain('\x1b[32m+new\x1b[39m')
    expect(coloured).toContain('\x1b[31m-old\x1b[39m')
    expect(coloured).toContain('\x1b[36m@@ -1,2 +1,2 @@\x1b[39m')
    expect(stripAnsi(coloured)).toBe(renderResultCard(input, plain))
  })

  test('search card: files and matches; paths mode', () => {
    const view = {
      card: 'search' as const,
      query: '\\bvar\\s',
      mode: 'matches' as const,
      files: [
        { path: 'src/util.js', matches: [{ line: 2, text: '  var x = 1' }] },
        { path: 'b.js', matches: [{ line: 7, text: 'var y' }] },
      ],
    }
    expect(
      renderResultCard({ name: 'grep', args: {}, result: ok(''), resultView: view, parallel: true }, plain),
    ).toBe(
      '✓ grep "\\bvar\\s" · 2 files, 2 matches ‖ parallel  12ms\n  │ src/util.js\n  │   2:   var x = 1\n  │ b.js\n  │   7: var y\n',
    )
    expect(
      renderResultCard(
        {
          name: 'glob',
          args: {},
          result: ok(''),
          resultView: { card: 'search', query: '*.ts', mode: 'paths', files: [{ path: 'a.ts' }] },
        },
        plain,
      ),
    ).toBe('✓ glob "*.ts" · 1 file  12ms\n  │ a.ts\n')
  })

  test('generic and web cards; fallback to model text when the tool has no result view', () => {
    expect(
      renderResultCard(
        {
          name: 'todo_write',
          args: {},
          result: ok(''),
          resultView: { card: 'generic', title: 'Todos', summary: '2 open\n- a\n- b' },
        },
        plain,
      ),
    ).toBe('✓ todo_write Todos · 2 open  12ms\n  │ - a\n  │ - b\n')
    expect(
      renderResultCard(
        {
          name: 'fetch',
          args: {},
          result: ok(''),
          resultView: { card: 'web', kind: 'fetch', url: 'https://x.dev' },
        },
        plain,
      ),
    ).toBe('✓ fetch fetch https://x.dev  12ms\n')
    expect(
      renderResultCard({ name: 'mcp__t', args: { a: 1 }, result: ok('one\ntwo\nthree\nfour\nfive') }, plain),
    ).toBe('✓ mcp__t {"a":1}  12ms\n  │ one\n  │ two\n  │ three\n  │ four\n  │ … 1 more lines\n')
  })

  test('error card: the code and the whole reason, wrapped not cut', () => {
    const reason =
      'Permission denied: this write call touches .git/hooks/pre-commit, a protected path. Do not retry.'
    const result: ResultLike = {
      isError: true,
      content: [{ type: 'text', text: reason }],
      error: { kind: 'permission_denied', code: 'PERMISSION_DENIED', message: reason },
      timing: { durationMs: 0 },
    }
    expect(
      renderResultCard(
        { name: 'write', args: {}, view: { card: 'diff', path: '.git/hooks/pre-commit' }, result },
        plain,
        { width: 50 },
      ),
    ).toBe(
      [
        '✗ write .git/hooks/pre-commit · PERMISSION_DENIED…',
        '  │ Permission denied: this write call touches',
        '  │ .git/hooks/pre-commit, a protected path. Do',
        '  │ not retry.',
        '',
      ].join('\n'),
    )
  })
})

describe('colour switch', () => {
  const tty = { isTTY: true, write: () => true }
  const pipe = { isTTY: false, write: () => true }
  test('NO_COLOR, TTY, FORCE_COLOR', () => {
    expect(colorEnabled(tty, {})).toBe(true)
    expect(colorEnabled(tty, { NO_COLOR: '1' })).toBe(false)
    expect(colorEnabled(tty, { NO_COLOR: '' })).toBe(true)
    expect(colorEnabled(tty, { TERM: 'dumb' })).toBe(false)
    expect(colorEnabled(pipe, {})).toBe(false)
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true)
    expect(colorEnabled(pipe, { FORCE_COLOR: '0' })).toBe(false)
  })
})
