/** Sandbox policy and result (issue 4 §3; seed 003 §8.1 "sandbox: orthogonal to the four layers"). */

/** The presets of seed 001 §6.9, as the sandbox sees them. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access'

export interface SandboxPolicy {
  readonly mode: SandboxMode
  /** The workspace root (absolute). Writable in workspace-write, read-only otherwise. */
  readonly root: string
  /** Working directory inside the sandbox; defaults to `root`. */
  readonly cwd?: string
  /**
   * A host directory to mount as `/tmp` (kept between commands of a session). Without it `/tmp`
   * is a fresh, empty tmpfs for each command.
   */
  readonly tmpDir?: string
  /**
   * Paths re-bound read-only after the writable workspace bind (absolute or relative to `root`).
   * Defaults to `DEFAULT_PROTECTED_PATHS`. Paths that do not exist are skipped, except the
   * defaults, which are also protected when missing (see README, "Sandbox").
   */
  readonly protectedPaths?: readonly string[]
  /** Allow network access. Default false: a private network namespace with only loopback. */
  readonly network?: boolean
}

export type Enforcement = 'bubblewrap' | 'none'

export interface Confinement {
  /** The argv to spawn (program first). */
  readonly argv: readonly string[]
  /** What actually confines the process. 'none' in danger-full-access (by choice) or when unavailable. */
  readonly enforcement: Enforcement
  /** Why enforcement is 'none': a choice, or what failed and how to fix it. */
  readonly diagnostic?: string
}

/** Result of probing the backend once per process. */
export type SandboxProbe =
  | { readonly available: true; readonly backend: 'bubblewrap'; readonly bwrapPath: string }
  | { readonly available: false; readonly diagnostic: string }

/** Protected paths inside the workspace: they can run code (hooks, config) or grant permissions. */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = ['.git/hooks', '.git/config', '.toolgate']
