// Where a session's log lives. By default in the workspace, `<root>/.toolgate/sessions/`, so that
// `run --continue` finds the latest session of this workspace; the directory ignores itself for git
// (a `.gitignore` of `*`), and the agent cannot write there (`.toolgate/**` is a protected path).
// Every failure a user can cause here (a directory given as --log, a log directory that cannot be
// created, no session to continue) is one line for exit code 3, never a stack trace.
import { closeSync, mkdirSync, openSync, readdirSync, statSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'

const SESSIONS_DIR = join('.toolgate', 'sessions')

export type LogChoice = { ok: true; path: string } | { ok: false; message: string }

/** A fresh log path in `<root>/.toolgate/sessions/` (UTC timestamp, then the pid: unique and sortable). */
export function defaultLogPath(root: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  return join(root, SESSIONS_DIR, `${stamp}-${process.pid}.jsonl`)
}

/** Make sure a log can be written at `path`: its directory exists, and it is not a directory itself. */
export function prepareLog(path: string): LogChoice {
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
      return {
        ok: false,
        message: `the log path ${path} is a directory; give a file name, e.g. ${join(path, 'session.jsonl')}`,
      }
    const dir = dirname(path)
    mkdirSync(dir, { recursive: true })
    if (dir.endsWith(SESSIONS_DIR)) ignoreForGit(dir)
    return { ok: true, path }
  } catch (error) {
    return { ok: false, message: `cannot create the log directory for ${path}: ${reason(error)}` }
  }
}

/** The most recently written log of this workspace (for `--continue`). */
export function latestLog(root: string): LogChoice {
  const dir = join(root, SESSIONS_DIR)
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'))
  } catch {
    names = []
  }
  let best: { path: string; mtime: number } | undefined
  for (const name of names) {
    const path = join(dir, name)
    const stat = statSync(path, { throwIfNoEntry: false })
    if (!stat?.isFile()) continue
    if (!best || stat.mtimeMs > best.mtime || (stat.mtimeMs === best.mtime && path > best.path))
      best = { path, mtime: stat.mtimeMs }
  }
  return best
    ? { ok: true, path: best.path }
    : {
        ok: false,
        message: `there is no session to continue in ${dir} (start one with toolgate run or toolgate chat)`,
      }
}

/** A `.gitignore` of `*` in a directory of generated files: git never shows them. */
function ignoreForGit(dir: string): void {
  try {
    const fd = openSync(join(dir, '.gitignore'), 'wx')
    try {
      writeSync(fd, '*\n')
    } finally {
      closeSync(fd)
    }
  } catch {
    // Already there (or not writable: the log itself will say so).
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
