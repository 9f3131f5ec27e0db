import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { discardSink } from '@toolgate/core'
import { probeSandbox } from '@toolgate/policy'
import { afterAll, describe, expect, test } from 'vitest'
import { createSession, sandboxLine } from '../src/wiring.js'

// The banner's sandbox line (issue 11 "Tests": the report says exactly what is enforced).
const checks = { disableUsernsFlag: true, userNamespacesDisabled: true, seccomp: true }

describe('sandboxLine', () => {
  test('enforced: the profile of the preset', () => {
    const probe = {
      status: 'enforced',
      available: true,
      backend: 'bubblewrap',
      bwrapPath: 'bwrap',
      checks,
    } as const
    expect(sandboxLine('read-only', probe)).toBe(
      'bubblewrap, read-only profile: workspace read-only; credential stores, .env files and host sockets hidden; no network',
    )
    expect(sandboxLine('workspace-write', probe)).toBe(
      "bubblewrap, workspace-write profile: workspace writable except .git, hooks and toolgate's settings; credential stores, .env files and host sockets hidden; no network",
    )
    expect(sandboxLine('danger-full-access', probe)).toBe(
      "bubblewrap, danger-full-access profile: everything writable except .git, hooks, toolgate's settings and the home directory's top level; credential stores, .env files and host sockets hidden; network on",
    )
  })

  test('partly enforced: what is missing, and that it counts as no sandbox', () => {
    expect(
      sandboxLine('workspace-write', {
        status: 'partial',
        available: true,
        backend: 'bubblewrap',
        bwrapPath: 'bwrap',
        checks: { disableUsernsFlag: false, userNamespacesDisabled: false, seccomp: true },
        missing: ['nested user namespaces are not disabled (--disable-userns needs bubblewrap 0.8 or later)'],
        diagnostic: 'd',
      }),
    ).toBe(
      'bubblewrap, partly enforced (treated as no sandbox: commands that are not read-only ask): nested user namespaces are not disabled (--disable-userns needs bubblewrap 0.8 or later)',
    )
  })

  test('unavailable: none, and where the fix is', () => {
    expect(sandboxLine('workspace-write', { status: 'unavailable', available: false, diagnostic: 'd' })).toBe(
      'none: bash runs unconfined, so commands that are not read-only ask (the "toolgate: note" line says why and how to fix it)',
    )
  })
})

const realBwrap = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
})()
const ci = process.env.CI === 'true'

describe.skipIf(realBwrap === undefined && !ci)('a partly enforced sandbox counts as none', async () => {
  const dir = mkdtempSync(join('/var/tmp', 'toolgate-cli-partial-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // A real bubblewrap that does not know --disable-userns (as bubblewrap before 0.8).
  const old = join(dir, 'old-bwrap')
  writeFileSync(
    old,
    `#!/bin/sh\nfor a; do case "$a" in --disable-userns|--assert-userns-disabled) echo "bwrap: Unknown option $a" >&2; exit 1;; esac; done\nexec ${realBwrap} "$@"\n`,
  )
  chmodSync(old, 0o755)

  test('workspace-write asks before a command that is not read-only; with the full sandbox it runs', async () => {
    expect((await probeSandbox(old)).status).toBe('partial')
    const root = join(dir, 'ws')
    execFileSync('mkdir', [root])
    const call = { callId: 'c1', name: 'bash', arguments: { command: 'touch made.txt' } }
    const partial = await createSession({
      root,
      preset: 'workspace-write',
      approvalPolicy: 'never',
      sink: discardSink(),
      isolated: true,
      bwrapPath: old,
    })
    expect(partial.sandbox).toMatch(/^bubblewrap, partly enforced \(treated as no sandbox/)
    const refused = await partial.runtime.execute(call)
    expect(refused.error?.code).toBe('PERMISSION_DENIED')
    expect(existsSync(join(root, 'made.txt'))).toBe(false)
    // Control: the same call with the real bubblewrap (fully enforced here) runs without asking.
    if ((await probeSandbox()).status !== 'enforced') return
    const full = await createSession({
      root,
      preset: 'workspace-write',
      approvalPolicy: 'never',
      sink: discardSink(),
      isolated: true,
    })
    const ran = await full.runtime.execute({ ...call, callId: 'c2' })
    expect(ran.isError).toBe(false)
    expect(existsSync(join(root, 'made.txt'))).toBe(true)
  })
})

describe.skipIf(realBwrap === undefined && !ci)('the profile follows the preset', () => {
  test('read-only: a write the rules allow still cannot write (bash runs under the read-only profile)', async () => {
    const root = mkdtempSync(join('/var/tmp', 'toolgate-cli-readonly-'))
    try {
      const session = await createSession({
        root,
        preset: 'read-only',
        approvalPolicy: 'never',
        sink: discardSink(),
        isolated: true,
        rules: [{ action: 'allow', rule: 'bash(touch made.txt)' }],
      })
      expect(session.sandbox).toBe(
        'bubblewrap, read-only profile: workspace read-only; credential stores, .env files and host sockets hidden; no network',
      )
      const r = await session.runtime.execute({
        callId: 'r1',
        name: 'bash',
        arguments: { command: 'touch made.txt' },
      })
      expect(r.isError).toBe(false)
      expect(r.value).toMatchObject({ exitCode: 1, sandbox: 'bubblewrap' })
      expect(existsSync(join(root, 'made.txt'))).toBe(false)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
