import { type Dirent, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A bounded walk of the workspace before each sandboxed command (issue 11 §1, §3):
 * - `.env*` files (secrets by convention; not `.env.example`, `.env.sample`, `.env.template`):
 *   hidden from bash, as the permission table asks before any other tool reads them.
 * - nested `.git` entries (repositories inside the workspace: vendored clones, submodule working
 *   trees): read-only, so their configuration and hooks cannot be changed for the host's git.
 *
 * Symbolic links are not followed; dependency and build-cache directories are skipped
 * (`SKIPPED_DIRS`). The walk stops after `MAX_ENTRIES` entries or below `MAX_DEPTH`; `complete`
 * says whether it saw everything (README "Sandbox", known limits).
 */
export interface WorkspaceScan {
  readonly envFiles: readonly string[]
  readonly nestedGit: readonly string[]
  readonly complete: boolean
}

export const MAX_SCAN_ENTRIES = 20_000
export const MAX_SCAN_DEPTH = 8

const SKIPPED_DIRS = new Set([
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '.gradle',
  '.terraform',
  'target',
])

/** Environment files that hold no secrets by convention (the permission table exempts them). */
const ENV_TEMPLATES = new Set(['.env.example', '.env.sample', '.env.template'])

export function isEnvFile(name: string): boolean {
  return name.startsWith('.env') && !ENV_TEMPLATES.has(name)
}

export function scanWorkspace(
  root: string,
  limits: { readonly maxEntries?: number; readonly maxDepth?: number } = {},
): WorkspaceScan {
  const maxEntries = limits.maxEntries ?? MAX_SCAN_ENTRIES
  const maxDepth = limits.maxDepth ?? MAX_SCAN_DEPTH
  const envFiles: string[] = []
  const nestedGit: string[] = []
  let seen = 0
  let complete = true
  let level: string[] = [root]
  for (let depth = 0; level.length > 0; depth++) {
    const next: string[] = []
    for (const dir of level) {
      let entries: Dirent[]
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch {
        continue
      }
      seen += entries.length
      if (seen > maxEntries) {
        complete = false
        return { envFiles, nestedGit, complete }
      }
      for (const e of entries) {
        const path = join(dir, e.name)
        if (e.name === '.git') {
          if (depth > 0) nestedGit.push(path)
          continue
        }
        if (e.isDirectory()) {
          if (SKIPPED_DIRS.has(e.name)) continue
          if (depth + 1 > maxDepth) complete = false
          else next.push(path)
        } else if ((e.isFile() || e.isSymbolicLink()) && isEnvFile(e.name)) {
          envFiles.push(path)
        }
      }
    }
    level = next
  }
  return { envFiles, nestedGit, complete }
}
