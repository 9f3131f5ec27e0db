import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/**
 * Proof by running (issue 12): a throwaway fixture (a workspace with a git repository and a home),
 * marker programs on PATH that record that they ran, and real bash, confined by bubblewrap when it
 * is available (the whole file system read-only but the fixture, no network), so that a command the
 * classifier wrongly calls read-only cannot harm the machine running the tests. A run reports every
 * path that changed in the fixture and every marker that ran.
 */

export const bwrapAvailable = (() => {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--', '/bin/true'], {
      stdio: 'ignore',
      timeout: 10_000,
    })
    return true
  } catch {
    return false
  }
})()

/** Programs that must never run from a read-only command; each records its name when run. */
const MARKERS = [
  'pwned',
  'gpg',
  'textconv-marker',
  'pager-marker',
  'extdiff-marker',
  'fsmonitor-marker',
] as const

export interface Fixture {
  readonly base: string
  /** The workspace (a git repository with a commit) where commands run. */
  readonly root: string
  readonly home: string
  readonly markers: string
  write(relativeToRoot: string, content?: string): void
  cleanup(): void
}

const FILES: Readonly<Record<string, string>> = {
  'README.md': '# fixture\n',
  'package.json': '{"name":"fixture","version":"1.0.0","scripts":{"test":"echo ok"}}\n',
  'notes.txt': 'alpha\nbeta\ngamma\n',
  'src/index.ts': 'export const x = 1\n// TODO: more\n',
  'src/util.ts': 'export const y = 2\n',
  'data.csv': 'a,b\n1,2\n',
  '.env': 'SECRET=1\n',
}

/** `minimal`: only the files and the home, no repositories or archives (fast to snapshot). */
export function makeFixture(options: { readonly minimal?: boolean } = {}): Fixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-proof-')))
  const root = join(base, 'work')
  const home = join(base, 'home')
  const markers = join(base, 'markers')
  const bin = join(base, 'bin')
  for (const d of [root, home, markers, bin]) mkdirSync(d, { recursive: true })
  for (const [path, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  mkdirSync(join(home, '.ssh'), { recursive: true })
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n')
  for (const m of MARKERS) {
    const file = join(bin, m)
    writeFileSync(file, `#!/bin/sh\necho "${m} $*" >> '${markers}/ran'\n`)
    chmodSync(file, 0o755)
  }
  const fixture: Fixture = {
    base,
    root,
    home,
    markers,
    write(rel, content = '') {
      mkdirSync(dirname(join(root, rel)), { recursive: true })
      writeFileSync(join(root, rel), content)
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  }
  if (options.minimal === true) return fixture
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, stdio: 'ignore', env: { ...gitEnv(home), HOME: home } })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init')
  writeFileSync(join(root, 'notes.txt'), 'alpha\nbeta\ngamma\ndelta\n') // an unstaged change for diffs
  // Archives for the listing modes, untracked.
  const run = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { cwd: root, stdio: 'ignore' })
  run('tar', '-cf', 'fixture.tar', 'README.md', 'src')
  run('tar', '-czf', 'fixture.tgz', 'README.md')
  run('zip', '-q', 'fixture.zip', 'README.md')
  run('sh', '-c', 'gzip -c notes.txt > notes.txt.gz')
  // A nested repository whose configuration runs a program on `git status` (issue 12 §6).
  const evil = join(root, 'vendor', 'evil')
  mkdirSync(evil, { recursive: true })
  execFileSync('git', ['init', '-q', evil], { stdio: 'ignore', env: gitEnv(home) })
  execFileSync('git', ['-C', evil, 'config', 'core.fsmonitor', 'fsmonitor-marker'], {
    stdio: 'ignore',
    env: gitEnv(home),
  })
  writeFileSync(join(evil, 'x'), 'x\n')
  // Old times on the work tree, then a refreshed index: `git status` in a run has no stat cache to
  // rewrite (git's optional index refresh is not what these proofs are about).
  ageTree(root)
  git('update-index', '-q', '--refresh')
  return fixture
}

function ageTree(dir: string): void {
  const old = new Date('2020-01-01T00:00:00Z')
  for (const name of readdirSync(dir)) {
    if (name === '.git') continue
    const path = join(dir, name)
    if (lstatSync(path).isDirectory()) ageTree(path)
    utimesSync(path, old, old)
  }
}

function gitEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C.UTF-8' }
}

export interface RunResult {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  /** Paths (relative to the fixture base) created, deleted or changed. */
  readonly changed: readonly string[]
  /** Marker programs that ran, with their arguments. */
  readonly ran: readonly string[]
}

/**
 * Run `command` with bash in the fixture's workspace and report what changed. `pidNamespace`: in a
 * new pid namespace, as the bash tool's sandbox runs commands (pid 1 is then bubblewrap).
 */
export function runBash(
  f: Fixture,
  command: string,
  timeoutMs = 5_000,
  options: { readonly pidNamespace?: boolean } = {},
): RunResult {
  const before = snapshot(f.base)
  const env = { ...gitEnv(f.home), PATH: `${join(f.base, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` }
  const argv = bwrapAvailable
    ? [
        'bwrap',
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--tmpfs',
        '/tmp',
        '--bind',
        f.base,
        f.base,
        '--unshare-net',
        ...(options.pidNamespace === true ? ['--unshare-pid'] : []),
        '--die-with-parent',
        '--chdir',
        f.root,
        '--',
        'bash',
        '-c',
        command,
      ]
    : ['bash', '-c', command]
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd: f.root,
    env,
    timeout: timeoutMs,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const after = snapshot(f.base)
  const changed: string[] = []
  for (const [p, v] of after) if (before.get(p) !== v && !p.startsWith('markers/')) changed.push(p)
  for (const p of before.keys()) if (!after.has(p)) changed.push(p)
  let ran: string[] = []
  try {
    ran = readFileSync(join(f.markers, 'ran'), 'utf8').trim().split('\n')
    rmSync(join(f.markers, 'ran'))
  } catch {
    // no marker ran
  }
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', changed: changed.sort(), ran }
}

/** Every path below `base` with its type, size, mode and content hash (not times: reads touch atime). */
function snapshot(base: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const r = rel === '' ? name : `${rel}/${name}`
      const st = lstatSync(path)
      if (st.isSymbolicLink()) out.set(r, `link:${readlinkSync(path)}`)
      else if (st.isDirectory()) {
        out.set(r, `dir:${st.mode}`)
        walk(path, r)
      } else {
        const hash = createHash('sha1').update(readFileSync(path)).digest('hex')
        out.set(r, `file:${st.mode}:${st.size}:${hash}`)
      }
    }
  }
  walk(base, '')
  return out
}
