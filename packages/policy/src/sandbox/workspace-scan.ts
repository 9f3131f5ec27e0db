import { type Dirent, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { autoRunAt } from './new-auto-run.js'
import { looksBare } from './new-repositories.js'

/**
 * A bounded walk of the workspace before each sandboxed command (issue 11 §1, §3):
 * - `.env*` files (secrets by convention; not `.env.example`, `.env.sample`, `.env.template`):
 *   hidden from bash, as the permission table asks before any other tool reads them.
 * - nested `.git` entries (repositories inside the workspace: vendored clones, submodule working
 *   trees): read-only, so their configuration and hooks cannot be changed for the host's git.
 * - `.git` entries and bare layouts anywhere: the same walk after the command finds the ones it
 *   made (`new-repositories.ts`).
 * - auto-run files (`AUTO_RUN_PATHS`) anywhere: existing ones read-only; the same walk after the
 *   command finds the ones it made (`new-auto-run.ts`).
 *
 * Symbolic links are not followed; dependency and build-cache directories are skipped
 * (`SKIPPED_DIRS`). The walk stops after `MAX_ENTRIES` entries or below `MAX_DEPTH`; `complete`
 * says whether it saw everything (README "Sandbox", known limits).
 */
export interface WorkspaceScan {
  readonly envFiles: readonly string[]
  readonly nestedGit: readonly string[]
  /**
   * Where a repository may sit: every `.git` entry (the top one too) and the HEAD of every
   * directory laid out as a bare gitdir (`looksBare`); see `new-repositories.ts`.
   */
  readonly repositories: readonly string[]
  /** Every entry at an auto-run path (`sub/.envrc`, `.vscode/tasks.json`), of any type. */
  readonly autoRun: readonly string[]
  readonly complete: boolean
}

const MAX_SCAN_ENTRIES = 20_000
const MAX_SCAN_DEPTH = 8

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

function isEnvFile(name: string): boolean {
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
  const repositories: string[] = []
  const autoRun: string[] = []
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
        return { envFiles, nestedGit, repositories, autoRun, complete }
      }
      if (looksBare(new Set(entries.map((e) => e.name)))) repositories.push(join(dir, 'HEAD'))
      for (const e of entries) {
        const path = join(dir, e.name)
        if (e.name === '.git') {
          if (depth > 0) nestedGit.push(path)
          repositories.push(path)
          continue
        }
        if (autoRunAt(path) !== undefined) autoRun.push(path)
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
  return { envFiles, nestedGit, repositories, autoRun, complete }
}
