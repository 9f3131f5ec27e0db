import { existsSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { DEFAULT_PROTECTED_PATHS, type SandboxPolicy } from './types.js'

/**
 * The bubblewrap command line for a policy. Order matters: later mounts cover earlier ones, so the
 * protected paths are re-bound read-only AFTER the writable workspace bind.
 *
 * - `--ro-bind / /`: the whole host filesystem, read-only.
 * - `--dev /dev`, `--proc /proc`: a minimal /dev and a /proc for the new pid namespace.
 * - `--tmpfs /tmp` (or `--bind tmpDir /tmp`): a private writable /tmp.
 * - workspace-write: `--bind root root`, then the protected paths `--ro-bind p p`; read-only:
 *   `--ro-bind root root` (so a workspace under /tmp is not hidden by the private /tmp).
 * - `--unshare-net` unless `network: true`: only a private loopback, nothing reachable.
 * - `--unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try`: the command sees and signals
 *   only its own processes; when bwrap dies, everything inside dies with it (pid 1 of the namespace).
 * - `--die-with-parent`: the sandbox ends when the agent process ends.
 * - No `--new-session`: the bash tool kills the whole process group on timeout, and setsid would put
 *   the command in another group. Spawn detached (no controlling terminal), which closes the
 *   TIOCSTI terminal-injection hole that `--new-session` exists for.
 */
export function bwrapArgs(argv: readonly string[], policy: SandboxPolicy, bwrapPath = 'bwrap'): string[] {
  const root = canonical(policy.root)
  const args = [bwrapPath, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']
  if (policy.tmpDir !== undefined) args.push('--bind', canonical(policy.tmpDir), '/tmp')
  else args.push('--tmpfs', '/tmp')
  if (policy.mode === 'workspace-write') {
    args.push('--bind', root, root)
    for (const mount of protectedMounts(root, policy.protectedPaths)) args.push(...mount)
  } else {
    // Re-expose a workspace that lives under /tmp (hidden by the private /tmp), still read-only.
    args.push('--ro-bind', root, root)
  }
  if (policy.network !== true) args.push('--unshare-net')
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent')
  args.push('--chdir', policy.cwd === undefined ? root : resolve(root, policy.cwd))
  args.push('--', ...argv)
  return args
}

/** The mounts that make protected paths read-only inside a writable workspace. */
export function protectedMounts(root: string, paths: readonly string[] | undefined): string[][] {
  const mounts: string[][] = []
  const defaults = paths === undefined
  for (const p of paths ?? DEFAULT_PROTECTED_PATHS) {
    const abs = isAbsolute(p) ? p : join(root, p)
    const rel = relative(root, abs)
    if (rel.startsWith('..') || isAbsolute(rel)) continue // outside the workspace: already read-only
    if (existsSync(abs)) {
      mounts.push(['--ro-bind', canonical(abs), abs])
      continue
    }
    if (!defaults) continue
    // A missing default would let the command create it (a new hook, a settings file granting
    // itself permissions). Cover it with an empty read-only mount; bwrap creates the mount point
    // on the host (an empty directory or file) — the price of closing the hole.
    const isGitPath = rel === join('.git', 'hooks') || rel === join('.git', 'config')
    if (isGitPath && !isDirectory(join(root, '.git'))) continue
    if (rel === join('.git', 'config')) mounts.push(['--ro-bind', '/dev/null', abs])
    else mounts.push(['--tmpfs', abs, '--remount-ro', abs])
  }
  return mounts
}

function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
