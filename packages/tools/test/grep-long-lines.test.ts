import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ripgrepAvailable } from '../src/index.js'
import { harness, tempDir, text } from './helpers.js'

// A huge line through the ripgrep backend (issue 13, red team). `rg --json` prints a match as one
// JSON line holding the whole text line and one object per submatch; it has no column limit. A
// 20 MB line of `a` searched for `a` made a ~900 MB JSON line, past V8's string limit: readline
// threw RangeError outside any promise and the process died. The backend now uses ripgrep's
// plain output with a column limit (a preview of the line's start) and a bounded record reader.

let hasRg = false
beforeAll(async () => {
  hasRg = await ripgrepAvailable()
  if (!hasRg && process.env.CI === 'true')
    throw new Error('ripgrep (rg) is not installed; CI installs it (apt-get install -y ripgrep)')
})

function bigLine(root: string, name: string, megabytes: number, tail = ''): void {
  const fd = openSync(join(root, name), 'w')
  const chunk = Buffer.from('a'.repeat(1 << 20))
  for (let i = 0; i < megabytes; i++) writeSync(fd, chunk)
  writeSync(fd, `${tail}\nshort a line\n`)
  closeSync(fd)
}

describe('grep content over a huge line (ripgrep)', () => {
  it('a 20 MB line where every character matches: the line is shown cut, the process lives', async () => {
    if (!hasRg) return
    const root = tempDir()
    bigLine(root, 'bundle.js', 20)
    const rg = harness({ root, grepBackend: 'ripgrep' })
    const result = await rg.call('grep', { pattern: 'a', output_mode: 'content' })
    expect(result.isError).toBe(false)
    expect(text(result)).toBe(`bundle.js:1:${'a'.repeat(500)}…\nbundle.js:2:short a line`)
  })

  it('both backends show the same text for long lines, multi-byte text and CRLF', async () => {
    if (!hasRg) return
    const root = tempDir()
    writeFileSync(
      join(root, 'wide.txt'),
      `${'é'.repeat(3000)} needle\r\n${'𝄞'.repeat(1200)}needle\nplain needle\r\n`,
    )
    writeFileSync(
      join(root, 'bad.txt'),
      Buffer.concat([Buffer.from('needle \xff\xfe ', 'latin1'), Buffer.from('end\n')]),
    )
    writeFileSync(join(root, 'name:with:colons.txt'), 'x needle 1:2:3\n')
    const args = { pattern: 'needle', output_mode: 'content' }
    const fromJs = text(await harness({ root, grepBackend: 'js' }).call('grep', args))
    const fromRg = text(await harness({ root, grepBackend: 'ripgrep' }).call('grep', args))
    expect(fromRg).toBe(fromJs)
    expect(fromRg.split('\n').map((l) => l.slice(0, 19))).toEqual([
      'bad.txt:1:needle \ufffd\ufffd',
      'name:with:colons.tx',
      'wide.txt:1:éééééééé',
      'wide.txt:2:𝄞𝄞𝄞𝄞',
      'wide.txt:3:plain ne',
    ])
    expect(fromRg.split('\n').map((l) => l.length)).toEqual([23, 37, 512, 512, 23])
  })

  it('a file named as path is searched the same way', async () => {
    if (!hasRg) return
    const root = tempDir()
    bigLine(root, 'one.js', 2, 'needle')
    const rg = harness({ root, grepBackend: 'ripgrep' })
    expect(
      text(await rg.call('grep', { pattern: 'needle|short', path: 'one.js', output_mode: 'content' })),
    ).toBe(`one.js:1:${'a'.repeat(500)}…\none.js:2:short a line`)
  })
})
