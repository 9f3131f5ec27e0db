import { mkdirSync, mkdtempSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  checkProtected,
  PROTECTED_PATHS,
  type ProtectedPath,
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
   * Confinement for bash (`confine` from @toolgate/policy). Default `'workspace-write'` (fail
   * closed): bubblewrap when it works, otherwise enforcement `none` with a diagnostic, which the
   * permission engine answers by asking before commands that are not read-only. `false`: no sandbox.
   */
  readonly sandbox?: SandboxOption
  /**
   * The session's temp directory: bash spill files, and `/tmp` inside the sandbox. Default: a fresh
   * `toolgate-*` directory under the OS temp directory, created on first use.
   */
  readonly tempDir?: string
  /** grep backend: ripgrep when `rg` is on PATH (`auto`, default), or force one. */
  readonly grepBackend?: GrepBackend
  /** Grace between SIGTERM and SIGKILL when bash kills a process group (default 2,000 ms). */
  readonly killGraceMs?: number
  /** Bytes of stdout and of stderr kept in memory per bash call (the tail; default 64 KiB). */
  readonly maxCaptureBytes?: number
  /** Share read-before-edit state with another component (default: a fresh one per plugin). */
  readonly observations?: FsObservations
  /**
   * Paths protected for reading (the permission engine's table; default `PROTECTED_PATHS`):
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
  readonly killGraceMs: number
  readonly maxCaptureBytes: number
  /** The session temp directory, created on first use. */
  sessionDir(): string
  /** A fresh, unique spill file path in the session directory. */
  spillPath(stem: string): string
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

export function createToolsEnv(options: BuiltinToolsOptions): ToolsEnv {
  if (typeof options.root !== 'string' || options.root === '') {
    throw new TypeError('builtinTools: `root` must be the workspace directory')
  }
  const root = resolve(options.root)
  let dir = options.tempDir === undefined ? undefined : resolve(options.tempDir)
  let spills = 0
  const sessionDir = (): string => {
    if (dir === undefined) dir = mkdtempSync(join(tmpdir(), 'toolgate-'))
    mkdirSync(join(dir, 'tmp'), { recursive: true })
    return dir
  }
  const sandbox = sandboxPolicy(root, options.sandbox ?? 'workspace-write', () => join(sessionDir(), 'tmp'))
  const table = options.protectedPaths ?? PROTECTED_PATHS
  const home = homedir()
  const homes = [...new Set([home, realPath(home) ?? home])]
  return {
    root,
    observations: options.observations ?? new FsObservations(),
    sandbox,
    grepBackend: options.grepBackend ?? 'auto',
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    maxCaptureBytes: options.maxCaptureBytes ?? DEFAULT_CAPTURE_BYTES,
    sessionDir,
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

function sandboxPolicy(root: string, option: SandboxOption, tmp: () => string): SandboxPolicy | undefined {
  if (option === false) return undefined
  const base = typeof option === 'string' ? { mode: option } : option
  // The policy object is built lazily per call (see bash), so the temp dir only exists when used.
  return {
    ...base,
    root,
    get tmpDir() {
      return base.tmpDir ?? tmp()
    },
  } as SandboxPolicy
}
