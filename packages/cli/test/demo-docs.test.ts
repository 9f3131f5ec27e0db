// The demo is described in three places — `demo --help`, the README and the CLI README — and its
// output is shown in the CLI README. All of them are checked against what the demo really does,
// like the README tour: the step list is one constant, the sample is compared with a live run.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { DEMO_STEPS } from '../src/demo/steps.js'
import { main } from '../src/index.js'
import { testIO } from './helpers.js'

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')
const cliReadme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const steps = DEMO_STEPS.map((step, i) => `${i + 1}. ${step}`)

/**
 * What may differ between two runs: durations, temp paths, the sandbox this machine has, which
 * parallel reads overlapped, and the order in which the settled cards of one parallel batch arrive.
 */
function normalize(out: string): string {
  const text = out
    .replace(/\/tmp\/[^\s]*?\/toolgate-demo-\w+\//g, '<demo>/')
    .replace(/ ‖ parallel/g, '')
    .replace(/ {2}\d+(\.\d+)?(ms|s)$/gm, '  <time>')
    .replace(/^( {2}time {6}).*$/m, '$1<time>')
    .replace(/^( {2}parallel {2}).*$/m, '$1<parallel>')
    .replace(/^(sandbox {3}).*$/m, '$1<sandbox>')
  // Settled cards of a batch print in completion order: sort each run of consecutive settled cards.
  const lines = text.split('\n')
  const out2: string[] = []
  let run: string[][] = []
  const flushRun = () => {
    out2.push(...run.sort((a, b) => a[0]!.localeCompare(b[0]!)).flat())
    run = []
  }
  for (const line of lines) {
    if (/^[✓✗] /.test(line)) run.push([line])
    else if (line.startsWith('  │ ') && run.length > 0) run[run.length - 1]!.push(line)
    else {
      flushRun()
      out2.push(line)
    }
  }
  flushRun()
  return out2.join('\n')
}

function sample(markdown: string, heading: string): string {
  const at = markdown.indexOf(heading)
  expect(at, `${heading} in the README`).toBeGreaterThan(-1)
  const start = markdown.indexOf('```text\n', at) + '```text\n'.length
  return markdown.slice(start, markdown.indexOf('```', start))
}

describe('the demo as documented', () => {
  test('demo --help, the README and the CLI README list the same steps, in order', async () => {
    const { io, stdout } = testIO()
    expect(await main(['demo', '--help'], io)).toBe(0)
    const help = stdout.text()
    for (const step of steps) {
      expect(help).toContain(`  ${step}`)
      expect(readme).toContain(step)
      expect(cliReadme).toContain(step)
    }
    // In order: each step after the one before.
    for (const text of [help, readme, cliReadme]) {
      const at = steps.map((s) => text.indexOf(s))
      expect(at).toEqual([...at].sort((a, b) => a - b))
    }
  })

  test('the CLI README sample is what `toolgate demo` prints (not a TTY)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-demo-docs-'))
    const { io, stdout } = testIO()
    expect(await main(['demo', '--dir', dir], io)).toBe(0)
    expect(normalize(stdout.text())).toBe(
      normalize(sample(cliReadme, '## Sample: `toolgate demo` (not a TTY)')),
    )
  }, 120_000)
})
