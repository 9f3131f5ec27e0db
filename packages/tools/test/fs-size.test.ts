import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EDIT_MAX_BYTES } from '../src/index.js'
import { harness, text } from './helpers.js'

// write and edit load the current file to check that the model has seen it and to change it: a
// file of any size made with one bash call (`truncate -s 1500M big`, sparse: no disk used) held
// 1.5 GB in the agent's memory and took a minute to refuse with "not read" (red-team audit).
// Over EDIT_MAX_BYTES they refuse before loading anything, with what to do instead.

const tooLarge = (verb: string) =>
  `big is ${(EDIT_MAX_BYTES + 1).toLocaleString('en-US')} bytes, over the ${EDIT_MAX_BYTES.toLocaleString('en-US')}-byte limit for ${verb}; nothing was changed. Change a file this large with a command in bash (e.g. sed -i, or a script that streams it).`

describe('write and edit refuse a file too large to load', () => {
  const setup = () => {
    const h = harness()
    writeFileSync(join(h.root, 'big'), 'a\n')
    truncateSync(join(h.root, 'big'), EDIT_MAX_BYTES + 1)
    return h
  }

  it('edit', async () => {
    const h = setup()
    const r = await h.call('edit', { path: 'big', old_string: 'a', new_string: 'b' })
    expect(r.isError).toBe(true)
    expect(text(r)).toBe(tooLarge('edit'))
    expect(r.error?.code).toBe('FILE_TOO_LARGE')
    expect(readFileSync(join(h.root, 'big')).subarray(0, 2).toString()).toBe('a\n')
  })

  it('write (overwriting)', async () => {
    const h = setup()
    const r = await h.call('write', { path: 'big', content: 'small\n' })
    expect(r.isError).toBe(true)
    expect(text(r)).toBe(tooLarge('write'))
    expect(statSync(join(h.root, 'big')).size).toBe(EDIT_MAX_BYTES + 1)
  })

  it('a file at the limit still loads (the limit is not off by one)', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'edge'), 'a\n')
    truncateSync(join(h.root, 'edge'), EDIT_MAX_BYTES)
    const r = await h.call('write', { path: 'edge', content: 'x' })
    // Loaded, then refused for the ordinary reason: the model has not read it.
    expect(text(r)).toBe(
      'edge has not been read in this session. Read it with the read tool first, then overwrite it (or use edit for a targeted change).',
    )
  })
})

describe('edit never makes a file larger than it could load', () => {
  // replace_all multiplies new_string: 1,000 occurrences of `a` and a 100,000-character
  // new_string wrote a 100 MB file (566 MB of the agent's memory, the event loop held 1.5 s), and
  // a little more failed as "internal error: Invalid string length" (red team, issue 13).
  it('refuses before building the text, and says by how much', async () => {
    const h = harness()
    writeFileSync(join(h.root, 'small.txt'), `${'a'.repeat(1000)}\n`)
    await h.call('read', { path: 'small.txt' })
    const r = await h.call('edit', {
      path: 'small.txt',
      old_string: 'a',
      new_string: 'b'.repeat(70_000),
      replace_all: true,
    })
    expect(r.error).toMatchObject({
      kind: 'tool_error',
      message: `The edit would make small.txt 70,000,001 bytes (1,000 replacements), over the ${EDIT_MAX_BYTES.toLocaleString('en-US')}-byte limit for edit; nothing was changed. Replace fewer occurrences, or make this change with a command in bash (e.g. a script that streams the file).`,
      info: { code: 'FILE_TOO_LARGE', path: 'small.txt', bytes: 70_000_001, limit: EDIT_MAX_BYTES },
    })
    expect(statSync(join(h.root, 'small.txt')).size).toBe(1001)
  })
})
