import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ripgrepAvailable } from '../src/index.js'
import { harness, tempDir, text } from './helpers.js'

// A file name is data from whoever made the file (a cloned repository, a command). Listed raw,
// one per line, `ok.txt<LF>secret.env` read as two files and a name could carry a line of
// instructions or an escape sequence into the model's context (red team, issue 13). Tools that
// list names (ls, glob, grep) now show a name holding a control character, a line separator or
// a leading quote as a JSON string, which the model can pass back as is: the value keeps it raw.

const NAMES = ['ok.txt\nsecret.env', 'b\u001b[2J.txt', '"quoted.txt', 'para\u2029graph.txt', 'plain.txt']

let hasRg = false
beforeAll(async () => {
  hasRg = await ripgrepAvailable()
  if (!hasRg && process.env.CI === 'true')
    throw new Error('ripgrep (rg) is not installed; CI installs it (apt-get install -y ripgrep)')
})

function workspace(options: { grepBackend?: 'js' | 'ripgrep' } = {}) {
  const root = tempDir()
  for (const name of NAMES) writeFileSync(join(root, name), 'needle\n')
  return harness({ root, ...options })
}

// sorted by UTF-16 code units, as the tools sort
const SHOWN = [
  '"\\"quoted.txt"',
  '"b\\u001b[2J.txt"',
  '"ok.txt\\nsecret.env"',
  '"para\\u2029graph.txt"',
  'plain.txt',
]

describe('names with control characters are listed as JSON strings', () => {
  it('ls', async () => {
    const h = workspace()
    const r = await h.call('ls', {})
    expect(text(r)).toBe(['./ (5 entries)', ...SHOWN].join('\n'))
    expect((r.value as { entries: { name: string }[] }).entries.map((e) => e.name)).toEqual(
      [...NAMES].sort().slice(0, 5),
    )
  })

  it('glob', async () => {
    const h = workspace()
    expect(text(await h.call('glob', { pattern: '*' }))).toBe(SHOWN.join('\n'))
  })

  it.each(['js', 'ripgrep'] as const)('grep (%s backend), every output mode', async (backend) => {
    if (backend === 'ripgrep' && !hasRg) return
    const h = workspace({ grepBackend: backend })
    expect(text(await h.call('grep', { pattern: 'needle' }))).toBe(SHOWN.join('\n'))
    expect(text(await h.call('grep', { pattern: 'needle', output_mode: 'content' }))).toBe(
      SHOWN.map((s) => `${s}:1:needle`).join('\n'),
    )
    expect(text(await h.call('grep', { pattern: 'needle', output_mode: 'count' }))).toBe(
      [...SHOWN.map((s) => `${s}:1`), '[5 matching lines in 5 files]'].join('\n'),
    )
  })

  it('the name as the JSON string decodes is the file: read takes it back', async () => {
    const h = workspace()
    const shown = text(await h.call('glob', { pattern: 'ok*' }))
    const name = JSON.parse(shown) as string
    expect(text(await h.call('read', { path: name }))).toBe(`${shown}: lines 1-1 of 1\n     1\tneedle`)
  })
})
