import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A snapshot of a directory tree: for every entry its type, size, mode, mtime, ctime, inode and
 * content hash (a symlink's target). ctime and inode make it exact: any write, chmod, rename over,
 * or `touch -d` back to the old time changes them, so an unchanged snapshot means an unchanged tree
 * (atime aside), and a worker's tree can be reused for the next command without copying it again.
 */
export interface Entry {
  readonly type: 'file' | 'dir' | 'symlink' | 'other'
  readonly size: bigint
  readonly mode: bigint
  readonly mtimeNs: bigint
  readonly ctimeNs: bigint
  readonly ino: bigint
  readonly hash: string
}

export type Snapshot = ReadonlyMap<string, Entry>

/** Trees larger than this are not walked further (a command that made them wrote anyway). */
export const MAX_ENTRIES = 20_000

export function snapshot(root: string): Snapshot {
  const out = new Map<string, Entry>()
  const walk = (rel: string): void => {
    if (out.size >= MAX_ENTRIES) return
    const abs = rel === '' ? root : join(root, rel)
    const st = lstatSync(abs, { bigint: true })
    const type = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other'
    let hash = ''
    if (type === 'file') hash = createHash('sha1').update(readFileSync(abs)).digest('hex')
    else if (type === 'symlink') hash = readlinkSync(abs)
    out.set(rel === '' ? '.' : rel, {
      type,
      size: type === 'dir' ? 0n : st.size,
      mode: st.mode,
      mtimeNs: st.mtimeNs,
      ctimeNs: st.ctimeNs,
      ino: st.ino,
      hash,
    })
    if (type === 'dir') {
      for (const name of readdirSync(abs).sort()) walk(rel === '' ? name : `${rel}/${name}`)
    }
  }
  walk('')
  return out
}

export interface Change {
  readonly kind: 'created' | 'deleted' | 'changed'
  readonly path: string
  /** What differs (`content`, `mode`, `mtime` ...) or the entry's type and size. */
  readonly detail: string
}

/**
 * Directories whose own times may change without it counting as a write, when the entries inside
 * are unchanged: a file was created there and removed again. `tmp` holds temporary files (`tac`
 * and `sort` spill to $TMPDIR); `.git` gets git's optional `index.lock` from `git status`/`diff`
 * (created and removed again; a rewritten index or ref still shows as a change of that file).
 */
export type TransientDirs = readonly string[]

export function diffSnapshots(before: Snapshot, after: Snapshot, transientDirs: TransientDirs): Change[] {
  const changes: Change[] = []
  for (const [path, a] of after) {
    const b = before.get(path)
    if (b === undefined) {
      changes.push({ kind: 'created', path, detail: `${a.type}, ${a.size} bytes` })
      continue
    }
    const what: string[] = []
    if (a.type !== b.type) what.push(`type ${b.type} -> ${a.type}`)
    if (a.hash !== b.hash) what.push('content')
    if (a.size !== b.size) what.push(`size ${b.size} -> ${a.size}`)
    if (a.mode !== b.mode) what.push(`mode ${b.mode.toString(8)} -> ${a.mode.toString(8)}`)
    if (a.ino !== b.ino) what.push('inode (replaced)')
    const timesOnly = a.type === 'dir' && transientDirs.includes(path)
    if (!timesOnly) {
      if (a.mtimeNs !== b.mtimeNs) what.push('mtime')
      if (a.ctimeNs !== b.ctimeNs) what.push('ctime')
    }
    if (what.length > 0) changes.push({ kind: 'changed', path, detail: what.join(', ') })
  }
  for (const [path, b] of before) {
    if (!after.has(path)) changes.push({ kind: 'deleted', path, detail: `${b.type}, ${b.size} bytes` })
  }
  return changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
}
