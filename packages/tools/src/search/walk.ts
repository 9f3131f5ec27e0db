import { opendir } from 'node:fs/promises'
import { join } from 'node:path'

// The one directory walk behind glob and the grep fallback: depth first, entries of each directory
// in byte order of their names (what `rg --sort path` does, so both grep backends list files in the
// same order), symlinks not followed (ripgrep's default), version-control and dependency
// directories skipped below the starting point.

/** Directory names never descended into (a path inside one can still be searched explicitly). */
export const SKIPPED_DIRS: readonly string[] = ['.git', '.hg', '.svn', 'node_modules']
const SKIPPED = new Set(SKIPPED_DIRS)

export interface WalkEntry {
  /** Absolute path. */
  readonly path: string
  /** Path relative to the walk's start, with `/` separators. */
  readonly relative: string
  readonly name: string
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** Regular files under `dir`, in traversal order. Unreadable directories are skipped. */
export async function* walkFiles(
  dir: string,
  signal?: AbortSignal,
  relative = '',
): AsyncGenerator<WalkEntry> {
  let entries: { name: string; isDirectory(): boolean; isFile(): boolean }[]
  try {
    const handle = await opendir(dir)
    entries = []
    for await (const entry of handle) entries.push(entry)
  } catch {
    return
  }
  entries.sort(byName)
  for (const entry of entries) {
    signal?.throwIfAborted()
    const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) yield* walkFiles(join(dir, entry.name), signal, rel)
    } else if (entry.isFile()) {
      yield { path: join(dir, entry.name), relative: rel, name: entry.name }
    }
  }
}
