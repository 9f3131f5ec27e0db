import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SandboxPolicy } from '@toolgate/policy'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { base, hostProcessesWith, requireSandbox, run, until, usable } from './sandbox-helpers.js'

// The profile's basic behaviour with real bubblewrap and real processes (the attacks are in
// sandbox-escape.test.ts). Without bwrap these skip with a message; under CI=true they fail.

requireSandbox('the bubblewrap profile tests')

describe.skipIf(!usable)('bubblewrap profile (real processes)', () => {
  let dir: string
  let ws: string
  let outside: string
  const policy = (extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
    mode: 'workspace-write',
    root: ws,
    ...extra,
  })
  const sh = (script: string, extra: Partial<SandboxPolicy> = {}) => run(script, policy(extra))

  beforeAll(() => {
    // Not under /tmp: the sandbox's private /tmp would hide it (tested separately below).
    dir = base('profile')
    ws = join(dir, 'ws')
    outside = join(dir, 'outside')
    mkdirSync(ws)
    mkdirSync(outside)
    symlinkSync(outside, join(ws, 'link-out'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('workspace-write: a write inside the workspace works', async () => {
    const r = await sh('echo inside > inside.txt')
    expect(r).toEqual({ code: 0, stdout: '', stderr: '', notes: [] })
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('inside\n')
  })

  test('workspace-write: a write outside the workspace fails (read-only file system)', async () => {
    const r = await sh(`echo x > ${outside}/f`)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('Read-only file system')
    expect(existsSync(join(outside, 'f'))).toBe(false)
  })

  test('workspace-write: escape through a symlink or .. fails', async () => {
    const viaLink = await sh('echo x > link-out/via-link')
    expect(viaLink.stderr).toContain('Read-only file system')
    const viaDots = await sh('echo x > ../outside/via-dots')
    expect(viaDots.stderr).toContain('Read-only file system')
    expect(existsSync(join(outside, 'via-link'))).toBe(false)
    expect(existsSync(join(outside, 'via-dots'))).toBe(false)
  })

  test('workspace-write: a missing .toolgate cannot be created to grant permissions', async () => {
    const r = await sh('mkdir -p .toolgate && echo {} > .toolgate/settings.json')
    expect(r.code).not.toBe(0)
    expect(existsSync(join(ws, '.toolgate', 'settings.json'))).toBe(false)
  })

  test('read-only: the workspace is not writable, the private /tmp is', async () => {
    const r = await sh('echo x > ro.txt', { mode: 'read-only' })
    expect(r.stderr).toContain('Read-only file system')
    expect(existsSync(join(ws, 'ro.txt'))).toBe(false)
    const tmp = await sh('echo x > /tmp/toolgate-private && cat /tmp/toolgate-private', { mode: 'read-only' })
    expect(tmp).toEqual({ code: 0, stdout: 'x\n', stderr: '', notes: [] })
    expect(existsSync('/tmp/toolgate-private')).toBe(false)
  })

  test('a workspace under /tmp stays visible (read-only in read-only mode, writable in workspace-write)', async () => {
    const tmpWs = mkdtempSync(join(tmpdir(), 'toolgate-ws-'))
    try {
      writeFileSync(join(tmpWs, 'a.txt'), 'visible')
      const r = await run('cat a.txt; echo x > b.txt', { mode: 'read-only', root: tmpWs })
      expect(r.stdout).toBe('visible')
      expect(r.stderr).toContain('Read-only file system')
      const w = await run('echo x > b.txt && cat b.txt', { mode: 'workspace-write', root: tmpWs })
      expect(w).toMatchObject({ code: 0, stdout: 'x\n', stderr: '' })
    } finally {
      rmSync(tmpWs, { recursive: true, force: true })
    }
  })

  test('tmpDir: a session directory is mounted as /tmp', async () => {
    const sessionTmp = join(dir, 'session-tmp')
    mkdirSync(sessionTmp)
    const r = await sh('echo kept > /tmp/k', { tmpDir: sessionTmp })
    expect(r.code).toBe(0)
    expect(readFileSync(join(sessionTmp, 'k'), 'utf8')).toBe('kept\n')
  })

  test('the command sees only its own processes (pid namespace)', async () => {
    const r = await sh('ls /proc | grep -c "^[0-9]"')
    expect(r.code).toBe(0)
    // bwrap's init, bash, ls and grep: nothing of the host.
    expect(Number(r.stdout.trim())).toBeLessThanOrEqual(5)
  })

  test('processes started with & or setsid end with the command', async () => {
    const marker = `toolgate-leftover-${process.pid}-${Date.now()}`
    const r = await sh(
      [
        `(exec -a ${marker}-a sleep 300) >/dev/null 2>&1 &`,
        `setsid bash -c 'exec -a ${marker}-b sleep 300' >/dev/null 2>&1 &`,
        // Both are running when the command ends (counted by their argv[0]).
        `count() { n=0; for f in /proc/[0-9]*/cmdline; do case "$(tr '\\0' ' ' < "$f" 2>/dev/null)" in ${marker}-?' '*) n=$((n+1));; esac; done; echo $n; };`,
        'until [ "$(count)" = 2 ]; do sleep 0.01; done; echo started',
      ].join(' '),
    )
    expect(r.stdout).toBe('started\n')
    // The pid namespace ended with the command (the kernel may take a moment to reap it).
    await until(() => hostProcessesWith(`${marker}-`).length === 0, 'the leftovers to end', 5000)
  })
})
