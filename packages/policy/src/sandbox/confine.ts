import { closeSync } from 'node:fs'
import { bwrapArgs } from './bwrap.js'
import { bashEnvironment, gitConfigEnvironment } from './environment.js'
import { blockNewAutoRun } from './new-auto-run.js'
import { blockNewRepositories } from './new-repositories.js'
import { probeSandbox } from './probe.js'
import { planProfile } from './profile.js'
import { openFilter } from './seccomp.js'
import type { Confinement, SandboxPolicy } from './types.js'
import { scanWorkspace } from './workspace-scan.js'

/**
 * The argv and environment to spawn a command with under a sandbox policy, and the enforcement
 * actually applied. Every preset has a bubblewrap profile (README "Sandbox"): danger-full-access
 * too, so protected paths and hidden credential stores are enforced by the kernel in every preset.
 * Without a working bubblewrap the command runs unconfined (enforcement `none`, with what failed
 * and how to fix it); the environment allowlist applies either way.
 *
 * The caller spawns `argv` with `env`, passes `fds` as descriptors 3, 4, ... (detached: no
 * controlling terminal), and calls `finish()` once the process has ended.
 */
export async function confine(
  argv: readonly string[],
  policy: SandboxPolicy,
  options: { readonly bwrapPath?: string; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<Confinement> {
  if (argv.length === 0) throw new TypeError('confine: argv must name a program')
  const source = options.env ?? process.env
  const env = { ...bashEnvironment(source, policy.environment), ...gitConfigEnvironment(policy.gitConfig) }
  const probe = await probeSandbox(options.bwrapPath)
  if (!probe.available) {
    return {
      argv: [...argv],
      env,
      enforcement: 'none',
      diagnostic: probe.diagnostic,
      fds: [],
      finish: () => [],
    }
  }
  const plan = planProfile(policy, source)
  let fd: number | undefined
  try {
    fd = probe.checks.seccomp ? openFilter() : undefined
  } catch (error) {
    for (const stage of plan.stages) stage.sync()
    throw error
  }
  let finished: readonly string[] | undefined
  return {
    argv: bwrapArgs(
      argv,
      plan,
      { disableUserns: probe.checks.disableUsernsFlag, seccompFd: fd === undefined ? undefined : 3 },
      probe.bwrapPath,
    ),
    // Inside, /tmp is the sandbox's own (the host's TMPDIR may not even be visible).
    env: { ...env, TMPDIR: '/tmp' },
    enforcement: probe.status === 'enforced' ? 'bubblewrap' : 'partial',
    ...(probe.status === 'partial' ? { diagnostic: probe.diagnostic } : {}),
    fds: fd === undefined ? [] : [fd],
    finish() {
      if (finished !== undefined) return finished
      if (fd !== undefined) closeSync(fd)
      // Git's state first (the index written back names the gitlinks to look at), then the
      // repositories and auto-run files the command made (one walk for both).
      const synced = plan.stages.flatMap((stage) => stage.sync())
      const after = plan.repositories === undefined ? undefined : scanWorkspace(plan.repositories.root)
      finished = [
        ...synced,
        ...(plan.repositories === undefined || after === undefined
          ? []
          : blockNewRepositories(plan.repositories, after.repositories)),
        ...(plan.autoRun === undefined || after === undefined
          ? []
          : blockNewAutoRun(plan.autoRun, after.autoRun)),
      ]
      return finished
    },
  }
}
