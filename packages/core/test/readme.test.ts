import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { failures } from '../src/index.js'

// The README's table of model-visible messages must match what the pipeline really produces.
// Table cells may be padded by a formatter: compare with runs of spaces collapsed.
const squash = (text: string) => text.replace(/ {2,}/g, ' ')
const readme = squash(readFileSync(new URL('../README.md', import.meta.url), 'utf8'))

describe('core README', () => {
  it('shows the exact text of the pipeline’s failure messages', () => {
    const samples = [
      failures.unknownTool('ecko', ['echo']),
      failures.unknownTool('zzz', []),
      failures.approvalRejected('bash'),
      failures.approvalCancelled('bash'),
      failures.approvalUnavailable('bash', 'no one is available to answer the approval prompt'),
      failures.approvalUnsupported('bash'),
      failures.cancelledBeforeStart('read'),
      failures.siblingFailed('bash', 'call_2'),
      failures.aborted('bash'),
      failures.abortedUnresponsive('bash', 2000),
      failures.timeout('bash', 120000),
      failures.blocked(),
      failures.abortedAfterRun('read', 'a tools/post-execute listener', 2000),
      failures.stalled('read', 'a tools/pre-execute listener', 60000, false),
      failures.stalled('read', 'a tools/post-execute listener', 60000, true),
      failures.unknownTool('x'.repeat(100), []),
    ]
    for (const f of samples)
      expect(readme).toContain(squash(`| \`${f.kind}\` | \`${f.code}\` | ${f.message} |`))
  })
})
