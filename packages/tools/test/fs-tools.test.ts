import { mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { READ_MAX_LINE_CHARS, unifiedDiff } from '../src/index.js'
import { harness, text } from './helpers.js'

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

describe('read', () => {
  it('shows a numbered window with a header and the total line count', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'a.txt'), 'one\ntwo\nthree\n')
    const r = await h.call('read', { path: 'a.txt' })
    expect(r.isError).toBe(false)
    expect(text(r)).toBe('a.txt: lines 1-3 of 3\n     1\tone\n     2\ttwo\n     3\tthree')
    expect(r.value).toEqual({
      kind: 'text',
      path: 'a.txt',
      startLine: 1,
      totalLines: 3,
      lines: ['one', 'two', 'three'],
      truncated: [],
    })
  })

  it('windows with offset/limit, says how to continue, and accepts absolute paths', async () => {
    const h = harness()
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`)
    writeFileSync(join(h.root, 'big.txt'), `${lines.join('\n')}\n`)
    const first = await h.call('read', { path: join(h.root, 'big.txt') })
    const t = text(first)
    expect(t.split('\n')[0]).toBe('big.txt: lines 1-2,000 of 3,000')
    expect(t.split('\n')).toHaveLength(1 + 2000 + 1)
    expect(t.endsWith('[1,000 more lines not shown; read with offset=2001 to continue]')).toBe(true)
    const second = await h.call('read', { path: 'big.txt', offset: 2999, limit: 5 })
    expect(text(second)).toBe('big.txt: lines 2,999-3,000 of 3,000\n  2999\tline 2999\n  3000\tline 3000')
  })

  it('tells the model to read a short file whole instead of in pieces (seed 003 §9.3)', async () => {
    const h = harness()
    writeFileSync(join(h.root, 's.txt'), 'a\nb\nc\nd\n')
    const r = await h.call('read', { path: 's.txt', offset: 2, limit: 1 })
    expect(text(r)).toBe(
      's.txt: lines 2-2 of 4\n     2\tb\n[2 more lines not shown; read with offset=3 to continue]\n[the whole file has 4 lines, within one read: read it without offset/limit instead of in pieces]',
    )
  })

  it('cuts long lines and marks them; CRLF terminators are not shown', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'long.txt'), `${'x'.repeat(5000)}\r\nshort\r\nlast`)
    const r = await h.call('read', { path: 'long.txt' })
    const [header, l1, l2, l3] = text(r).split('\n')
    expect(header).toBe('long.txt: lines 1-3 of 3')
    expect(l1).toBe(
      `     1\t${'x'.repeat(READ_MAX_LINE_CHARS)} … [line cut: 5,000 characters, first 2,000 shown]`,
    )
    expect(l2).toBe('     2\tshort')
    expect(l3).toBe('     3\tlast')
  })

  it('states an empty file explicitly', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'empty.txt'), '')
    const r = await h.call('read', { path: 'empty.txt' })
    expect(text(r)).toBe('(empty file: empty.txt has 0 lines)')
  })

  it('refuses binary files, directories, missing files and offsets past the end, with a next step', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'blob.bin'), Buffer.from([1, 2, 0, 3, 4]))
    mkdirSync(join(h.root, 'dir'))
    writeFileSync(join(h.root, 'two.txt'), 'a\nb\n')
    const bin = await h.call('read', { path: 'blob.bin' })
    expect(bin.isError).toBe(true)
    expect(bin.error?.kind).toBe('tool_error')
    expect(bin.error?.message).toBe(
      'blob.bin is a binary file (5 bytes); read only shows text and PNG/JPEG/GIF/WebP images. Inspect it with a suitable command in bash (e.g. `file`, `xxd blob.bin | head`).',
    )
    expect((await h.call('read', { path: 'dir' })).error?.message).toBe(
      'dir is a directory, not a file. Use ls to list it.',
    )
    expect((await h.call('read', { path: 'nope.txt' })).error?.message).toBe(
      'nope.txt does not exist. Check the path (use glob or ls to find the file).',
    )
    expect((await h.call('read', { path: 'two.txt', offset: 9 })).error?.message).toBe(
      'offset 9 is past the end of two.txt, which has 2 lines. Use an offset between 1 and 2.',
    )
  })

  it('returns images as image content', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'dot.png'), PNG)
    const r = await h.call('read', { path: 'dot.png' })
    expect(r.content).toEqual([
      { type: 'text', text: `dot.png (image/png, ${PNG.length} bytes):` },
      { type: 'image', mediaType: 'image/png', data: PNG.toString('base64') },
    ])
  })

  it('records an fs/observed session event', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'a.txt'), 'hi\n')
    await h.call('read', { path: 'a.txt' })
    const observed = h.runtime.session.events().filter((e) => e.type === 'fs/observed')
    expect(observed).toHaveLength(1)
    expect(observed[0]).toMatchObject({ path: join(h.root, 'a.txt'), tool: 'read', size: 3 })
  })

  it('has a generic pending card and a read result card; malformed args give undefined', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'm.ts'), 'const a = 1\n')
    const r = await h.call('read', { path: 'm.ts' })
    const tool = h.runtime.schemas().find((s) => s.name === 'read')
    expect(tool).toBeDefined()
    const { readTool, createToolsEnv } = await import('../src/index.js')
    const def = readTool(createToolsEnv({ root: h.root, sandbox: false }))
    expect(def.presentCall?.({ path: 'm.ts' })).toEqual({
      card: 'generic',
      title: 'Read m.ts',
      kind: 'read',
      locations: [{ path: 'm.ts' }],
    })
    expect(def.presentResult?.({ path: 'm.ts' }, r)).toEqual({
      card: 'read',
      path: 'm.ts',
      startLine: 1,
      lines: ['const a = 1'],
      totalLines: 1,
      language: 'typescript',
    })
    expect(def.presentCall?.({ path: 42 } as never)).toBeUndefined()
    expect(def.presentResult?.({ nope: 1 } as never, r)).toBeUndefined()
  })
})

describe('edit', () => {
  it('replaces a unique match, returns a short confirmation, and puts the diff in meta', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'f.ts'), 'a\nb\nc\n')
    await h.call('read', { path: 'f.ts' })
    const r = await h.call('edit', { path: 'f.ts', old_string: 'b', new_string: 'B\nB2' })
    expect(r.isError).toBe(false)
    expect(text(r)).toBe('Edited f.ts: replaced 1 occurrence (+2 -1 lines).')
    expect(readFileSync(join(h.root, 'f.ts'), 'utf8')).toBe('a\nB\nB2\nc\n')
    expect(r.meta).toEqual({
      path: 'f.ts',
      diff: '--- a/f.ts\n+++ b/f.ts\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c',
      added: 2,
      removed: 1,
    })
  })

  it('zero matches: tells the model to read again and copy the exact text', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'f.ts'), 'alpha\n')
    await h.call('read', { path: 'f.ts' })
    const r = await h.call('edit', { path: 'f.ts', old_string: 'beta', new_string: 'x' })
    expect(r.error).toMatchObject({
      kind: 'tool_error',
      message:
        'old_string was not found in f.ts. Read the file again and copy the exact text to replace (same whitespace, indentation and line breaks, without line-number prefixes).',
    })
  })

  it('multiple matches need replace_all; replace_all replaces every one; $ patterns stay literal', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'f.ts'), 'x = 1\nx = 1\nx = 1\n')
    await h.call('read', { path: 'f.ts' })
    const r = await h.call('edit', { path: 'f.ts', old_string: 'x = 1', new_string: 'y = $&' })
    expect(r.error?.message).toBe(
      'old_string occurs 3 times in f.ts. Include more surrounding lines in old_string so it matches exactly one place, or set replace_all: true to replace all 3.',
    )
    const all = await h.call('edit', {
      path: 'f.ts',
      old_string: 'x = 1',
      new_string: 'y = $&',
      replace_all: true,
    })
    expect(text(all)).toBe('Edited f.ts: replaced 3 occurrences (+3 -3 lines).')
    expect(readFileSync(join(h.root, 'f.ts'), 'utf8')).toBe('y = $&\ny = $&\ny = $&\n')
  })

  it('matches CRLF files when the model sends bare newlines', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'w.txt'), 'one\r\ntwo\r\n')
    await h.call('read', { path: 'w.txt' })
    const r = await h.call('edit', { path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' })
    expect(r.isError).toBe(false)
    expect(readFileSync(join(h.root, 'w.txt'), 'utf8')).toBe('uno\r\ndos\r\n')
  })

  it('has diff cards', async () => {
    const { editTool, createToolsEnv } = await import('../src/index.js')
    const h = harness()
    writeFileSync(join(h.root, 'f.ts'), 'a\n')
    await h.call('read', { path: 'f.ts' })
    const r = await h.call('edit', { path: 'f.ts', old_string: 'a', new_string: 'b' })
    const def = editTool(createToolsEnv({ root: h.root, sandbox: false }))
    expect(def.presentCall?.({ path: 'f.ts', old_string: 'a', new_string: 'b' })).toEqual({
      card: 'diff',
      path: 'f.ts',
    })
    expect(def.presentResult?.({ path: 'f.ts', old_string: 'a', new_string: 'b' }, r)).toEqual({
      card: 'diff',
      path: 'f.ts',
      diff: '--- a/f.ts\n+++ b/f.ts\n@@ -1,1 +1,1 @@\n-a\n+b',
      added: 1,
      removed: 1,
    })
  })
})

describe('read-before-edit', () => {
  it('refuses to edit or overwrite a file that was never read', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'f.txt'), 'a\n')
    const e = await h.call('edit', { path: 'f.txt', old_string: 'a', new_string: 'b' })
    expect(e.error?.message).toBe(
      'f.txt has not been read in this session. Read it with the read tool first, then edit it (copy old_string exactly from what you read).',
    )
    const w = await h.call('write', { path: 'f.txt', content: 'new' })
    expect(w.error?.message).toBe(
      'f.txt has not been read in this session. Read it with the read tool first, then overwrite it (or use edit for a targeted change).',
    )
    expect(readFileSync(join(h.root, 'f.txt'), 'utf8')).toBe('a\n')
  })

  it('read -> external modification -> edit is refused with "read it again"; a new read unblocks it', async () => {
    const h = harness()
    const file = join(h.root, 'f.txt')
    writeFileSync(file, 'hello\n')
    await h.call('read', { path: 'f.txt' })
    // Same size and restored mtime: only the content hash can tell.
    const { mtime } = statSync(file)
    writeFileSync(file, 'HELLO\n')
    utimesSync(file, mtime, mtime)
    const refused = await h.call('edit', { path: 'f.txt', old_string: 'HELLO', new_string: 'bye' })
    expect(refused.error?.message).toBe(
      'f.txt has changed on disk since you last read it (by another program or person). Read it again, then retry the edit against the current content.',
    )
    expect(readFileSync(file, 'utf8')).toBe('HELLO\n')
    await h.call('read', { path: 'f.txt' })
    const ok = await h.call('edit', { path: 'f.txt', old_string: 'HELLO', new_string: 'bye' })
    expect(ok.isError).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('bye\n')
  })

  it('a write or edit counts as seeing the new version (consecutive edits need no re-read)', async () => {
    const h = harness()
    await h.call('write', { path: 'new/dir/f.txt', content: 'one\n' })
    const e1 = await h.call('edit', { path: 'new/dir/f.txt', old_string: 'one', new_string: 'two' })
    const e2 = await h.call('edit', { path: 'new/dir/f.txt', old_string: 'two', new_string: 'three' })
    expect([e1.isError, e2.isError]).toEqual([false, false])
    expect(readFileSync(join(h.root, 'new/dir/f.txt'), 'utf8')).toBe('three\n')
  })

  it('edits are exclusive: two edits of one file in a batch run one after the other and both apply', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'f.txt'), 'a b\n')
    await h.call('read', { path: 'f.txt' })
    const calls = [
      { callId: 'e1', name: 'edit', arguments: { path: 'f.txt', old_string: 'a', new_string: 'A' } },
      { callId: 'e2', name: 'edit', arguments: { path: 'f.txt', old_string: 'b', new_string: 'B' } },
    ]
    expect(calls.map((c) => h.runtime.mode(c).kind)).toEqual(['exclusive', 'exclusive'])
    expect(h.runtime.mode({ callId: 'r', name: 'read', arguments: { path: 'f.txt' } }).kind).toBe('parallel')
    const results = await h.runtime.executeBatch(calls)
    expect(results.map((r) => r.isError)).toEqual([false, false])
    expect(readFileSync(join(h.root, 'f.txt'), 'utf8')).toBe('A B\n')
  })

  it('each runtime is its own session: a read in one does not allow an edit in another', async () => {
    const a = harness()
    const b = harness({ root: a.root })
    writeFileSync(join(a.root, 'f.txt'), 'x\n')
    await a.call('read', { path: 'f.txt' })
    const r = await b.call('edit', { path: 'f.txt', old_string: 'x', new_string: 'y' })
    expect(r.error?.message).toContain('has not been read in this session')
  })
})

describe('write', () => {
  it('creates parent directories and confirms; overwrite after a read shows +/- counts and a diff card', async () => {
    const h = harness()
    const created = await h.call('write', { path: 'a/b/c.txt', content: 'x\ny\n' })
    expect(text(created)).toBe('Created a/b/c.txt (2 lines, 4 bytes).')
    expect(readFileSync(join(h.root, 'a/b/c.txt'), 'utf8')).toBe('x\ny\n')
    expect(created.meta).toEqual({
      path: 'a/b/c.txt',
      diff: '--- a/a/b/c.txt\n+++ b/a/b/c.txt\n@@ -0,0 +1,2 @@\n+x\n+y',
      added: 2,
      removed: 0,
    })
    writeFileSync(join(h.root, 'o.txt'), 'old\n')
    await h.call('read', { path: 'o.txt' })
    const over = await h.call('write', { path: 'o.txt', content: 'new\n' })
    expect(text(over)).toBe('Overwrote o.txt (1 line, 4 bytes; +1 -1 lines).')
  })
})

describe('ls and glob', () => {
  it('ls lists sorted entries with markers; empty directories are stated', async () => {
    const h = harness()
    mkdirSync(join(h.root, 'src'))
    mkdirSync(join(h.root, 'empty'))
    writeFileSync(join(h.root, 'b.txt'), '')
    writeFileSync(join(h.root, 'a.txt'), '')
    symlinkSync('a.txt', join(h.root, 'link'))
    expect(text(await h.call('ls', {}))).toBe('./ (5 entries)\na.txt\nb.txt\nempty/\nlink@\nsrc/')
    expect(text(await h.call('ls', { path: 'empty' }))).toBe('(empty directory: empty)')
    expect((await h.call('ls', { path: 'a.txt' })).error?.message).toBe(
      'a.txt is a file, not a directory. Use read to see its content.',
    )
  })

  it('glob matches recursively, sorted, skipping node_modules and .git; no match is stated', async () => {
    const h = harness()
    for (const f of [
      'src/b.ts',
      'src/a.ts',
      'src/deep/c.ts',
      'src/x.js',
      'node_modules/m/i.ts',
      '.git/h.ts',
      'top.ts',
    ]) {
      mkdirSync(join(h.root, f, '..'), { recursive: true })
      writeFileSync(join(h.root, f), '')
    }
    expect(text(await h.call('glob', { pattern: '**/*.ts' }))).toBe(
      'src/a.ts\nsrc/b.ts\nsrc/deep/c.ts\ntop.ts',
    )
    expect(text(await h.call('glob', { pattern: '*.ts', path: 'src' }))).toBe('src/a.ts\nsrc/b.ts')
    expect(text(await h.call('glob', { pattern: 'src/{a,x}.*' }))).toBe('src/a.ts\nsrc/x.js')
    expect(text(await h.call('glob', { pattern: '**/*.py' }))).toBe('(no files match **/*.py in .)')
  })

  it('glob caps the list and states how many were omitted', async () => {
    const h = harness()
    for (let i = 0; i < 1005; i++) writeFileSync(join(h.root, `f${String(i).padStart(4, '0')}.txt`), '')
    const t = text(await h.call('glob', { pattern: '*.txt' })).split('\n')
    expect(t).toHaveLength(1001)
    expect(t[1000]).toBe('[5 more files not listed (1,005 matched); narrow the pattern or path]')
  })
})

describe('todo_write', () => {
  it('replaces the list, emits todo/write and renders compactly', async () => {
    const h = harness()
    const r = await h.call('todo_write', {
      todos: [
        { content: 'Write tests', status: 'completed' },
        { content: 'Fix bug', status: 'in_progress', id: 't2' },
        { content: 'Ship', status: 'pending' },
      ],
    })
    expect(text(r)).toBe(
      'Todo list saved (3 tasks: 1/3 completed, 1 in progress):\n[x] Write tests\n[~] Fix bug\n[ ] Ship',
    )
    expect(h.runtime.session.events().filter((e) => e.type === 'todo/write')).toHaveLength(1)
    expect(text(await h.call('todo_write', { todos: [] }))).toBe('(todo list cleared: no tasks)')
  })
})

describe('unifiedDiff', () => {
  it('produces separate hunks for distant changes', () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n')
    const after = before.replace('l2\n', 'L2\n').replace('l19', 'L19')
    expect(unifiedDiff('f', `${before}\n`, `${after}\n`).diff).toBe(
      [
        '--- a/f',
        '+++ b/f',
        '@@ -1,5 +1,5 @@',
        ' l1',
        '-l2',
        '+L2',
        ' l3',
        ' l4',
        ' l5',
        '@@ -16,5 +16,5 @@',
        ' l16',
        ' l17',
        ' l18',
        '-l19',
        '+L19',
        ' l20',
      ].join('\n'),
    )
  })
})
