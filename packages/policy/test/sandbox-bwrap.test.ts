import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Confinement, confine, probeSandbox, type SandboxPolicy } from '@toolgate/policy'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// Real bubblewrap, real processes. On a developer machine without bwrap these tests are skipped
// with a message; under CI (CI=true) a missing or broken bwrap fails the run instead.
const probe = await probeSandbox()
const ci = process.env.CI === 'true'
if (!probe.available && !ci) {
  console.warn(`SKIPPING bubblewrap sandbox tests: ${probe.diagnostic}`)
}

test('bubblewrap is available (required under CI=true)', () => {
  if (!ci && !probe.available) return
  expect(probe).toEqual({ available: true, backend: 'bubblewrap', bwrapPath: 'bwrap' })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function run(c: Confinement): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(c.argv[0]!, c.argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

async function sh(script: string, policy: SandboxPolicy): Promise<Run> {
  const c = await confine(['/bin/sh', '-c', script], policy)
  expect(c.enforcement).toBe('bubblewrap')
  return run(c)
}

describe.skipIf(!probe.available)('bubblewrap sandbox (real processes)', () => {
  let base: string
  let ws: string
  let outside: string
  let server: Server
  let port: number
  const policy = (extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
    mode: 'workspace-write',
    root: ws,
    ...extra,
  })

  beforeAll(async () => {
    // Not under /tmp: the sandbox's private /tmp would hide it (tested separately below).
    base = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'toolgate-sandbox-'))
    ws = join(base, 'ws')
    outside = join(base, 'outside')
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true })
    writeFileSync(join(ws, '.git', 'config'), '[core]\n')
    mkdirSync(outside)
    symlinkSync(outside, join(ws, 'link-out'))
    server = createServer((_req, res) => res.end('reached'))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as { port: number }).port
  })
  afterAll(async () => {
    await new Promise((r) => server.close(r))
    rmSync(base, { recursive: true, force: true })
  })

  test('workspace-write: a write inside the workspace works', async () => {
    const r = await sh('echo inside > inside.txt', policy())
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' })
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('inside\n')
  })

  test('workspace-write: a write outside the workspace fails (read-only file system)', async () => {
    const r = await sh(`echo x > ${outside}/f`, policy())
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('Read-only file system')
    expect(existsSync(join(outside, 'f'))).toBe(false)
  })

  test('workspace-write: escape through a symlink or .. fails', async () => {
    const viaLink = await sh('echo x > link-out/via-link', policy())
    expect(viaLink.code).not.toBe(0)
    expect(viaLink.stderr).toContain('Read-only file system')
    const viaDots = await sh('echo x > ../outside/via-dots', policy())
    expect(viaDots.code).not.toBe(0)
    expect(viaDots.stderr).toContain('Read-only file system')
    expect(existsSync(join(outside, 'via-link'))).toBe(false)
    expect(existsSync(join(outside, 'via-dots'))).toBe(false)
  })

  test('workspace-write: .git/hooks and .git/config stay read-only inside the writable workspace', async () => {
    const hook = await sh('echo "#!/bin/sh" > .git/hooks/pre-commit', policy())
    expect(hook.code).not.toBe(0)
    expect(hook.stderr).toContain('Read-only file system')
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false)
    const config = await sh('echo "[core] fsmonitor = evil" >> .git/config', policy())
    expect(config.code).not.toBe(0)
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n')
    // The rest of .git stays writable (git commit must work in the sandbox).
    const objects = await sh('echo ok > .git/HEAD', policy())
    expect(objects.code).toBe(0)
  })

  test('workspace-write: a missing .toolgate cannot be created to grant permissions', async () => {
    const r = await sh('mkdir -p .toolgate && echo {} > .toolgate/settings.json', policy())
    expect(r.code).not.toBe(0)
    expect(existsSync(join(ws, '.toolgate', 'settings.json'))).toBe(false)
  })

  test('no network: a connection to a server on the host loopback is refused', async () => {
    const script = `require('http').get('http://127.0.0.1:${port}/', (res) => { res.on('data', (d) => process.stdout.write(d)) }).on('error', (e) => { process.stdout.write(e.code); process.exitCode = 3 })`
    const denied = await run(await confine([process.execPath, '-e', script], policy()))
    expect(denied).toEqual({ code: 3, stdout: 'ECONNREFUSED', stderr: '' })
    // Control: the same command with network allowed reaches the server, so the check above is real.
    const allowed = await run(await confine([process.execPath, '-e', script], policy({ network: true })))
    expect(allowed).toEqual({ code: 0, stdout: 'reached', stderr: '' })
  })

  test('read-only: the workspace is not writable, the private /tmp is', async () => {
    const r = await sh('echo x > ro.txt', policy({ mode: 'read-only' }))
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('Read-only file system')
    expect(existsSync(join(ws, 'ro.txt'))).toBe(false)
    const tmp = await sh(
      'echo x > /tmp/toolgate-private && cat /tmp/toolgate-private',
      policy({ mode: 'read-only' }),
    )
    expect(tmp).toEqual({ code: 0, stdout: 'x\n', stderr: '' })
    expect(existsSync('/tmp/toolgate-private')).toBe(false)
  })

  test('a workspace under /tmp stays visible (and read-only) in read-only mode', async () => {
    const tmpWs = mkdtempSync(join(tmpdir(), 'toolgate-ws-'))
    try {
      writeFileSync(join(tmpWs, 'a.txt'), 'visible')
      const r = await sh('cat a.txt; echo x > b.txt', { mode: 'read-only', root: tmpWs })
      expect(r.stdout).toBe('visible')
      expect(r.stderr).toContain('Read-only file system')
      const w = await sh('echo x > b.txt && cat b.txt', { mode: 'workspace-write', root: tmpWs })
      expect(w).toEqual({ code: 0, stdout: 'x\n', stderr: '' })
    } finally {
      rmSync(tmpWs, { recursive: true, force: true })
    }
  })

  test('tmpDir: a session directory is mounted as /tmp', async () => {
    const sessionTmp = join(base, 'session-tmp')
    mkdirSync(sessionTmp)
    const r = await sh('echo kept > /tmp/k', policy({ tmpDir: sessionTmp }))
    expect(r.code).toBe(0)
    expect(readFileSync(join(sessionTmp, 'k'), 'utf8')).toBe('kept\n')
  })

  test('the command sees only its own processes (pid namespace)', async () => {
    const r = await sh('ls /proc | grep -c "^[0-9]"', policy())
    expect(r.code).toBe(0)
    // bwrap's init, sh, ls and grep: nothing of the host.
    expect(Number(r.stdout.trim())).toBeLessThanOrEqual(5)
  })
})

describe('without a sandbox', () => {
  test('danger-full-access runs unconfined by choice and says so', async () => {
    expect(await confine(['ls', '-la'], { mode: 'danger-full-access', root: '/tmp' })).toEqual({
      argv: ['ls', '-la'],
      enforcement: 'none',
      diagnostic:
        'danger-full-access: no sandbox by choice (protected paths are still enforced by the permission engine)',
    })
  })

  test('a missing bwrap gives enforcement none with an actionable diagnostic', async () => {
    const c = await confine(
      ['ls'],
      { mode: 'workspace-write', root: '/tmp' },
      { bwrapPath: '/nonexistent/bwrap' },
    )
    expect(c.enforcement).toBe('none')
    expect(c.argv).toEqual(['ls'])
    expect(c.diagnostic).toBe(
      "bubblewrap is not installed ('/nonexistent/bwrap' not found): install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap). Until then commands run unconfined and bash commands that are not read-only need approval.",
    )
  })

  test('a bwrap that fails to start is reported with the fix for user namespaces', async () => {
    const c = await confine(['ls'], { mode: 'workspace-write', root: '/tmp' }, { bwrapPath: '/bin/false' })
    expect(c.enforcement).toBe('none')
    expect(c.diagnostic).toMatch(
      /^bubblewrap failed to start a sandbox: Command failed: .*Usually unprivileged user namespaces are disabled/,
    )
  })
})
