import { mkdirSync, mkdtempSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  checkProtected,
  type EnvironmentPolicy,
  environmentProblems,
  type ProtectedPath,
  protectedPathsFor,
  realPath,
  type SandboxMode,
  type SandboxPolicy,
} from '@toolgate/policy'
import { FsObservations } from './fs/observations.js'

/** How bash is confined: a preset (with the workspace root filled in) or `false` for no sandbox. */
export type SandboxOption = SandboxMode | Omit<SandboxPolicy, 'root'> | false

export type GrepBackend = 'auto' | 'ripgrep' | 'js'

export interface BuiltinToolsOptions {
  /** The workspace root; relative paths in arguments resolve against it. */
  readonly root: string
  /**
   * Confinement for bash (`confine` from @toolgate/policy): the preset whose profile bash runs
   * under — pass the session's preset. Default `'workspace-write'` (fail closed): bubblewrap when
   * it works, otherwise enforcement `none` with a diagnostic, which the permission engine answers
   * by asking before commands that are not read-only. `false`: no sandbox (the environment
   * allowlist and git's safe configuration still apply; processes are still contained, see README).
   */
  readonly sandbox?: SandboxOption
  /** The bubblewrap binary (default `bwrap` on PATH). */
  readonly bwrapPath?: string
  /** Variables bash gets besides `ENV_ALLOWLIST` (credential-looking names are refused). */
  readonly environment?: EnvironmentPolicy
  /** Git configuration for bash's git commands, after `GIT_SAFE_CONFIG` (the user's opt-ins). */
  readonly gitConfig?: Readonly<Record<string, string>>
  /**
   * Bytes of each stream a spill file keeps: the first half and the last half of the output, with
   * a marker line between (default 32 MiB, so one call cannot fill the disk).
   */
  readonly maxSpillBytes?: number
  /**
   * The session's temp directory: bash spill files, and `/tmp` inside the sandbox. Default: a fresh
   * `toolgate-*` directory under the OS temp directory, created on first use.
   */
  readonly tempDir?: string
  /**
   * Move a finished bash spill file (its path in the session directory) to where the model can
   * read it, and return the new path; the private copy is then removed. The CLI copies it into
   * `<root>/.toolgate/spill` (a directory the sandbox mounts read-only): a path under the session
   * directory is outside the workspace, so `read` would ask or refuse. When it throws, the file
   * stays where it is. Default: it stays in the session directory.
   */
  readonly publishSpill?: (file: string) => Promise<string>
  /** grep backend: ripgrep when `rg` is on PATH (`auto`, default), or force one. */
  readonly grepBackend?: GrepBackend
  /**
   * The ripgrep program (default `rg`, resolved once: system directories first, then PATH's
   * absolute entries; see `resolveProgram` in @toolgate/policy).
   */
  readonly ripgrepPath?: string
  /** Grace between SIGTERM and SIGKILL when bash kills a process group (default 2,000 ms). */
  readonly killGraceMs?: number
  /** Bytes of stdout and of stderr kept in memory per bash call (the tail; default 64 KiB). */
  readonly maxCaptureBytes?: number
  /** Share read-before-edit state with another component (default: a fresh one per plugin). */
  readonly observations?: FsObservations
  /**
   * Paths protected for reading (the permission engine's table; default `protectedPathsFor(root)`):
   * a directory search never reads them. Pass the same table as the engine's if you change it.
   */
  readonly protectedPaths?: readonly ProtectedPath[]
}

/** What every built-in tool of one plugin instance shares. */
export interface ToolsEnv {
  readonly root: string
  readonly observations: FsObservations
  readonly sandbox: SandboxPolicy | undefined
  readonly grepBackend: GrepBackend
  /** The ripgrep program as configured (resolved by the grep backend). */
  readonly ripgrepPath: string
  readonly killGraceMs: number
  readonly maxCaptureBytes: number
  readonly maxSpillBytes: number
  readonly bwrapPath: string | undefined
  readonly environment: EnvironmentPolicy | undefined
  readonly gitConfig: Readonly<Record<string, string>>
  /** The session temp directory, created on first use. */
  sessionDir(): string
  /** A fresh, unique spill file path in the session directory. */
  spillPath(stem: string): string
  /** `BuiltinToolsOptions.publishSpill`. */
  readonly publishSpill: ((file: string) => Promise<string>) | undefined
  /**
   * Whether a search over a directory must leave this file out: it is protected for reading
   * (`.env` files, credentials), so only a person may let the agent read it, by name.
   */
  searchExcludes(absolute: string): boolean
  /**
   * The protected-path table and home directories the file tools check every opened file against
   * (its real path, from the descriptor): a link cannot carry a call into a protected file.
   */
  readonly protection: { readonly table: readonly ProtectedPath[]; readonly homes: readonly string[] }
  /** The todo list (todo_write replaces it). */
  todos: readonly { readonly content: string; readonly status: string; readonly id?: string }[]
}

export const DEFAULT_CAPTURE_BYTES = 64 * 1024
export const DEFAULT_KILL_GRACE_MS = 2000
const DEFAULT_SPILL_BYTES = 32 * 1024 * 1024

export function createToolsEnv(options: BuiltinToolsOptions): ToolsEnv {
  if (typeof options.root !== 'string' || options.root === '') {
    throw new TypeError('builtinTools: `root` must be the workspace directory')
  }
  const root = resolve(options.root)
  const spill = options.maxSpillBytes
  if (spill !== undefined && (!Number.isSafeInteger(spill) || spill < 2)) {
    throw new TypeError(
      `builtinTools: maxSpillBytes must be a whole number of bytes, at least 2 (got ${String(spill)})`,
    )
  }
  const problems = environmentProblems(options.environment)
  if (problems.length > 0) throw new TypeError(`builtinTools: environment.allow: ${problems.join('; ')}`)
  let dir = options.tempDir === undefined ? undefined : resolve(options.tempDir)
  let spills = 0
  const sessionDir = (): string => {
    if (dir === undefined) dir = mkdtempSync(join(tmpdir(), 'toolgate-'))
    mkdirSync(join(dir, 'tmp'), { recursive: true })
    return dir
  }
  const sandbox = sandboxPolicy(root, options.sandbox ?? 'workspace-write', sessionDir, options)
  const table = options.protectedPaths ?? protectedPathsFor(root)
  const home = homedir()
  const homes = [...new Set([home, realPath(home) ?? home])]
  return {
    root,
    observations: options.observations ?? new FsObservations(),
    sandbox,
    grepBackend: options.grepBackend ?? 'auto',
    ripgrepPath: options.ripgrepPath ?? 'rg',
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    maxCaptureBytes: options.maxCaptureBytes ?? DEFAULT_CAPTURE_BYTES,
    maxSpillBytes: options.maxSpillBytes ?? DEFAULT_SPILL_BYTES,
    bwrapPath: options.bwrapPath,
    environment: options.environment,
    gitConfig: options.gitConfig ?? {},
    sessionDir,
    publishSpill: options.publishSpill,
    spillPath(stem) {
      spills += 1
      return join(sessionDir(), `${stem.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}-${spills}.log`)
    },
    // Files met by a directory walk are not symlinks (both backends skip those): as written is real.
    searchExcludes: (absolute) =>
      checkProtected(table, { lexical: absolute, real: absolute }, 'read', homes) !== undefined,
    protection: { table, homes },
    todos: [],
  }
}

function sandboxPolicy(
  root: string,
  option: SandboxOption,
  sessionDir: () => string,
  options: BuiltinToolsOptions,
): SandboxPolicy | undefined {
  if (option === false) return undefined
  const base = typeof option === 'string' ? { mode: option } : option
  // The policy object is read per call (see bash), so the session directory only exists when used,
  // and a caller that changes `mode` on its object (the CLI's /preset) changes the next call's profile.
  return {
    ...base,
    root,
    get mode() {
      return base.mode
    },
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    ...(options.gitConfig === undefined ? {} : { gitConfig: options.gitConfig }),
    get tmpDir() {
      return base.tmpDir ?? join(sessionDir(), 'tmp')
    },
    get stagingDir() {
      return base.stagingDir ?? join(sessionDir(), 'git-staging')
    },
  } as SandboxPolicy
}
