import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * ripgrep skips hidden files, unless a rule in an ignore file whitelists them: a `!.env` line in a
 * `.ignore`, `.rgignore` or `.gitignore` (in the searched tree or any directory above it), in
 * `.git/info/exclude` or in git's global excludes file makes `rg KEY` read `.env` (checked with
 * ripgrep 13). The model can write such a file in the workspace, so "rg skips hidden names" holds
 * only when no ignore file it reads has a negated line. Fail closed: past the walk's budget, or when
 * a git configuration names another excludes file (`core.excludesFile`), hidden files count as read.
 */

const IGNORE_FILES = ['.ignore', '.rgignore', '.gitignore'] as const
const MAX_BYTES = 1 << 20

export function hiddenMayBeWhitelisted(dir: string, home: string, budget: { left: number }): boolean {
  // The searched directory and every directory above it.
  for (let d = dir; ; d = dirname(d)) {
    if (negatesIn(d) || negates(join(d, '.git', 'info', 'exclude'))) return true
    if (mentionsExcludesFile(join(d, '.git', 'config'))) return true
    if (d === dirname(d)) break
  }
  const xdg = process.env.XDG_CONFIG_HOME
  const configHome = xdg !== undefined && xdg !== '' ? xdg : join(home, '.config')
  if (negates(join(configHome, 'git', 'ignore'))) return true
  for (const f of [join(home, '.gitconfig'), join(configHome, 'git', 'config')])
    if (mentionsExcludesFile(f)) return true
  // Directories below it that ripgrep enters (hidden ones are skipped).
  const queue = [dir]
  while (queue.length > 0) {
    const d = queue.shift()!
    let names: string[]
    try {
      names = readdirSync(d)
    } catch {
      continue
    }
    if (d !== dir && negatesIn(d)) return true
    for (const name of names) {
      if (name.startsWith('.')) continue
      if (--budget.left < 0) return true
      const path = join(d, name)
      try {
        if (statSync(path).isDirectory()) queue.push(path)
      } catch {
        // vanished or unreadable: ripgrep cannot enter it either
      }
    }
  }
  return false
}

function negatesIn(dir: string): boolean {
  return IGNORE_FILES.some((f) => negates(join(dir, f)))
}

/**
 * Does the file hold a negated pattern that can whitelist a hidden name? Its last segment must be
 * able to start with a dot (`!.env`, `!*`, `![.]x`, or a directory then `.e?v`); `!dist/keep` cannot.
 */
function negates(file: string): boolean {
  const text = head(file)
  if (text === undefined) return false
  for (const line of text.split('\n')) {
    const m = /^[ \t]*!(.*)$/.exec(line)
    if (m === null) continue
    const last = m[1]!.trim().replace(/\/+$/, '').split('/').pop() ?? ''
    if (last === '' || /^[.*?[\\{]/.test(last)) return true
  }
  return false
}

function mentionsExcludesFile(file: string): boolean {
  const text = head(file)
  return text !== undefined && /excludesfile/i.test(text)
}

/** The first MAX_BYTES of a regular file, or undefined. */
function head(file: string): string | undefined {
  let fd: number | undefined
  try {
    const st = statSync(file)
    if (!st.isFile()) return undefined
    fd = openSync(file, 'r')
    const size = Math.min(st.size, MAX_BYTES)
    const buf = Buffer.alloc(size)
    const n = size === 0 ? 0 : readSync(fd, buf, 0, size, 0)
    return buf.subarray(0, n).toString('utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
