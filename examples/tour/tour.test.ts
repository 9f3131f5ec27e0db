import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// The README's five-minute tour is these files, verbatim: this test runs each one and checks
// that the README still shows exactly what runs.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const source = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8')

describe('README tour', () => {
  it('shows every tour file verbatim', () => {
    for (const file of [
      '01-first-tool.ts',
      '02-policy-and-approval.ts',
      '03-batch.ts',
      '04-builtin-tools.ts',
    ]) {
      const body = source(file)
        .split('\n')
        .filter((line) => !line.startsWith('//'))
        .join('\n')
        .trim()
      expect(readme).toContain(body)
    }
  })

  it('01: a typed tool and one call', async () => {
    const { main } = await import('./01-first-tool.js')
    const { ok, bad } = await main()
    expect(ok.content).toEqual([{ type: 'text', text: 'HELLO' }])
    expect(bad.error?.code).toBe('INVALID_ARGS')
  })

  it('02: ask, approve, guard, log', async () => {
    const { main } = await import('./02-policy-and-approval.js')
    const { allowed, guarded, events } = await main()
    expect(allowed.content).toEqual([{ type: 'text', text: 'deployed web' }])
    expect(guarded.error).toEqual({
      kind: 'permission_denied',
      code: 'PERMISSION_DENIED',
      message:
        'This deploy call was denied by a guard: billing is frozen this week; deploy another service. It did not run and no approval can allow it; do not retry it: take a different approach.',
    })
    expect(events.map((e) => e.type)).toEqual([
      'tool/call',
      'approval/asked',
      'approval/decided',
      'tool/result',
      'tool/call',
      'approval/asked',
      'approval/decided',
      'tool/result',
    ])
  })

  it('03: a batch in model order', async () => {
    const { main } = await import('./03-batch.js')
    const { results, started } = await main()
    expect(results.map((r) => r.callId)).toEqual(['1', '2', '3'])
    expect(started).toEqual(['slow', 'fast'])
    expect(results[2]?.error?.code).toBe('UNKNOWN_TOOL')
  })

  it('04: built-in tools under the permission engine', async () => {
    const { main } = await import('./04-builtin-tools.js')
    const { results } = await main()
    expect(results.map((r) => (r.isError ? r.error?.code : 'ok'))).toEqual([
      'ok',
      'PERMISSION_DENIED',
      'PERMISSION_DENIED',
    ])
  })
})
