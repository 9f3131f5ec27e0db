import { type BigIntStats, lstatSync, readdirSync } from 'node:fs'
import { join, sep } from 'node:path'
import { AUTO_RUN_PATHS, type AutoRunPath } from './auto-run.js'
import { renameBlocked, workspaceRelative } from './blocked-rename.js'
import { inside } from './git-layout.js'

/**
 * Auto-run files a command makes (issue 11 §6). Existing ones are read-only mounts, but a mount
 * can cover only a name that exists, and an empty cover would change what those tools do (an empty
 * `.pre-commit-config.yaml` fails every commit). So a missing `.envrc` or `.pre-commit-config.yaml`
 * is writable inside, and with the user's pre-commit hook installed a `repo: local` hook the
 * command wrote ran at the next commit on the host.
 *
 * Before the command: each `AUTO_RUN_PATHS` entry at the top of the workspace and each the
 * workspace walk found at any depth, with its identity (device, inode, change time). After the
 * command ended (its processes are gone): one that is new, or not the same file any more (its
 * directory moved away and a new one put in place), is renamed to `<name>.toolgate-blocked` and
 * reported. One the walk did not see before (beyond its bounds) is renamed only if it changed
 * after the command started (the kernel sets the change time; a command cannot move it back).
 * One that holds nothing but the profile's own empty mount points (a missing `core.hooksPath`
 * such as `.husky/_` is covered, so bubblewrap makes `.husky/_` on the host) is left; anything the
 * command put beside them (`.husky/pre-commit`, which husky's `_/h` would run once installed) gets
 * the whole entry renamed.
 */
export interface AutoRunSnapshot {
  readonly root: string
  readonly startedMs: number
  /** Path -> identity before the command. */
  readonly before: ReadonlyMap<string, string>
  /** Mount points inside the workspace that bubblewrap creates for the profile (missing before). */
  readonly mountTargets: readonly string[]
}

/** Change times are set by the kernel's coarse clock, which may lag `Date.now()` by a tick. */
const CLOCK_SLACK_MS = 1000

/** The auto-run path an absolute path is (matched from its end: `sub/.vscode/tasks.json` too). */
export function autoRunAt(path: string): AutoRunPath | undefined {
  return AUTO_RUN_PATHS.find((auto) => path.endsWith(`${sep}${auto.path.split('/').join(sep)}`))
}

export function snapshotAutoRun(
  root: string,
  walked: readonly string[],
  mountTargets: readonly string[],
  startedMs: number,
): AutoRunSnapshot {
  const before = new Map<string, string>()
  for (const path of candidates(root, walked)) {
    const id = identity(path)
    if (id !== undefined) before.set(path, id)
  }
  // Only the mount points bubblewrap will create (missing now): an existing file's own read-only
  // mount is no reason to keep a replacement made after its directory was moved away.
  const created = mountTargets.filter((t) => inside(root, t) && identity(t) === undefined)
  return { root, startedMs, before, mountTargets: created }
}

/** After the command: rename what it made (see above); returns model-facing notes. */
export function blockNewAutoRun(snapshot: AutoRunSnapshot, walked: readonly string[]): string[] {
  const { root } = snapshot
  const notes: string[] = []
  for (const path of candidates(root, walked)) {
    const st = lstatOrUndefined(path)
    if (st === undefined) continue
    const was = snapshot.before.get(path)
    if (was === identityOf(st)) continue
    if (was === undefined && Number(st.ctimeMs) < snapshot.startedMs - CLOCK_SLACK_MS) continue
    if (onlyProfileMountPoints(path, snapshot.mountTargets)) continue
    const auto = autoRunAt(path)
    const reason = auto?.reason ?? 'it runs as code without the user invoking it'
    const renamed = renameBlocked(root, path)
    if (renamed.kind === 'skipped') continue
    const name = workspaceRelative(root, path)
    notes.push(
      renamed.kind === 'failed'
        ? `sandbox: ${name} was created by the command and could not be renamed (${renamed.code}): ${reason}. Tell the user to remove it.`
        : `sandbox: ${name} was created by the command and renamed to ${workspaceRelative(root, renamed.to)}: ${reason}, so a command may not create it. Write it under another name and ask the user to put it in place.`,
    )
  }
  return notes
}

/**
 * Is `path` only the chain of directories bubblewrap made for the profile's mount points, each
 * mount point still empty? Follows no link; stops at the first other entry.
 */
function onlyProfileMountPoints(path: string, targets: readonly string[]): boolean {
  const st = lstatOrUndefined(path)
  if (st === undefined) return false
  if (targets.includes(path)) {
    if (st.isFile()) return st.size === 0n
    return st.isDirectory() && readdirSync(path).length === 0
  }
  if (!st.isDirectory() || !targets.some((t) => t !== path && inside(path, t))) return false
  return readdirSync(path).every((name) => onlyProfileMountPoints(join(path, name), targets))
}

/** The top-level entries and the walk's, sorted (stable notes). */
function candidates(root: string, walked: readonly string[]): string[] {
  return [...new Set([...AUTO_RUN_PATHS.map((auto) => join(root, auto.path)), ...walked])].sort()
}

function lstatOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true })
  } catch {
    return undefined
  }
}

function identityOf(st: { readonly dev: bigint; readonly ino: bigint; readonly ctimeNs: bigint }): string {
  return `${st.dev}:${st.ino}:${st.ctimeNs}`
}

function identity(path: string): string | undefined {
  const st = lstatOrUndefined(path)
  return st === undefined ? undefined : identityOf(st)
}
