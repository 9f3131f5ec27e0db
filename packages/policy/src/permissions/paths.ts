import { lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

/**
 * Path resolution before any matching: `~` expanded (the policy assumes a shell would expand it,
 * even where a tool would not: fail closed), `..` normalized, symlinks resolved — also for a file
 * that does not exist yet, through its nearest existing parent, and through dangling links.
 */

export interface ResolvedPath {
  /** As written, made absolute and normalized (`..` folded), symlinks not followed. */
  readonly lexical: string
  /** Symlinks followed; `undefined` when they could not be resolved (a loop): fail closed. */
  readonly real: string | undefined
}

const MAX_LINKS = 40

export function expandHome(path: string, home: string): string {
  if (path === '~') return home
  if (path.startsWith('~/')) return join(home, path.slice(2))
  const user = TILDE_USER.exec(path)
  if (user !== null) {
    const h = userHome(user[1]!)
    if (h !== undefined) return join(h, path.slice(user[0].length))
  }
  return path
}

/** `~name` or `~name/...` (bash expands it to that user's home directory). */
export const TILDE_USER = /^~([A-Za-z_][A-Za-z0-9_.-]*)(?:\/|$)/

let passwd: Map<string, string> | undefined

/**
 * A user's home directory from /etc/passwd (read once, at most 1 MB), or `undefined` when the user
 * is not listed there (bash may still find one through NSS: callers treat that as unknown).
 */
export function userHome(name: string): string | undefined {
  if (passwd === undefined) {
    passwd = new Map()
    try {
      const text = readFileSync('/etc/passwd', 'utf8').slice(0, 1 << 20)
      for (const line of text.split('\n')) {
        const f = line.split(':')
        if (f.length >= 7 && f[0] !== '' && f[5]!.startsWith('/')) passwd.set(f[0]!, f[5]!)
      }
    } catch {
      // No passwd file: every ~name is unknown.
    }
  }
  return passwd.get(name)
}

export function resolvePath(path: string, root: string, home: string): ResolvedPath {
  const expanded = expandHome(path, home)
  const lexical = isAbsolute(expanded) ? resolve(expanded) : resolve(root, expanded)
  return { lexical, real: realPath(lexical) }
}

/** Follow every symlink on the way, whether or not the final file exists. */
export function realPath(absolute: string): string | undefined {
  try {
    return realpathSync.native(absolute)
  } catch {
    // Missing file or dangling link: resolve step by step below.
  }
  let links = 0
  let pending = absolute.split(sep).filter((s) => s !== '')
  let current: string = sep
  while (pending.length > 0) {
    const name = pending.shift()!
    if (name === '.') continue
    if (name === '..') {
      current = dirname(current)
      continue
    }
    const next = join(current, name)
    let isLink = false
    try {
      isLink = lstatSync(next).isSymbolicLink()
    } catch {
      // Does not exist: the rest is appended as written (already normalized).
      return join(next, ...pending)
    }
    if (!isLink) {
      current = next
      continue
    }
    if (++links > MAX_LINKS) return undefined
    let target: string
    try {
      target = readlinkSync(next)
    } catch {
      return undefined // unreadable link (`/proc/1/cwd`): unresolvable, fail closed
    }
    pending = [...target.split(sep).filter((s) => s !== ''), ...pending]
    if (isAbsolute(target)) current = sep
  }
  return current
}

/** `child` relative to `root` with '/' separators, or `undefined` when outside `root`. */
export function insideRoot(child: string, root: string): string | undefined {
  if (child === root) return ''
  const rel = relative(root, child)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined
  return rel.split(sep).join('/')
}
