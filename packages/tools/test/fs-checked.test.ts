import { execFileSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ripgrepAvailable } from '../src/index.js'
import { harness, tempDir, text } from './helpers.js'

// Descriptor-checked file access without a race (issue 13 §3): what a link leads to is judged,
// not its name, and only regular files are opened for content (FIFOs, sockets and devices are
// refused before anything could block). The racing versions are in fs-race.test.ts.

const GIT_CONFIG_REASON =
  'git configuration can name programs that git runs (core.hooksPath, core.fsmonitor, aliases)'

function workspace() {
  const h = harness()
  mkdirSync(join(h.root, '.git/hooks'), { recursive: true })
  writeFileSync(join(h.root, '.git/config'), '[core]\n')
  writeFileSync(join(h.root, 'AGENTS.md'), 'agents\n')
  writeFileSync(join(h.root, '.env'), 'TOKEN=secret\n')
  const outside = tempDir('toolgate-outside-')
  writeFileSync(join(outside, 'secret.txt'), 'SECRET\n')
  return { ...h, outside }
}

describe('links are judged by what they lead to', () => {
  it('a link inside the workspace works for read, edit and write, and stays a link', async () => {
    const w = workspace()
    symlinkSync('AGENTS.md', join(w.root, 'CLAUDE.md'))
    expect(text(await w.call('read', { path: 'CLAUDE.md' }))).toBe(
      'CLAUDE.md: lines 1-1 of 1\n     1\tagents',
    )
    expect(
      text(await w.call('edit', { path: 'CLAUDE.md', old_string: 'agents', new_string: 'edited' })),
    ).toBe('Edited CLAUDE.md: replaced 1 occurrence (+1 -1 lines).')
    expect(text(await w.call('write', { path: 'CLAUDE.md', content: 'written\n' }))).toBe(
      'Overwrote CLAUDE.md (1 line, 8 bytes; +1 -1 lines).',
    )
    expect(readFileSync(join(w.root, 'AGENTS.md'), 'utf8')).toBe('written\n')
    expect(lstatSync(join(w.root, 'CLAUDE.md')).isSymbolicLink()).toBe(true)
  })

  it('a link out of the workspace is refused for read and write; nothing is read or changed', async () => {
    const w = workspace()
    symlinkSync(join(w.outside, 'secret.txt'), join(w.root, 'doc.txt'))
    const read = await w.call('read', { path: 'doc.txt' })
    expect(read.error).toMatchObject({
      kind: 'tool_error',
      message:
        'doc.txt leads through a symbolic link to a file outside the workspace, and read does not follow links out of the workspace. Nothing was read. To use that file, name it by its own path (find it with `realpath doc.txt` in bash); the user may be asked.',
      info: { code: 'LINK_OUTSIDE_WORKSPACE', path: 'doc.txt' },
    })
    const write = await w.call('write', { path: 'doc.txt', content: 'x' })
    expect(write.error?.message).toBe(
      'doc.txt leads through a symbolic link to a file outside the workspace, and write does not follow links out of the workspace. Nothing was changed. To use that file, name it by its own path (find it with `realpath doc.txt` in bash); the user may be asked.',
    )
    expect(readFileSync(join(w.outside, 'secret.txt'), 'utf8')).toBe('SECRET\n')
    // Named by its own path, it is read (the permission engine decides whether to ask first).
    expect(text(await w.call('read', { path: join(w.outside, 'secret.txt') }))).toContain('SECRET')
  })

  it('a link to .git/config can be read but never written; .git/config by name is refused too', async () => {
    const w = workspace()
    symlinkSync('.git/config', join(w.root, 'cfg'))
    await w.call('read', { path: 'cfg' })
    expect(
      (await w.call('write', { path: 'cfg', content: '[core]\n\thooksPath = x\n' })).error?.message,
    ).toBe(
      `cfg leads through a symbolic link to a protected file (${GIT_CONFIG_REASON}); write never changes it.`,
    )
    expect(
      (await w.call('edit', { path: 'cfg', old_string: '[core]', new_string: '[x]' })).error?.message,
    ).toBe(
      `cfg leads through a symbolic link to a protected file (${GIT_CONFIG_REASON}); edit never changes it.`,
    )
    await w.call('read', { path: '.git/config' })
    expect((await w.call('write', { path: '.git/config', content: '' })).error).toMatchObject({
      message: `.git/config is a protected file (${GIT_CONFIG_REASON}); write never changes it.`,
      info: { code: 'PROTECTED_PATH', path: '.git/config', protectedPattern: '**/.git/config' },
    })
    expect(readFileSync(join(w.root, '.git/config'), 'utf8')).toBe('[core]\n')
  })

  it('a link to .env is refused for read (only the named file is asked for); .env by name is read', async () => {
    const w = workspace()
    symlinkSync('.env', join(w.root, 'notes.txt'))
    expect((await w.call('read', { path: 'notes.txt' })).error?.message).toBe(
      'notes.txt leads through a symbolic link to a protected file (environment files usually hold secrets (API keys, passwords)). Nothing was read. Name that file itself as path, so the user can be asked to allow it.',
    )
    expect(text(await w.call('read', { path: '.env' }))).toBe('.env: lines 1-1 of 1\n     1\tTOKEN=secret')
  })

  it('write through a dangling link creates its target inside the workspace, never outside', async () => {
    const w = workspace()
    symlinkSync('made.txt', join(w.root, 'to-made'))
    expect(text(await w.call('write', { path: 'to-made', content: 'made\n' }))).toBe(
      'Created to-made (1 line, 5 bytes).',
    )
    expect(readFileSync(join(w.root, 'made.txt'), 'utf8')).toBe('made\n')
    symlinkSync(join(w.outside, 'planted.txt'), join(w.root, 'to-outside'))
    expect((await w.call('write', { path: 'to-outside', content: 'x' })).error?.info).toEqual({
      code: 'LINK_OUTSIDE_WORKSPACE',
      path: 'to-outside',
    })
    expect(readdirSync(w.outside)).toEqual(['secret.txt'])
  })

  it('new parent directories are never made through a link out of the workspace or into .git/hooks', async () => {
    const w = workspace()
    symlinkSync(w.outside, join(w.root, 'out'))
    symlinkSync('.git/hooks', join(w.root, 'hooks'))
    expect((await w.call('write', { path: 'out/a/b/c.txt', content: 'x' })).error?.info).toEqual({
      code: 'LINK_OUTSIDE_WORKSPACE',
      path: 'out/a/b/c.txt',
    })
    expect((await w.call('write', { path: 'hooks/sub/pre-commit', content: 'x' })).error?.info).toMatchObject(
      {
        code: 'PROTECTED_PATH',
        protectedPattern: '**/.git/hooks/**',
      },
    )
    expect(readdirSync(w.outside)).toEqual(['secret.txt'])
    expect(readdirSync(join(w.root, '.git/hooks'))).toEqual([])
    // Inside the workspace, missing parents are created as before.
    expect(text(await w.call('write', { path: 'n/e/w.txt', content: '' }))).toBe(
      'Created n/e/w.txt (0 lines, 0 bytes).',
    )
  })

  it('a link loop is a clear error', async () => {
    const w = workspace()
    symlinkSync('loop-b', join(w.root, 'loop-a'))
    symlinkSync('loop-a', join(w.root, 'loop-b'))
    for (const tool of ['read', 'write'] as const) {
      const r = await w.call(tool, tool === 'read' ? { path: 'loop-a' } : { path: 'loop-a', content: 'x' })
      expect(r.error?.message).toBe(
        'loop-a has too many symbolic links on its path (more than 40, or a loop). Check the path.',
      )
    }
  })

  it('grep and glob follow a named directory link only inside the workspace', async () => {
    const w = workspace()
    mkdirSync(join(w.root, 'real'))
    writeFileSync(join(w.root, 'real/a.txt'), 'needle\n')
    symlinkSync('real', join(w.root, 'alias'))
    symlinkSync(w.outside, join(w.root, 'away'))
    expect(text(await w.call('grep', { pattern: 'needle', path: 'alias' }))).toBe('alias/a.txt')
    expect(text(await w.call('glob', { pattern: '*.txt', path: 'alias' }))).toBe('alias/a.txt')
    for (const [tool, args] of [
      ['grep', { pattern: 'SECRET', path: 'away' }],
      ['glob', { pattern: '*', path: 'away' }],
    ] as const) {
      expect((await w.call(tool, args)).error?.info).toEqual({ code: 'LINK_OUTSIDE_WORKSPACE', path: 'away' })
    }
  })
})

describe('only regular files are opened for content', () => {
  let fifoRoot: string
  let server: Server
  let hasRg = false

  beforeAll(async () => {
    fifoRoot = tempDir()
    mkdirSync(join(fifoRoot, 'dir'))
    writeFileSync(join(fifoRoot, 'dir/plain.txt'), 'needle\n')
    execFileSync('mkfifo', [join(fifoRoot, 'pipe'), join(fifoRoot, 'dir/pipe.txt')])
    symlinkSync('pipe', join(fifoRoot, 'pipe-link'))
    server = createServer()
    await new Promise<void>((resolve) => server.listen(join(fifoRoot, 'sock'), resolve))
    hasRg = await ripgrepAvailable()
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const FIFO = 'a named pipe (FIFO)'

  it('read, write and edit refuse a FIFO (also through a link), a socket and devices, without blocking', async () => {
    const h = harness({ root: fifoRoot })
    const cases: [string, Record<string, string>, string][] = [
      [
        'read',
        { path: 'pipe' },
        `pipe is ${FIFO}, not a regular file: read only opens regular files: reading this one could wait forever or never end. Check the path.`,
      ],
      [
        'read',
        { path: 'pipe-link' },
        `pipe-link is ${FIFO}, not a regular file: read only opens regular files: reading this one could wait forever or never end. Check the path.`,
      ],
      [
        'write',
        { path: 'pipe', content: 'x' },
        `pipe is ${FIFO}, not a regular file: write only writes regular files. Check the path.`,
      ],
      [
        'edit',
        { path: 'pipe', old_string: 'a', new_string: 'b' },
        `pipe is ${FIFO}, not a regular file: edit only changes regular files. Check the path.`,
      ],
      [
        'read',
        { path: 'sock' },
        'sock is a socket, not a regular file: read only opens regular files: reading this one could wait forever or never end. Check the path.',
      ],
      [
        'write',
        { path: 'sock', content: 'x' },
        'sock is a socket, not a regular file: write only writes regular files. Check the path.',
      ],
      [
        'read',
        { path: '/dev/zero' },
        '/dev/zero is a character device, not a regular file: read only opens regular files: reading this one could wait forever or never end. Check the path.',
      ],
      [
        'write',
        { path: '/dev/null', content: 'x' },
        '/dev/null is a character device, not a regular file: write only writes regular files. Check the path.',
      ],
    ]
    // More calls at once than libuv has pool threads: a single blocked open would wedge the rest.
    const results = await Promise.all(cases.map(([tool, args]) => h.call(tool, args)))
    expect(results.map((r) => r.error?.message)).toEqual(cases.map(([, , message]) => message))
    expect(results.map((r) => (r.error?.info as { code?: string } | undefined)?.code)).toEqual(
      cases.map(() => 'NOT_REGULAR_FILE'),
    )
    expect(text(await h.call('read', { path: 'dir/plain.txt' }))).toBe(
      'dir/plain.txt: lines 1-1 of 1\n     1\tneedle',
    )
  })

  it('grep refuses a FIFO named as path and skips one inside a directory, with both backends; glob too', async () => {
    for (const backend of hasRg ? (['js', 'ripgrep'] as const) : (['js'] as const)) {
      const h = harness({ root: fifoRoot, grepBackend: backend })
      expect((await h.call('grep', { pattern: 'x', path: 'pipe' })).error?.message).toBe(
        `pipe is ${FIFO}, not a regular file: grep only searches regular files and directories. Check the path.`,
      )
      expect(text(await h.call('grep', { pattern: 'needle', path: 'dir' }))).toBe('dir/plain.txt')
      expect(text(await h.call('grep', { pattern: 'needle' }))).toBe('dir/plain.txt')
    }
    const h = harness({ root: fifoRoot })
    expect(text(await h.call('glob', { pattern: '**/*' }))).toBe('dir/plain.txt')
    expect((await h.call('glob', { pattern: '*', path: 'pipe' })).error?.message).toBe(
      `pipe is ${FIFO}, not a regular file: glob only searches directories. Check the path.`,
    )
    expect(text(await h.call('read', { path: 'dir/plain.txt' }))).toBe(
      'dir/plain.txt: lines 1-1 of 1\n     1\tneedle',
    )
  })

  it('nothing was left behind by refused writes', () => {
    expect(existsSync(join(fifoRoot, 'dir/pipe.txt'))).toBe(true)
    expect(readdirSync(fifoRoot).sort()).toEqual(['dir', 'pipe', 'pipe-link', 'sock'])
  })
})
