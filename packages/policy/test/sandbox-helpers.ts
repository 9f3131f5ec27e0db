import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { confine, probeSandbox, type SandboxPolicy } from '@toolgate/policy'
import { expect, test } from 'vitest'

// Shared by the sandbox test files: real bubblewrap, real bash, real git, real files. On a machine
// without a working sandbox the suites skip with a message; under CI=true they fail instead.

export const probe = await probeSandbox()
export const ci = process.env.CI === 'true'
export const usable = probe.available

/** One test that fails under CI when the sandbox is missing or only partly enforced. */
export function requireSandbox(what: string): void {
  if (probe.status !== 'enforced' && !ci) {
    console.warn(`SKIPPING ${what}: ${probe.available ? probe.diagnostic : probe.diagnostic}`)
  }
  test('bubblewrap is available and fully enforced (required under CI=true)', () => {
    if (!ci && probe.status !== 'enforced') return
    expect(probe).toMatchObject({ status: 'enforced', available: true, backend: 'bubblewrap' })
  })
}

export interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** Notes from `finish()` (git state files not written back). */
  readonly notes: readonly string[]
}

/** A directory for a test, not under /tmp (the sandbox's /tmp is private). */
export function base(prefix: string): string {
  const root = existsSync('/var/tmp') ? '/var/tmp' : tmpdir()
  return mkdtempSync(join(root, `toolgate-${prefix}-`))
}

/**
 * Run `bash -c command` confined by `policy`, the way the bash tool does: the confinement's argv,
 * environment and descriptors, `finish()` after the process ended.
 */
export async function run(
  command: string,
  policy: SandboxPolicy,
  options: { env?: NodeJS.ProcessEnv; bwrapPath?: string; expectEnforcement?: boolean } = {},
): Promise<Ran> {
  const c = await confine(['bash', '-c', command], policy, {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }),
  })
  if (options.expectEnforcement !== false) expect(c.enforcement).toBe('bubblewrap')
  return new Promise((resolve, reject) => {
    const child = spawn(c.argv[0]!, c.argv.slice(1), {
      env: c.env,
      stdio: ['ignore', 'pipe', 'pipe', ...c.fds],
      detached: true,
    })
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    child.on('error', (error) => {
      c.finish()
      reject(error)
    })
    child.on('close', (code) => resolve({ code, stdout, stderr, notes: c.finish() }))
  })
}

/** A clean environment for git on the host: no global or system configuration of this machine. */
export function hostGitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'host',
    GIT_AUTHOR_EMAIL: 'host@example.com',
    GIT_COMMITTER_NAME: 'host',
    GIT_COMMITTER_EMAIL: 'host@example.com',
  }
}

/** Run git on the HOST, outside any sandbox, as the user would (the payloads target this). */
export function hostGit(
  cwd: string,
  args: readonly string[],
  home: string,
): { status: number | null; out: string } {
  const r = spawnSync('git', args, { cwd, env: hostGitEnv(home), encoding: 'utf8', timeout: 30_000 })
  return { status: r.status, out: `${r.stdout}${r.stderr}` }
}

/**
 * A workspace holding a git repository with one commit, a host home without git configuration,
 * and `pwned`: a path OUTSIDE the workspace that every payload tries to create. The sandbox cannot
 * write there (read-only), so only a payload run by the host's git can.
 */
export interface Fixture {
  readonly dir: string
  readonly ws: string
  readonly home: string
  readonly pwned: string
  git(args: readonly string[], cwd?: string): { status: number | null; out: string }
  cleanup(): void
}

export function fixture(prefix: string, options: { repo?: boolean } = {}): Fixture {
  const dir = base(prefix)
  const ws = join(dir, 'ws')
  const home = join(dir, 'home')
  mkdirSync(ws)
  mkdirSync(home)
  const f: Fixture = {
    dir,
    ws,
    home,
    pwned: join(dir, 'pwned'),
    git: (args, cwd = ws) => hostGit(cwd, args, home),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
  if (options.repo !== false) {
    expect(f.git(['init', '-q', '-b', 'main']).status).toBe(0)
    writeFileSync(join(ws, 'a.txt'), 'a\n')
    expect(f.git(['add', 'a.txt']).status).toBe(0)
    expect(f.git(['commit', '-qm', 'first']).status).toBe(0)
  }
  return f
}

/** The bash environment a test passes: this process's, with HOME pointing at the fixture's home. */
export function envWithHome(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, ...extra }
}

export function read(path: string): string {
  return readFileSync(path, 'utf8')
}

export function list(dir: string): string[] {
  return readdirSync(dir).sort()
}

/** Host pids whose argv[0] starts with `marker` (scans the host's /proc). */
export function hostProcessesWith(marker: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').startsWith(marker)) found.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** Poll a condition that something else makes true (bounded: every wait has a deadline). */
export async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}
