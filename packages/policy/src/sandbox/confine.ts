import { bwrapArgs } from './bwrap.js'
import { probeSandbox } from './probe.js'
import type { Confinement, SandboxPolicy } from './types.js'

/**
 * The argv to spawn for a command under a sandbox policy, and the enforcement actually applied.
 * danger-full-access runs unconfined by choice; otherwise bubblewrap when it works, and
 * enforcement 'none' with an actionable diagnostic when it does not (the permission engine then
 * asks before bash commands that are not read-only).
 */
export async function confine(
  argv: readonly string[],
  policy: SandboxPolicy,
  options: { bwrapPath?: string } = {},
): Promise<Confinement> {
  if (argv.length === 0) throw new TypeError('confine: argv must name a program')
  if (policy.mode === 'danger-full-access') {
    return {
      argv: [...argv],
      enforcement: 'none',
      diagnostic:
        'danger-full-access: no sandbox by choice (protected paths are still enforced by the permission engine)',
    }
  }
  const probe = await probeSandbox(options.bwrapPath)
  if (!probe.available) return { argv: [...argv], enforcement: 'none', diagnostic: probe.diagnostic }
  return { argv: bwrapArgs(argv, policy, probe.bwrapPath), enforcement: 'bubblewrap' }
}
