import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { initShellParser } from '@toolgate/policy'
import { beforeAll, describe, expect, it } from 'vitest'
import { type MessageRow, messageTable, readmeSection } from '../../core/test/support/message-table.js'
import { changedError, fsError, unsupportedError, vanishedError } from '../src/fs/errors.js'
import { EDIT_MAX_BYTES, ripgrepAvailable } from '../src/index.js'
import { sandboxError, startError } from '../src/tools/bash-errors.js'
import { READ_MAX_IMAGE_BYTES } from '../src/tools/read.js'
import { harness, tempDir, text } from './helpers.js'

// Issue 17: the README lists every message the tools write for the model after a failure, with
// its size in tokens, generated here from real calls on real files (and, for the few a test
// cannot provoke on this host, from the functions that write them), so the table cannot drift.
// `UPDATE_README=1 npx vitest run packages/tools/test/messages-readme.test.ts` rewrites it.

let hasRg = false
beforeAll(async () => {
  await initShellParser()
  hasRg = await ripgrepAvailable()
  // The grep rows come from both backends; CI installs ripgrep (as the grep tests require).
  if (!hasRg && process.env.CI) throw new Error('ripgrep (rg) is not installed; CI installs it')
})

async function rows(): Promise<MessageRow[]> {
  const h = harness()
  const w = (path: string, content: string | Buffer) => {
    mkdirSync(join(h.root, path, '..'), { recursive: true })
    writeFileSync(join(h.root, path), content)
  }
  w('src/a.ts', 'let x = 1\nlet x = 1\n')
  w('img.bin', Buffer.from([0, 1, 2, 3, 0, 255]))
  w('short.txt', 'one\n')
  w('notes.md', 'n\n')
  mkdirSync(join(h.root, 'docs'))
  const outside = tempDir()
  writeFileSync(join(outside, 'secret.txt'), 's')
  symlinkSync(join(outside, 'secret.txt'), join(h.root, 'link.txt'))
  execFileSync('mkfifo', [join(h.root, 'pipe')])

  const out: MessageRow[] = []
  const add = async (when: string, name: string, args: Record<string, unknown>) => {
    const r = await h.call(name, args as never)
    expect([when, r.isError]).toEqual([when, true])
    out.push({ kind: r.error!.kind, code: r.error!.code, when: `${name}: ${when}`, message: text(r) })
  }
  await add('the file does not exist', 'read', { path: 'src/missing.ts' })
  await add('a directory', 'read', { path: 'docs' })
  await add('a parent is a file', 'read', { path: 'short.txt/x' })
  await add('a binary file', 'read', { path: 'img.bin' })
  await add('offset past the end', 'read', { path: 'short.txt', offset: 9 })
  await add('a FIFO', 'read', { path: 'pipe' })
  await add('a link out of the workspace', 'read', { path: 'link.txt' })
  await add('not read first', 'edit', { path: 'src/a.ts', old_string: 'x', new_string: 'y' })
  await h.call('read', { path: 'src/a.ts' })
  await add('old_string = new_string', 'edit', { path: 'src/a.ts', old_string: 'x', new_string: 'x' })
  await add('no match', 'edit', { path: 'src/a.ts', old_string: 'let y', new_string: 'let z' })
  await add('several matches', 'edit', { path: 'src/a.ts', old_string: 'let x = 1', new_string: 'let x = 2' })
  w('src/a.ts', 'changed on disk\n')
  await add('changed since read', 'edit', { path: 'src/a.ts', old_string: 'changed', new_string: 'c' })
  await add('overwrite a file not read first', 'write', { path: 'notes.md', content: 'x' })
  await add('a protected file', 'write', { path: '.git/hooks/pre-commit', content: 'x' })
  await add('a file', 'ls', { path: 'short.txt' })
  await add('a file', 'glob', { pattern: '*.ts', path: 'short.txt' })
  await add('an unknown job', 'job_output', { job_id: 'job_9' })
  // A PNG header on a file one byte over the image limit (the size is checked before decoding).
  const png = Buffer.alloc(READ_MAX_IMAGE_BYTES + 1)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png)
  w('big.png', png)
  await add('an image over the limit', 'read', { path: 'big.png' })
  // Sparse: no disk used. Refused on its size before anything else (even "not read first").
  w('huge.log', 'a\n')
  truncateSync(join(h.root, 'huge.log'), EDIT_MAX_BYTES + 1)
  await add('a file over the size limit', 'edit', { path: 'huge.log', old_string: 'a', new_string: 'b' })
  await add("a class that matches only '/'", 'glob', { pattern: 'src/[/]x' })
  await add("an unclosed '{'", 'glob', { pattern: 'src/{a,b' })
  await add("a stray '}'", 'glob', { pattern: 'src/a}' })
  const js = harness({ root: h.root, grepBackend: 'js' })
  const jsAdd = async (when: string, args: Record<string, unknown>) => {
    const r = await js.call('grep', args as never)
    expect([when, r.isError]).toEqual([when, true])
    out.push({ kind: r.error!.kind, code: r.error!.code, when: `grep: ${when}`, message: text(r) })
  }
  await jsAdd('an invalid glob', { pattern: 'x', glob: '*.{ts' })
  await jsAdd('an invalid regular expression (without ripgrep)', { pattern: '(unclosed' })
  const rg = harness({ root: h.root, grepBackend: 'ripgrep' })
  const r = await rg.call('grep', { pattern: '(unclosed' })
  expect(r.isError).toBe(true)
  out.push({
    kind: r.error!.kind,
    code: r.error!.code,
    when: 'grep: an invalid regular expression (ripgrep)',
    message: text(r),
  })
  // A configured ripgrep that is not there: the spawn fails.
  const missing = harness({
    root: h.root,
    grepBackend: 'ripgrep',
    ripgrepPath: join(h.root, 'no-such-dir', 'rg'),
  })
  {
    const r = await missing.call('grep', { pattern: 'x' })
    expect(r.isError).toBe(true)
    out.push({
      kind: r.error!.kind,
      code: r.error!.code,
      when: 'grep: ripgrep could not be started',
      message: text(r),
    })
  }
  for (const [code, action] of [
    ['EACCES', 'read'],
    ['ELOOP', 'read'],
    ['EIO', 'write'],
  ] as const) {
    const e = fsError(
      Object.assign(new Error("EIO: i/o error, open '/srv/data/src/a.ts'"), { code }),
      'src/a.ts',
      action,
    )
    out.push({
      kind: 'tool_error',
      code: 'TOOL_ERROR',
      when: `${action}: ${code} from the file system`,
      message: e.message,
    })
  }
  out.push({
    kind: 'tool_error',
    code: 'TOOL_ERROR',
    when: 'read: a path replaced while it was opened',
    message: changedError('src/a.ts', 'read').message,
  })
  out.push({
    kind: 'tool_error',
    code: 'TOOL_ERROR',
    when: 'write: a file replaced while it was opened',
    message: changedError('notes.md', 'write').message,
  })
  out.push({
    kind: 'tool_error',
    code: 'TOOL_ERROR',
    when: 'write: a new file that appeared and disappeared while it was created',
    message: vanishedError('notes.md').message,
  })
  for (const [when, e] of [
    ['bash could not be spawned', startError(new Error('spawn bash ENOENT'))],
    ['the sandbox profile could not be prepared', sandboxError(new Error('EACCES'))],
  ] as const) {
    out.push({ kind: 'tool_error', code: e.code!, when: `bash: ${when}`, message: e.message })
  }
  out.push({
    kind: 'tool_error',
    code: 'TOOL_ERROR',
    when: 'read: a platform without O_NOFOLLOW',
    message: unsupportedError('read').message,
  })
  return out
}

describe('tools README: every failure message', () => {
  it('is listed with its size in tokens', async (ctx) => {
    if (!hasRg) ctx.skip() // the ripgrep row needs rg (CI fails in beforeAll instead)
    const { actual, expected } = readmeSection(
      new URL('../README.md', import.meta.url),
      'tool-messages',
      messageTable(await rows()),
    )
    expect(actual).toBe(expected)
  })
})
