import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { gitConfigEnvironment } from '@toolgate/policy'
import { SANDBOX_CWD, SANDBOX_HOME } from './fixture.js'
import { SANDBOX_MARKER_BIN, SANDBOX_MARKER_DIR } from './markers.js'
import { TRACED_SYSCALLS } from './trace.js'

/**
 * One command in a throwaway bubblewrap sandbox, traced by strace. The command runs as an
 * unprivileged user (nobody when the harness is root: bwrap as root keeps every capability, and a
 * misclassified `hostname x` would rename the host) in new user, pid, net, ipc, uts and cgroup
 * namespaces, with the whole filesystem read-only except the worker's copy of the fixture
 * (/home/agent, /tmp) and the marker directory. /run is an empty tmpfs (no host daemon sockets),
 * /dev a private one, both read-only. Resource limits: address space, file size, CPU time.
 */

export interface SandboxIds {
  readonly uid: number
  readonly gid: number
  /** The harness runs as another user (root): spawn as these ids and give them the trees. */
  readonly switchUser: boolean
}

/** Run as the current user; as root, as nobody (65534). */
export function sandboxIds(): SandboxIds {
  const uid = process.getuid?.() ?? 0
  return uid === 0
    ? { uid: 65534, gid: 65534, switchUser: true }
    : { uid, gid: process.getgid?.() ?? uid, switchUser: false }
}

/** Spawn options that run a child as the sandbox user. */
export function asSandboxUser(ids: SandboxIds): { uid?: number; gid?: number } {
  return ids.switchUser ? { uid: ids.uid, gid: ids.gid } : {}
}

export interface Paths {
  /** The worker's tree: `home/` is bound at /home/agent, `tmp/` at /tmp. */
  readonly tree: string
  /** The worker's marker directory (also holds the trace files). */
  readonly markers: string
  /** The shared, read-only directory of marker shims. */
  readonly bin: string
}

export const TRACE_PREFIX = 'trace'
const OUTPUT_CAP = 4096

const SANDBOX_ENV: Readonly<Record<string, string>> = {
  PATH: `${SANDBOX_MARKER_BIN}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
  HOME: SANDBOX_HOME,
  USER: 'agent',
  LOGNAME: 'agent',
  SHELL: '/bin/bash',
  LANG: 'C.UTF-8',
  // What bash runs with in every preset (sandbox/confine.ts, tools' bash): a verdict is judged in
  // the environment it is given for. GIT_OPTIONAL_LOCKS=0 is what keeps `git status` from
  // rewriting the index (and running the post-index-change hook) when stat data is stale.
  ...gitConfigEnvironment(),
}

// Limits set by the wrapper before strace starts (bash `ulimit` units: KiB and seconds).
const LIMITS = 'ulimit -v 4194304; ulimit -f 65536; ulimit -t 30; ulimit -u 512'

function bwrapArgv(paths: Paths, command: string, strace: string): string[] {
  const traceArgs = [
    strace,
    '-f',
    '-ff',
    '-qq',
    '--seccomp-bpf',
    '-yy', // paths of fds, and the protocol of sockets (a listening TCP socket)
    '-s',
    '256',
    '-e',
    `trace=${TRACED_SYSCALLS.join(',')}`,
    '-e',
    'signal=none',
    '-o',
    `${SANDBOX_MARKER_DIR}/${TRACE_PREFIX}`,
  ]
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'tgfuzz',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/run',
    '--ro-bind',
    paths.bin,
    SANDBOX_MARKER_BIN,
    '--bind',
    paths.markers,
    SANDBOX_MARKER_DIR,
    '--tmpfs',
    '/home',
    '--bind',
    `${paths.tree}/home`,
    SANDBOX_HOME,
    '--bind',
    `${paths.tree}/tmp`,
    '/tmp',
    '--remount-ro',
    '/run',
    '--remount-ro',
    '/home',
    '--remount-ro',
    '/dev',
    '--chdir',
    SANDBOX_CWD,
    '--',
    '/bin/bash',
    '-c',
    `${LIMITS}; exec ${traceArgs.map(shellQuote).join(' ')} /bin/bash -c "$1"`,
    'tgfuzz-harness',
    command,
  ]
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

export interface Exit {
  readonly code: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/** Spawn the sandbox; kill its whole process group at the deadline. Output is capped. */
export function runSandboxed(
  paths: Paths,
  command: string,
  opts: {
    readonly timeoutMs: number
    readonly ids: SandboxIds
    readonly bwrap: string
    readonly strace: string
  },
): Promise<Exit> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(opts.bwrap, bwrapArgv(paths, command, opts.strace), {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: SANDBOX_ENV,
      cwd: '/',
      ...asSandboxUser(opts.ids),
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += d.toString('utf8').slice(0, OUTPUT_CAP - stdout.length)
    })
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += d.toString('utf8').slice(0, OUTPUT_CAP - stderr.length)
    })
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }, opts.timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, timedOut, stdout, stderr, ms: performance.now() - started })
    })
  })
}

export type Availability =
  | {
      readonly ok: true
      readonly bwrap: string
      readonly strace: string
      /** Programs of the classifier's table the fuzzer cannot prove here (not installed). */
      readonly missing: readonly string[]
    }
  | { readonly ok: false; readonly reason: string }

/** Installed by .ci/run: without them their verdicts are never run (the command is not found). */
const COVERAGE_PROGRAMS = ['tree', 'busybox', 'gawk', 'jq'] as const

function which(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const p = `${dir}/${program}`
    if (dir !== '' && existsSync(p)) return p
  }
  return undefined
}

/**
 * Can the fuzzer run here? Needs Linux, bwrap (able to create an unprivileged sandbox), strace
 * (network and exec detection), git (the fixture) and /home (the mount point of the fake home).
 */
export function probe(): Availability {
  if (process.platform !== 'linux')
    return { ok: false, reason: 'the differential fuzzer needs Linux (bubblewrap)' }
  const bwrap = which('bwrap')
  if (bwrap === undefined)
    return {
      ok: false,
      reason: "bubblewrap is not installed ('bwrap' not found; Debian: apt-get install bubblewrap)",
    }
  const strace = which('strace')
  if (strace === undefined)
    return {
      ok: false,
      reason:
        'strace is not installed (Debian: apt-get install strace); it detects network use and hidden programs',
    }
  if (which('git') === undefined)
    return { ok: false, reason: 'git is not installed (the fixture is a git repository)' }
  if (!existsSync('/home'))
    return { ok: false, reason: '/home does not exist (the fixture home is mounted at /home/agent)' }
  const ids = sandboxIds()
  try {
    execFileSync(
      bwrap,
      [
        '--unshare-all',
        '--ro-bind',
        '/',
        '/',
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        '--',
        strace,
        '-f',
        '-qq',
        '--seccomp-bpf',
        '-e',
        'trace=execve',
        '-o',
        '/dev/null',
        '/bin/true',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: SANDBOX_ENV,
        timeout: 10_000,
        cwd: '/',
        ...asSandboxUser(ids),
      },
    )
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim() ?? String(e)
    return {
      ok: false,
      reason: `bubblewrap cannot start an unprivileged sandbox with strace inside (uid ${ids.uid}): ${stderr}. Unprivileged user namespaces may be disabled (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone).`,
    }
  }
  return { ok: true, bwrap, strace, missing: COVERAGE_PROGRAMS.filter((p) => which(p) === undefined) }
}
