import { type Mount, mountArgs } from './mounts.js'

/** How the process is isolated besides its mounts. */
export interface IsolationFlags {
  /** `--disable-userns` (bubblewrap ≥ 0.8): no nested user namespaces inside. */
  readonly disableUserns: boolean
  /** The descriptor number (in the spawned process) holding the seccomp program, if any. */
  readonly seccompFd: number | undefined
}

/**
 * The bubblewrap command line for a planned profile (`planProfile`). Besides the mounts:
 *
 * - `--unshare-user --cap-drop ALL` (+ `--disable-userns`): a user namespace with no capabilities,
 *   also when the agent runs as root — so `umount`, `mount -o remount,rw` and every other way
 *   around the mounts fail (issue 11 §2). The uid stays the caller's (files keep their owner).
 * - `--dev /dev`, `--proc /proc`: a minimal /dev; a /proc showing only the sandbox's processes.
 * - `--unshare-net` unless the profile has the network: only a private loopback.
 * - `--unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try`: the command sees and signals
 *   only its own processes; when bubblewrap's init ends, everything inside ends with it, `setsid`
 *   and `&` included (issue 11 §7).
 * - `--die-with-parent`: the sandbox ends when the agent process ends.
 * - `--seccomp FD`: no new Unix-domain sockets (see `seccomp.ts`).
 * - No `--new-session`: the bash tool kills the whole process group on timeout, and setsid would
 *   put the command in another group. Spawn detached (no controlling terminal), which closes the
 *   TIOCSTI terminal-injection hole that `--new-session` exists for.
 */
export function bwrapArgs(
  argv: readonly string[],
  plan: { readonly mounts: readonly Mount[]; readonly network: boolean; readonly cwd: string },
  flags: IsolationFlags,
  bwrapPath = 'bwrap',
): string[] {
  const args = [bwrapPath, '--unshare-user']
  if (flags.disableUserns) args.push('--disable-userns')
  args.push('--cap-drop', 'ALL')
  const [base, ...rest] = plan.mounts
  if (base !== undefined) args.push(...mountArgs(base))
  args.push('--dev', '/dev', '--proc', '/proc')
  for (const mount of rest) args.push(...mountArgs(mount))
  if (!plan.network) args.push('--unshare-net')
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--die-with-parent')
  if (flags.seccompFd !== undefined) args.push('--seccomp', String(flags.seccompFd))
  args.push('--chdir', plan.cwd, '--', ...argv)
  return args
}
