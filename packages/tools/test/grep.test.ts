import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ripgrepAvailable } from '../src/index.js'
import { type Harness, harness, tempDir, text } from './helpers.js'

// Both backends must give the model the same text for the same workspace. Under CI ripgrep is
// installed (.ci installs it): a missing rg fails there instead of silently testing one backend.

const files: Record<string, string> = {
  'a.txt': 'needle one\nhay\nneedle two\n',
  'a/b.txt': 'hay\nneedle deep\n',
  'a.md': 'no match\n',
  'src/x.ts': 'export const needle = 1\r\nconst other = 2\r\n',
  'src/y.ts': 'function f() {}\n',
  '.hidden/h.txt': 'needle hidden\n',
  'node_modules/m/index.js': 'needle in deps\n',
  'long.txt': `needle ${'z'.repeat(1000)}\n`,
}

let root: string
let rg: Harness
let js: Harness
let hasRg = false

beforeAll(async () => {
  root = tempDir()
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  writeFileSync(join(root, 'bin.dat'), Buffer.from('needle\0binary'))
  hasRg = await ripgrepAvailable()
  if (!hasRg && process.env.CI === 'true')
    throw new Error('ripgrep (rg) is not installed; CI installs it (apt-get install -y ripgrep)')
  rg = harness({ root, grepBackend: 'ripgrep' })
  js = harness({ root, grepBackend: 'js' })
})

const cases: [string, Record<string, string>][] = [
  ['files_with_matches (default)', { pattern: 'needle' }],
  ['content', { pattern: 'needle', output_mode: 'content' }],
  ['count', { pattern: 'needle', output_mode: 'count' }],
  ['glob by name', { pattern: 'needle', glob: '*.ts', output_mode: 'content' }],
  ['glob with a path', { pattern: 'e', glob: 'a/*.txt' }],
  ['path to a directory', { pattern: 'needle', path: 'a', output_mode: 'content' }],
  ['path to a file', { pattern: 'needle', path: 'a.txt', output_mode: 'count' }],
  ['regex', { pattern: 'needle (one|deep)$', output_mode: 'content' }],
  ['case-insensitive', { pattern: '(?i)NEEDLE TWO', output_mode: 'content' }],
  ['no match', { pattern: 'absent-string' }],
  ['inside node_modules explicitly', { pattern: 'needle', path: 'node_modules' }],
]

describe('grep', () => {
  it.each(cases)('%s: both backends give the same output', async (_name, args) => {
    const fromJs = await js.call('grep', args)
    expect(fromJs.isError).toBe(false)
    if (!hasRg) return
    const fromRg = await rg.call('grep', args)
    expect(text(fromRg)).toBe(text(fromJs))
    expect(fromRg.value).toEqual(fromJs.value)
  })

  it('gives the expected text (js backend)', async () => {
    expect(text(await js.call('grep', { pattern: 'needle' }))).toBe(
      '.hidden/h.txt\na/b.txt\na.txt\nlong.txt\nsrc/x.ts',
    )
    expect(
      text(await js.call('grep', { pattern: 'needle', output_mode: 'content', glob: '*.txt', path: 'a' })),
    ).toBe('a/b.txt:2:needle deep')
    expect(text(await js.call('grep', { pattern: 'needle', output_mode: 'count', path: 'a.txt' }))).toBe(
      'a.txt:2\n[2 matching lines in 1 file]',
    )
    expect(text(await js.call('grep', { pattern: 'absent-string' }))).toBe(
      '(no matches for absent-string in .)',
    )
    const long = text(await js.call('grep', { pattern: 'zzz', output_mode: 'content' }))
    expect(long).toBe(`long.txt:1:needle ${'z'.repeat(493)}…`)
  })

  it('invalid patterns are tool errors with a next step (both backends)', async () => {
    const r = await js.call('grep', { pattern: '(unclosed' })
    expect(r.error?.kind).toBe('tool_error')
    expect(r.error?.message).toContain('Escape special characters')
    if (!hasRg) return
    const r2 = await rg.call('grep', { pattern: '(unclosed' })
    expect(r2.error?.kind).toBe('tool_error')
    expect(r2.error?.message).toContain('escape them')
  })

  it('caps content output and states what was omitted', async () => {
    const h = harness({ grepBackend: 'js' })
    writeFileSync(join(h.root, 'many.txt'), 'hit\n'.repeat(600))
    const lines = text(await h.call('grep', { pattern: 'hit', output_mode: 'content' })).split('\n')
    expect(lines).toHaveLength(501)
    expect(lines[500]).toBe(
      '[100 more matching lines not shown (600 in 1 file); narrow the pattern, path or glob, or use output_mode "files_with_matches"]',
    )
    if (!hasRg) return
    const h2 = harness({ root: h.root, grepBackend: 'ripgrep' })
    expect(text(await h2.call('grep', { pattern: 'hit', output_mode: 'content' })).split('\n')).toEqual(lines)
  })

  it('has a search result card', async () => {
    const { grepTool, createToolsEnv } = await import('../src/index.js')
    const def = grepTool(createToolsEnv({ root, sandbox: false }))
    const args = { pattern: 'needle', path: 'a', output_mode: 'content' as const }
    const r = await js.call('grep', args)
    expect(def.presentResult?.(args, r)).toEqual({
      card: 'search',
      query: 'needle',
      mode: 'matches',
      files: [{ path: 'a/b.txt', matches: [{ line: 2, text: 'needle deep' }] }],
    })
  })
})

describe('grep and protected files', () => {
  const secrets: Record<string, string> = {
    '.env': 'needle SECRET=abc\n',
    'sub/.env.local': 'needle TOKEN=xyz\n',
    '.env.example': 'needle SECRET=placeholder\n',
    'visible.txt': 'needle here\n',
  }
  let dir: string
  beforeAll(() => {
    dir = tempDir()
    for (const [path, content] of Object.entries(secrets)) {
      mkdirSync(join(dir, path, '..'), { recursive: true })
      writeFileSync(join(dir, path), content)
    }
  })

  it('a directory search never reads files protected for reading, with either backend', async () => {
    for (const backend of hasRg ? (['js', 'ripgrep'] as const) : (['js'] as const)) {
      const h = harness({ root: dir, grepBackend: backend })
      // Nothing of .env or .env.local: not their lines, not whether they matched, not the counts.
      expect(text(await h.call('grep', { pattern: 'needle' }))).toBe('.env.example\nvisible.txt')
      expect(text(await h.call('grep', { pattern: 'needle', output_mode: 'count' }))).toBe(
        '.env.example:1\nvisible.txt:1\n[2 matching lines in 2 files]',
      )
      expect(text(await h.call('grep', { pattern: 'SECRET|TOKEN', output_mode: 'content' }))).toBe(
        '.env.example:1:needle SECRET=placeholder',
      )
      expect(text(await h.call('grep', { pattern: 'SECRET=abc' }))).toBe('(no matches for SECRET=abc in .)')
      // Named as the path, the file is searched: the permission engine asks for it first.
      expect(text(await h.call('grep', { pattern: 'SECRET', path: '.env', output_mode: 'content' }))).toBe(
        '.env:1:needle SECRET=abc',
      )
    }
  })

  it("follows the host's protected table when it is given one", async () => {
    const h = harness({ root: dir, grepBackend: 'js', protectedPaths: [] })
    expect(text(await h.call('grep', { pattern: 'needle' }))).toBe(
      '.env\n.env.example\nsub/.env.local\nvisible.txt',
    )
  })
})
