import { linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { harness, tempDir, text } from './helpers.js'

// Hard links (issue 13 §3, red team). A hard link is the file itself under another name: its
// descriptor's real path is the name it was opened by, so the protected-table and boundary checks
// saw `cfg`, a harmless name, while the bytes written were .git/config's (or a file's outside the
// workspace, on the same file system). A file with more than one name cannot be judged by the one
// name the call gave, so write and edit refuse it; nothing is changed.

function workspace() {
  const h = harness()
  mkdirSync(join(h.root, '.git'), { recursive: true })
  writeFileSync(join(h.root, '.git/config'), '[core]\n')
  linkSync(join(h.root, '.git/config'), join(h.root, 'cfg'))
  const outside = tempDir('toolgate-outside-')
  writeFileSync(join(outside, 'secret.txt'), 'SECRET\n')
  linkSync(join(outside, 'secret.txt'), join(h.root, 'notes.txt'))
  return { ...h, outside }
}

const refusal = (shown: string, tool: 'write' | 'edit') =>
  `${shown} has 2 names (hard links), and ${tool} never changes a file that has other names: another name may be a protected file (such as .git/config) or lie outside the workspace. Nothing was changed. To change this content, write it to a new file (or ask the user to remove the other link).`

describe('a file with several hard links is never changed', () => {
  it('write and edit through a hard link to .git/config are refused; .git/config keeps its bytes', async () => {
    const w = workspace()
    // read works (it shows the bytes the name holds) and records the version, so only the link refuses
    expect(text(await w.call('read', { path: 'cfg' }))).toBe('cfg: lines 1-1 of 1\n     1\t[core]')
    const write = await w.call('write', { path: 'cfg', content: '[core]\n\thooksPath = /tmp/evil\n' })
    expect(write.error).toMatchObject({
      kind: 'tool_error',
      message: refusal('cfg', 'write'),
      info: { code: 'HARD_LINKED', path: 'cfg', links: 2 },
    })
    const edit = await w.call('edit', {
      path: 'cfg',
      old_string: '[core]',
      new_string: '[core]\n\tfsmonitor = evil',
    })
    expect(edit.error).toMatchObject({ message: refusal('cfg', 'edit'), info: { code: 'HARD_LINKED' } })
    expect(readFileSync(join(w.root, '.git/config'), 'utf8')).toBe('[core]\n')
  })

  it('a hard link to a file outside the workspace is not changed either', async () => {
    const w = workspace()
    await w.call('read', { path: 'notes.txt' })
    const write = await w.call('write', { path: 'notes.txt', content: 'overwritten\n' })
    expect(text(write)).toBe(refusal('notes.txt', 'write'))
    expect(readFileSync(join(w.outside, 'secret.txt'), 'utf8')).toBe('SECRET\n')
  })

  it('a file with one name is written as before', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'one.txt'), 'a\n')
    await h.call('read', { path: 'one.txt' })
    expect(text(await h.call('write', { path: 'one.txt', content: 'b\n' }))).toBe(
      'Overwrote one.txt (1 line, 2 bytes; +1 -1 lines).',
    )
  })
})
