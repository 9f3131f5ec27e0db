import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { confine, probeSandbox } from '@toolgate/policy'
import { afterAll, describe, expect, test } from 'vitest'
import { judge } from '../src/sandbox/probe.js'
import { base, ci, probe, run } from './sandbox-helpers.js'

// What the sandbox reports about itself (issue 11 §2, "Tests"): enforced, partly enforced (with
// exactly what is missing), or unavailable (with how to fix it). Real bubblewrap where it exists;
// the broken ones are real programs too (a missing path, /bin/false, wrappers around bwrap).

const dir = base('probe')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const realBwrap = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
})()

/** A bwrap wrapper: refuses the options an old bubblewrap does not know, or drops some. */
function wrapper(name: string, body: string): string {
  const path = join(dir, name)
  writeFileSync(path, `#!/bin/sh\n${body}\n`)
  chmodSync(path, 0o755)
  return path
}

describe('without bubblewrap', () => {
  test('a missing bwrap: unavailable, with how to install it; commands run unconfined with the allowlist', async () => {
    const missing = join(dir, 'no-such-bwrap')
    expect(await probeSandbox(missing)).toEqual({
      status: 'unavailable',
      available: false,
      diagnostic: `bubblewrap is not installed ('${missing}' not found): install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap). Until then commands run unconfined and bash commands that are not read-only need approval.`,
    })
    const c = await confine(
      ['ls'],
      { mode: 'workspace-write', root: dir },
      { bwrapPath: missing, env: { PATH: '/usr/bin:/bin', OPENAI_API_KEY: 'sk-x', HOME: '/h' } },
    )
    expect(c.argv).toEqual(['ls'])
    expect(c.enforcement).toBe('none')
    expect(c.fds).toEqual([])
    expect(c.env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/h',
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'safe.bareRepository',
      GIT_CONFIG_VALUE_0: 'explicit',
      GIT_CONFIG_KEY_1: 'core.fsmonitor',
      GIT_CONFIG_VALUE_1: 'false',
    })
    expect(c.finish()).toEqual([])
  })

  test('a bwrap that fails to start: unavailable, with the fix for user namespaces', async () => {
    const p = await probeSandbox('/bin/false')
    expect(p.status).toBe('unavailable')
    expect(p.available).toBe(false)
    expect(!p.available && p.diagnostic).toBe(
      'bubblewrap failed to start a sandbox: exit code 1. Usually unprivileged user namespaces are disabled: enable them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ also kernel.apparmor_restrict_unprivileged_userns=0), or in a container allow them (docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined). Until then commands run unconfined and bash commands that are not read-only need approval.',
    )
  })
})

describe('the verdict on what the sandboxed shell reported', () => {
  const good =
    'CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nSeccomp:\t2\nremount=32\n'
  test('everything holds: enforced', () => {
    expect(judge(good, 'bwrap', true, true)).toEqual({
      status: 'enforced',
      available: true,
      backend: 'bubblewrap',
      bwrapPath: 'bwrap',
      checks: { disableUsernsFlag: true, userNamespacesDisabled: true, seccomp: true },
    })
  })
  test('capabilities left and a remount that works: partial, each named', () => {
    const p = judge(
      good
        .replace('CapEff:\t0000000000000000', 'CapEff:\t000001ffffffffff')
        .replace('remount=32', 'remount=0'),
      'bwrap',
      true,
      true,
    )
    expect(p).toMatchObject({
      status: 'partial',
      missing: [
        'capabilities remain inside the sandbox (CapEff=000001ffffffffff)',
        'the root filesystem can be remounted writable',
      ],
    })
    expect(p.status === 'partial' && p.diagnostic).toBe(
      'bubblewrap runs, but the sandbox is only partly enforced: capabilities remain inside the sandbox (CapEff=000001ffffffffff); the root filesystem can be remounted writable. toolgate treats it as no sandbox: bash commands that are not read-only need approval. To fix it: use a bubblewrap that supports --unshare-user and --cap-drop (not a setuid build).',
    )
  })
  test('no mount program, no seccomp filter, no --disable-userns: partial, each named', () => {
    const p = judge(
      good.replace('remount=32', 'remount=127').replace('Seccomp:\t2', 'Seccomp:\t0'),
      'bwrap',
      false,
      true,
    )
    expect(p).toMatchObject({
      status: 'partial',
      checks: { disableUsernsFlag: false, userNamespacesDisabled: false, seccomp: false },
      missing: [
        'could not check that remounting fails (no mount program in the sandbox)',
        'nested user namespaces are not disabled (--disable-userns needs bubblewrap 0.8 or later)',
        'the unix-socket seccomp filter is not in force',
      ],
    })
  })
  test('an architecture without a filter: partial', () => {
    expect(judge(good, 'bwrap', true, false)).toMatchObject({
      status: 'partial',
      missing: [`no unix-socket filter for this architecture (${process.arch})`],
    })
  })
})

describe.skipIf(realBwrap === undefined)('with real bubblewrap', () => {
  test('this host: fully enforced (required under CI=true)', () => {
    if (!ci && probe.status !== 'enforced') return
    expect(probe).toMatchObject({
      status: 'enforced',
      checks: { disableUsernsFlag: true, userNamespacesDisabled: true, seccomp: true },
    })
  })

  test('an old bubblewrap without --disable-userns: partly enforced, and commands still run confined', async () => {
    const old = wrapper(
      'old-bwrap',
      `for a; do case "$a" in --disable-userns|--assert-userns-disabled) echo "bwrap: Unknown option $a" >&2; exit 1;; esac; done\nexec ${realBwrap} "$@"`,
    )
    const p = await probeSandbox(old)
    expect(p).toMatchObject({
      status: 'partial',
      available: true,
      checks: { disableUsernsFlag: false, userNamespacesDisabled: false, seccomp: true },
      missing: ['nested user namespaces are not disabled (--disable-userns needs bubblewrap 0.8 or later)'],
    })
    const ws = join(dir, 'ws-old')
    mkdirSync(ws)
    const r = await run(
      `echo x > ${join(dir, 'escaped')}; echo "$?"`,
      { mode: 'workspace-write', root: ws },
      {
        bwrapPath: old,
        expectEnforcement: false,
      },
    )
    expect(r.stdout).toBe('1\n')
    expect(existsSync(join(dir, 'escaped'))).toBe(false)
    const c = await confine(['true'], { mode: 'workspace-write', root: ws }, { bwrapPath: old })
    expect(c.enforcement).toBe('partial')
    expect(c.diagnostic).toBe(p.status === 'partial' ? p.diagnostic : undefined)
    c.finish()
  })

  test('a bubblewrap run without a user namespace: as root the capabilities stay, and the probe says so', async () => {
    const privileged = wrapper(
      'privileged-bwrap',
      [
        'for a; do shift; case "$a" in --unshare-user|--disable-userns|--assert-userns-disabled) ;; --cap-drop) skip=1 ;; *) if [ -n "$skip" ]; then skip=; else set -- "$@" "$a"; fi ;; esac; done',
        `exec ${realBwrap} "$@"`,
      ].join('\n'),
    )
    const p = await probeSandbox(privileged)
    expect(p.status).toBe('partial')
    const missing = p.status === 'partial' ? p.missing : []
    if (process.getuid?.() === 0) {
      // Root without a user namespace: every capability is left, remounting works.
      expect(missing).toHaveLength(3)
      expect(missing[0]).toMatch(
        /^capabilities remain inside the sandbox \(CapEff=0*[1-9a-f][0-9a-f]*, CapPrm=0*[1-9a-f][0-9a-f]*, CapBnd=0*[1-9a-f][0-9a-f]*\)$/,
      )
      expect(missing.slice(1)).toEqual([
        'the root filesystem can be remounted writable',
        'nested user namespaces can be created inside the sandbox',
      ])
    } else {
      // An unprivileged bwrap makes a user namespace itself and keeps no capabilities; what the
      // wrapper dropped silently (--disable-userns) is found by trying.
      expect(missing).toEqual(['nested user namespaces can be created inside the sandbox'])
    }
  })
})
