import { readFileSync, writeFileSync } from 'node:fs'
import { createRuntime } from '@toolgate/core'
import { describe, expect, it } from 'vitest'
import { builtinTools } from '../src/index.js'
import { tempDir } from './helpers.js'

// The README's "Model experience" section is generated from runtime.schemas(): exactly what a model
// is sent. This test fails when the README drifts; `UPDATE_README=1 npx vitest run
// packages/tools/test/readme.test.ts` rewrites the section.

const README = new URL('../README.md', import.meta.url)
const START = '<!-- model-experience:start -->'
const END = '<!-- model-experience:end -->'

function section(): string {
  const runtime = createRuntime()
  runtime.use(builtinTools({ root: tempDir(), sandbox: false }))
  const schemas = runtime.schemas()
  const rows = schemas.map((s) => {
    const chars = JSON.stringify(s).length
    return `| \`${s.name}\` | ${chars.toLocaleString('en-US')} | ~${Math.ceil(chars / 4).toLocaleString('en-US')} |`
  })
  const total = schemas.reduce((n, s) => n + JSON.stringify(s).length, 0)
  const out = [
    START,
    '',
    'Generated from `runtime.schemas()` by `test/readme.test.ts` (size = characters of the JSON tool',
    'declaration `{name, description, parameters}`; tokens ~ characters / 4).',
    '',
    '| tool | characters | tokens |',
    '|---|---|---|',
    ...rows,
    `| **all ${schemas.length}** | ${total.toLocaleString('en-US')} | ~${Math.ceil(total / 4).toLocaleString('en-US')} |`,
    '',
  ]
  for (const s of schemas) {
    out.push(
      `#### \`${s.name}\``,
      '',
      s.description,
      '',
      '```json',
      JSON.stringify(s.parameters, null, 2),
      '```',
      '',
    )
  }
  out.push(END)
  return out.join('\n')
}

describe('README model experience', () => {
  it('matches the schemas the runtime sends', () => {
    const readme = readFileSync(README, 'utf8')
    const start = readme.indexOf(START)
    const end = readme.indexOf(END)
    const generated = section()
    if (process.env.UPDATE_README === '1') {
      writeFileSync(README, `${readme.slice(0, start)}${generated}${readme.slice(end + END.length)}`)
      return
    }
    expect(start).toBeGreaterThan(-1)
    expect(readme.slice(start, end + END.length)).toBe(generated)
  })
})
