import { spawn } from 'node:child_process'
import { resolveProgram } from '@toolgate/policy'

// Without bubblewrap, a process group does not hold a command: `setsid cmd &` leaves it and
// outlives the call and dispose() (issue 11 §7). A pid namespace does hold it: when the shell (its
// pid 1) exits, the kernel kills every process left inside, whatever its group or session.
// util-linux `unshare` makes one: as root directly, otherwise inside a user namespace that keeps
// the caller's uid (`--map-current-user`, util-linux 2.38+). `--kill-child` ends the command when
// unshare itself is killed (timeout, abort); `--mount-proc` gives it a /proc of its own, so it
// cannot read the agent's environment through /proc/<pid>/environ either. When neither works, the
// process group is all there is (see README "bash", known limits).

export type Containment = 'pid-namespace' | 'process-group'

// `unshare` by absolute path, resolved once (see `resolveProgram`: not whatever PATH names later).
const candidates = (unshare: string): readonly (readonly string[])[] => [
  ...(process.getuid?.() === 0 ? [[unshare, '--pid', '--fork', '--kill-child', '--mount-proc']] : []),
  [unshare, '--user', '--map-current-user', '--pid', '--fork', '--kill-child', '--mount-proc'],
]

const PROBE_TIMEOUT_MS = 5000

let probed: Promise<readonly string[] | undefined> | undefined

/** The prefix that runs a command in its own pid namespace here, or undefined (probed once). */
function pidNamespacePrefix(): Promise<readonly string[] | undefined> {
  probed ??= (async () => {
    for (const prefix of candidates(resolveProgram('unshare'))) if (await works(prefix)) return prefix
    return undefined
  })()
  return probed
}

/** `argv` wrapped in a pid namespace when this host allows one. */
export async function contain(
  argv: readonly string[],
): Promise<{ argv: string[]; containment: Containment }> {
  const prefix = await pidNamespacePrefix()
  return prefix === undefined
    ? { argv: [...argv], containment: 'process-group' }
    : { argv: [...prefix, '--', ...argv], containment: 'pid-namespace' }
}

/** Does the prefix start `sh` as pid 1 of a new namespace? */
function works(prefix: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(prefix[0]!, [...prefix.slice(1), '--', '/bin/sh', '-c', 'echo $$'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS)
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8')
    })
    child.on('error', () => {
      clearTimeout(timer)
      resolve(false)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(code === 0 && out.trim() === '1')
    })
  })
}
