import { execFile } from 'node:child_process'
import type { SandboxProbe } from './types.js'

let probed: Promise<SandboxProbe> | undefined

/**
 * Probe bubblewrap once per process: run `true` with the same namespaces a real command gets
 * (read-only root, new pid and network namespaces, /proc). A missing binary or a kernel without
 * unprivileged user namespaces is reported with what failed and how to fix it.
 */
export function probeSandbox(bwrapPath = 'bwrap'): Promise<SandboxProbe> {
  if (bwrapPath !== 'bwrap') return runProbe(bwrapPath)
  probed ??= runProbe(bwrapPath)
  return probed
}

function runProbe(bwrapPath: string): Promise<SandboxProbe> {
  if (process.platform !== 'linux') {
    return Promise.resolve({
      available: false,
      diagnostic: `no sandbox backend for platform '${process.platform}' (bubblewrap is Linux-only); commands run unconfined, so bash commands that are not read-only need approval`,
    })
  }
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-net',
    '--unshare-pid',
    '--',
    'true',
  ]
  return new Promise((resolvePromise) => {
    execFile(bwrapPath, args, { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (error === null) {
        resolvePromise({ available: true, backend: 'bubblewrap', bwrapPath })
        return
      }
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') {
        resolvePromise({
          available: false,
          diagnostic: `bubblewrap is not installed ('${bwrapPath}' not found): install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap). Until then commands run unconfined and bash commands that are not read-only need approval.`,
        })
        return
      }
      const detail = (stderr.trim() || error.message).replace(/\s+/g, ' ').trim()
      resolvePromise({
        available: false,
        diagnostic: `bubblewrap failed to start a sandbox: ${detail}. Usually unprivileged user namespaces are disabled: enable them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ also kernel.apparmor_restrict_unprivileged_userns=0), or in a container allow them (docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined). Until then commands run unconfined and bash commands that are not read-only need approval.`,
      })
    })
  })
}
