import { appendFileSync, truncateSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { createRuntime } from '@toolgate/core'
import { describe, expect, it } from 'vitest'
import { readLineWindow } from '../src/fs/line-window.js'
import { builtinTools, createToolsEnv, readTool } from '../src/index.js'
import { SEARCH_TIMEOUT_MS } from '../src/tools/grep.js'
import { harness, tempDir, text } from './helpers.js'

// Issue 13 (red team): read streamed a file to its end with no deadline and without looking at
// its signal. One bash call makes a text file of any size at no cost (`printf 'hi\n' > f;
// truncate -s 1T f`: sparse; its start text, so it is
// not refused as binary), and a file another program keeps appending to never ends: read
// then ran for hours, and an abort only orphaned it (the body kept a libuv thread and a core
// busy). Now read stops at the size the opened file had, stops when its signal aborts, and has
// the same deadline as a search.

const TERABYTE = 2 ** 40

function sparseFile(root: string): string {
  const path = join(root, 'huge.txt')
  // text past the binary sniff window, then a terabyte of hole
  writeFileSync(path, 'hello world\n'.repeat(64 * 1024))
  truncateSync(path, TERABYTE)
  return path
}

describe('read never streams without bound', () => {
  it('stops when its signal aborts, mid-file: the call ends ABORTED and no body is left running', async () => {
    const root = tempDir()
    sparseFile(root)
    const runtime = createRuntime()
    runtime.use(builtinTools({ root, sandbox: false, tempDir: tempDir('toolgate-session-') }))
    const controller = new AbortController()
    // abort once the body has read its first bytes (the fs/observed event comes only at the end)
    runtime.on('tools/execute', (_exec, next) => {
      const body = next()
      setImmediate(() => controller.abort())
      return body
    })
    const result = await runtime.execute({
      callId: 'r1',
      name: 'read',
      arguments: { path: 'huge.txt' },
      signal: controller.signal,
    })
    expect(result.error?.code).toBe('ABORTED')
    // the body honoured the abort: nothing is still reading the terabyte
    expect(await runtime.dispose()).toEqual({ pendingOrphans: [] })
  })

  it('the body itself rejects on an aborted signal instead of reading on', async () => {
    const root = tempDir()
    const path = sparseFile(root)
    const handle = await open(path, 'r')
    try {
      const signal = AbortSignal.abort(new Error('stop'))
      await expect(readLineWindow(handle, 1, 10, 100, { bytes: TERABYTE, signal })).rejects.toThrow('stop')
    } finally {
      await handle.close()
    }
  })

  it('reads what the file held when it was opened, not what is appended meanwhile', async () => {
    const root = tempDir()
    const path = join(root, 'growing.log')
    writeFileSync(path, 'one\ntwo\nthree\n')
    const handle = await open(path, 'r')
    try {
      const { size } = await handle.stat()
      appendFileSync(path, 'four\nfive\n')
      const window = await readLineWindow(handle, 1, 10, 100, {
        bytes: size,
        signal: new AbortController().signal,
      })
      expect(window).toMatchObject({ lines: ['one', 'two', 'three'], totalLines: 3 })
    } finally {
      await handle.close()
    }
  })

  it('has the deadline of a search', async () => {
    expect(readTool(createToolsEnv({ root: tempDir() })).timeoutMs).toBe(SEARCH_TIMEOUT_MS)
    const h = harness()
    writeFileSync(join(h.root, 'small.txt'), 'a\nb\n')
    expect(text(await h.call('read', { path: 'small.txt' }))).toBe(
      'small.txt: lines 1-2 of 2\n     1\ta\n     2\tb',
    )
  })
})
