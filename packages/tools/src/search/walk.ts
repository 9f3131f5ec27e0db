import type { Dirent } from 'node:fs'
import { type FileHandle, open, readdir, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { OPEN_FLAGS } from '../fs/descriptor.js'

// The one directory walk behind glob and the grep fallback: depth first, entries of each directory
// in byte order of their names (what `rg --sort path` does, so both grep backends list files in the
// same order), symlinks not followed (ripgrep's default), version-control and dependency
// directories skipped below the starting point, only regular files yielded (a FIFO, socket or
// device is never offered to a reader).
//
// What was listed is what was checked (issue 13 §3): on Linux the walk holds a descriptor for each
// directory on its way down and reaches everything through it (`/proc/self/fd/N/name`, an
// openat): a subdirectory is opened O_NOFOLLOW inside its parent's descriptor and listed through
// its own, and a file is offered by a name anchored the same way. A directory swapped for a link
// during the walk is skipped, never followed out of the tree. Without procfs it walks by name.
//
// Never unbounded on the agent's thread: the walk gives the event loop a turn every WALK_CHUNK
// entries and checks the call's signal, so a timeout or an abort ends it promptly.

/** Directory names never descended into (a path inside one can still be searched explicitly). */
export const SKIPPED_DIRS: readonly string[] = ['.git', '.hg', '.svn', 'node_modules']
const SKIPPED = new Set(SKIPPED_DIRS)

/** Entries handled between two turns of the event loop. */
export const WALK_CHUNK = 256

export interface WalkEntry {
  /** Absolute path. */
  readonly path: string
  /** Path relative to the walk's start, with `/` separators. */
  readonly relative: string
  readonly name: string
  /**
   * The name to open the file by: anchored in its directory's descriptor (`anchored`), or `path`
   * (then the opener must check the descriptor's real path itself).
   */
  readonly opener: string
  readonly anchored: boolean
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

const DIR_FLAGS = OPEN_FLAGS.childDirectory
const PROCFS = process.platform === 'linux'

/**
 * Regular files under `dir`, in traversal order. `dir` must be a real path (no links: the caller
 * resolved and checked it); on Linux its descriptor must prove it still is.
 */
export async function* walkFiles(dir: string, signal?: AbortSignal): AsyncGenerator<WalkEntry> {
  let handled = 0
  async function* walk(at: string, relative: string, source: string): AsyncGenerator<WalkEntry> {
    let entries: Dirent[]
    try {
      entries = await readdir(source, { withFileTypes: true })
    } catch {
      return // unreadable or gone: skipped, as ripgrep skips what it cannot read
    }
    entries.sort(byName)
    for (const entry of entries) {
      if (++handled % WALK_CHUNK === 0) await nextTurn()
      signal?.throwIfAborted()
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
      const path = join(at, entry.name)
      if (entry.isDirectory()) {
        if (SKIPPED.has(entry.name)) continue
        if (!PROCFS) {
          yield* walk(path, rel, path)
          continue
        }
        let child: FileHandle
        try {
          child = await open(`${source}/${entry.name}`, DIR_FLAGS)
        } catch {
          continue // a link (or gone) since it was listed
        }
        try {
          yield* walk(path, rel, `/proc/self/fd/${child.fd}`)
        } finally {
          await child.close()
        }
      } else if (entry.isFile()) {
        yield { path, relative: rel, name: entry.name, opener: `${source}/${entry.name}`, anchored: PROCFS }
      }
    }
  }
  signal?.throwIfAborted()
  if (!PROCFS) {
    yield* walk(dir, '', dir)
    return
  }
  let root: FileHandle
  try {
    root = await open(dir, DIR_FLAGS)
  } catch {
    return
  }
  try {
    const source = `/proc/self/fd/${root.fd}`
    if ((await readlink(source)) === dir) yield* walk(dir, '', source)
  } finally {
    await root.close()
  }
}
