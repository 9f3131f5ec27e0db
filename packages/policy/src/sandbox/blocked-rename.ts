import { lstatSync, renameSync } from 'node:fs'
import { dirname, relative } from 'node:path'

/**
 * Renaming what a command made to `<name>.toolgate-blocked` (`-2`, `-3`, … when that name is
 * taken), shared by `new-repositories.ts` and `new-auto-run.ts`. The rename must not follow a
 * link the command left in the path (it could lead out of the workspace).
 */
const BLOCKED = '.toolgate-blocked'

export type BlockedRename =
  | { readonly kind: 'renamed'; readonly to: string }
  | { readonly kind: 'failed'; readonly code: string }
  | { readonly kind: 'skipped' }

export function renameBlocked(root: string, path: string): BlockedRename {
  const to = blockedName(path)
  if (!realDirectoriesBetween(root, dirname(path))) return { kind: 'skipped' }
  try {
    renameSync(path, to)
    return { kind: 'renamed', to }
  } catch (error) {
    return { kind: 'failed', code: (error as NodeJS.ErrnoException).code ?? 'error' }
  }
}

function realDirectoriesBetween(root: string, dir: string): boolean {
  let current = dir
  while (current !== root) {
    try {
      if (!lstatSync(current).isDirectory()) return false
    } catch {
      return false
    }
    const up = dirname(current)
    if (up === current) return false
    current = up
  }
  return true
}

function blockedName(path: string): string {
  let candidate = `${path}${BLOCKED}`
  for (let n = 2; exists(candidate); n++) candidate = `${path}${BLOCKED}-${n}`
  return candidate
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** A workspace path for the model (`.` for the root itself). */
export function workspaceRelative(root: string, path: string): string {
  return relative(root, path) || '.'
}
