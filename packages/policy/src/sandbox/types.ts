/** Sandbox policy and result (issue 4 §3, issue 11; seed 003 §8.1 "sandbox: orthogonal to the four layers"). */

import type { EnvironmentPolicy } from './environment.js'

/** The presets of seed 001 §6.9, as the sandbox sees them: each has its own profile (README "Sandbox"). */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access'

export interface SandboxPolicy {
  readonly mode: SandboxMode
  /** The workspace root (absolute). Writable in workspace-write and danger-full-access. */
  readonly root: string
  /** Working directory inside the sandbox; defaults to `root`. */
  readonly cwd?: string
  /**
   * A host directory to mount as `/tmp` (kept between commands of a session). Without it `/tmp`
   * is a fresh, empty tmpfs for each command.
   */
  readonly tmpDir?: string
  /**
   * Further paths re-bound read-only (absolute, `~/`, or relative to `root`), on top of the
   * built-in protected paths (`.git`, hooks, `.toolgate`, auto-run files), which always apply.
   * Paths that do not exist are skipped.
   */
  readonly protectedPaths?: readonly string[]
  /**
   * Further credential stores to hide (absolute, `~/`, or relative to `root`), on top of
   * `CREDENTIAL_STORES`. Pass the same list to the permission engine (`protectedPathsFor`).
   */
  readonly credentialStores?: readonly string[]
  /**
   * Network access. Default: off in read-only and workspace-write (a private network namespace
   * with only loopback), on in danger-full-access.
   */
  readonly network?: boolean
  /** The home directory (credential stores, shell startup files). Default `os.homedir()`. */
  readonly home?: string
  /**
   * Where git's state files are staged during a command (README "Sandbox", `.git`): a host
   * directory outside the workspace, private to the user. Default: a private directory of this
   * process under the OS temp directory.
   */
  readonly stagingDir?: string
  /**
   * Let bash read the workspace's `.env*` files (default false: each is covered by an empty file,
   * since they hold secrets by convention and the permission table asks before other tools read
   * them). Set it when the project's commands need them (tests that load `.env`).
   */
  readonly exposeEnvFiles?: boolean
  /** Variables passed to bash besides `ENV_ALLOWLIST` (never credential-looking names). */
  readonly environment?: EnvironmentPolicy
  /** Git configuration for bash's git commands, applied after `GIT_SAFE_CONFIG` (the user's opt-ins). */
  readonly gitConfig?: Readonly<Record<string, string>>
}

/**
 * What confines a command: `bubblewrap` (the whole profile, verified by the probe), `partial`
 * (bubblewrap runs, but the probe found something missing: `SandboxProbe.missing`; the policy
 * treats it as no sandbox), `none` (unconfined).
 */
export type Enforcement = 'bubblewrap' | 'partial' | 'none'

export interface Confinement {
  /** The argv to spawn (program first). */
  readonly argv: readonly string[]
  /** The environment to spawn it with (the allowlist; see `bashEnvironment`). */
  readonly env: Readonly<Record<string, string>>
  /** What actually confines the process. */
  readonly enforcement: Enforcement
  /** Why enforcement is not `bubblewrap`: what is missing and how to fix it. */
  readonly diagnostic?: string
  /**
   * Open file descriptors the process must receive as fd 3, 4, ... (the seccomp filter): pass them
   * after stdin, stdout, stderr in `spawn`'s `stdio`.
   */
  readonly fds: readonly number[]
  /**
   * Call exactly once, after the process and everything it started have ended (also when spawn
   * failed): closes `fds`, writes git's changed state files back and removes the staging
   * directory. Returns notes for the model (stable text, workspace-relative paths), usually none.
   */
  finish(): readonly string[]
}

/** What the probe checked inside a real sandbox. */
export interface ProbeChecks {
  /** bubblewrap accepts `--disable-userns` (0.8 or later): commands get it. */
  readonly disableUsernsFlag: boolean
  /** With it, `unshare -U` failed inside: the command cannot make new user namespaces. */
  readonly userNamespacesDisabled: boolean
  /** The unix-socket seccomp filter is loaded (`Seccomp: 2` inside). */
  readonly seccomp: boolean
}

/**
 * Result of probing bubblewrap once per process, inside a real sandbox with the hardening flags:
 * no capabilities left (CapEff, CapPrm, CapBnd all zero), `mount -o remount,rw /` refused,
 * nested user namespaces disabled, the seccomp filter loaded.
 */
export type SandboxProbe =
  | {
      readonly status: 'enforced'
      readonly available: true
      readonly backend: 'bubblewrap'
      readonly bwrapPath: string
      readonly checks: ProbeChecks
    }
  | {
      readonly status: 'partial'
      readonly available: true
      readonly backend: 'bubblewrap'
      readonly bwrapPath: string
      readonly checks: ProbeChecks
      /** What does not hold, one short phrase each (stable order). */
      readonly missing: readonly string[]
      readonly diagnostic: string
    }
  | { readonly status: 'unavailable'; readonly available: false; readonly diagnostic: string }
