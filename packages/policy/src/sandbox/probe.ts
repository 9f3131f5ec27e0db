import { spawn } from 'node:child_process'
import { closeSync } from 'node:fs'
import { resolveProgram } from './host-programs.js'
import { openFilter } from './seccomp.js'
import type { ProbeChecks, SandboxProbe } from './types.js'

const probes = new Map<string, Promise<SandboxProbe>>()

/** The probe's deadline: bubblewrap starting `sh` takes milliseconds; a hung start is a failure. */
const PROBE_TIMEOUT_MS = 10_000

/**
 * Probe bubblewrap once per process (per binary), INSIDE a real sandbox with the same isolation a
 * command gets (issue 11 §2): a user namespace with every capability dropped, nested user
 * namespaces disabled, the seccomp filter, new pid and network namespaces. The sandboxed shell
 * reports its capability sets and seccomp mode from /proc/self/status and tries
 * `mount -o remount,rw /` and `unshare -U` (both must fail). Anything that does not hold makes the result `partial`, with exactly
 * what is missing; the permission policy treats `partial` as no sandbox.
 */
export function probeSandbox(bwrapPath = 'bwrap'): Promise<SandboxProbe> {
  let probe = probes.get(bwrapPath)
  if (probe === undefined) {
    probe = runProbe(resolveProgram(bwrapPath))
    probes.set(bwrapPath, probe)
  }
  return probe
}

const UNCONFINED =
  'Until then commands run unconfined and bash commands that are not read-only need approval.'

const SCRIPT = [
  'while IFS= read -r line; do case "$line" in CapEff:*|CapPrm:*|CapBnd:*|Seccomp:*) printf "%s\\n" "$line";; esac; done < /proc/self/status',
  'mount -o remount,rw / >/dev/null 2>&1; printf "remount=%s\\n" "$?"',
  'unshare -U true >/dev/null 2>&1; printf "userns=%s\\n" "$?"',
].join('\n')

async function runProbe(bwrapPath: string): Promise<SandboxProbe> {
  if (process.platform !== 'linux') {
    return {
      status: 'unavailable',
      available: false,
      diagnostic: `no sandbox backend for platform '${process.platform}' (bubblewrap is Linux-only): commands run unconfined, so bash commands that are not read-only need approval`,
    }
  }
  let run = await attempt(bwrapPath, true)
  let disableUserns = true
  if (
    run.kind === 'exited' &&
    run.code !== 0 &&
    /--disable-userns|--assert-userns-disabled/.test(run.stderr)
  ) {
    // bubblewrap older than 0.8: retry without, and say what is missing.
    disableUserns = false
    run = await attempt(bwrapPath, false)
  }
  if (run.kind === 'missing') {
    return {
      status: 'unavailable',
      available: false,
      diagnostic: `bubblewrap is not installed ('${bwrapPath}' not found): install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap). ${UNCONFINED}`,
    }
  }
  if (run.kind === 'timeout' || run.code !== 0) {
    const detail =
      run.kind === 'timeout'
        ? `it did not finish within ${PROBE_TIMEOUT_MS / 1000} s`
        : (run.stderr.trim() || `exit code ${run.code}`).replace(/\s+/g, ' ').trim()
    return {
      status: 'unavailable',
      available: false,
      diagnostic: `bubblewrap failed to start a sandbox: ${detail}. Usually unprivileged user namespaces are disabled: enable them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ also kernel.apparmor_restrict_unprivileged_userns=0), or in a container allow them (docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined). ${UNCONFINED}`,
    }
  }
  return judge(run.stdout, bwrapPath, disableUserns, run.seccomp)
}

/** Turn the sandboxed shell's report into a verdict. Exported for the tests of the wording. */
export function judge(
  stdout: string,
  bwrapPath: string,
  disableUserns: boolean,
  seccompLoaded: boolean,
): SandboxProbe {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(stdout)?.[1]
  const missing: string[] = []
  const fixes: string[] = []
  const caps = ['CapEff', 'CapPrm', 'CapBnd'].filter((c) => {
    const v = field(c)
    return v === undefined || !/^0+$/.test(v)
  })
  if (caps.length > 0) {
    missing.push(
      `capabilities remain inside the sandbox (${caps.map((c) => `${c}=${field(c) ?? '?'}`).join(', ')})`,
    )
    fixes.push('use a bubblewrap that supports --unshare-user and --cap-drop (not a setuid build)')
  }
  const remount = /^remount=(\d+)$/m.exec(stdout)?.[1]
  if (remount === '0') missing.push('the root filesystem can be remounted writable')
  else if (remount === '127' || remount === undefined) {
    missing.push('could not check that remounting fails (no mount program in the sandbox)')
    fixes.push('install util-linux (mount)')
  }
  // A nested user namespace would give the command every capability over namespaces of its own:
  // not a way around the mounts, but the kernel's largest attack surface. `unshare -U` must fail.
  const userns = /^userns=(\d+)$/m.exec(stdout)?.[1]
  if (!disableUserns) {
    missing.push('nested user namespaces are not disabled (--disable-userns needs bubblewrap 0.8 or later)')
    fixes.push('upgrade bubblewrap to 0.8 or later')
  } else if (userns === '0') {
    missing.push('nested user namespaces can be created inside the sandbox')
  }
  const seccomp = seccompLoaded && field('Seccomp') === '2'
  if (!seccompLoaded) {
    missing.push(`no unix-socket filter for this architecture (${process.arch})`)
  } else if (!seccomp) {
    missing.push('the unix-socket seccomp filter is not in force')
  }
  const checks: ProbeChecks = {
    disableUsernsFlag: disableUserns,
    userNamespacesDisabled: disableUserns && userns !== '0',
    seccomp,
  }
  if (missing.length === 0)
    return { status: 'enforced', available: true, backend: 'bubblewrap', bwrapPath, checks }
  return {
    status: 'partial',
    available: true,
    backend: 'bubblewrap',
    bwrapPath,
    checks,
    missing,
    diagnostic: `bubblewrap runs, but the sandbox is only partly enforced: ${missing.join('; ')}. toolgate treats it as no sandbox: bash commands that are not read-only need approval.${fixes.length > 0 ? ` To fix it: ${fixes.join('; ')}.` : ''}`,
  }
}

type Attempt =
  | { readonly kind: 'missing' }
  | { readonly kind: 'timeout' }
  | {
      readonly kind: 'exited'
      readonly code: number | null
      readonly stdout: string
      readonly stderr: string
      readonly seccomp: boolean
    }

function attempt(bwrapPath: string, disableUserns: boolean): Promise<Attempt> {
  const fd = openFilter()
  const args = ['--unshare-user']
  if (disableUserns) args.push('--disable-userns', '--assert-userns-disabled')
  args.push('--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc')
  args.push('--unshare-net', '--unshare-pid', '--die-with-parent')
  if (fd !== undefined) args.push('--seccomp', '3')
  args.push('--', '/bin/sh', '-c', SCRIPT)
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let settled = false
    const done = (result: Attempt) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (fd !== undefined) closeSync(fd)
      resolve(result)
    }
    const child = spawn(bwrapPath, args, {
      stdio: ['ignore', 'pipe', 'pipe', ...(fd === undefined ? [] : [fd])],
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      done({ kind: 'timeout' })
    }, PROBE_TIMEOUT_MS)
    child.stdout!.on('data', (d: Buffer) => {
      if (stdout.length < 65_536) stdout += d.toString('utf8')
    })
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 65_536) stderr += d.toString('utf8')
    })
    child.on('error', (error: NodeJS.ErrnoException) =>
      done(
        error.code === 'ENOENT'
          ? { kind: 'missing' }
          : { kind: 'exited', code: null, stdout, stderr: error.message, seccomp: fd !== undefined },
      ),
    )
    child.on('close', (code) => done({ kind: 'exited', code, stdout, stderr, seccomp: fd !== undefined }))
  })
}
