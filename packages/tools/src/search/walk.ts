import { constants, type Dirent } from 'node:fs'
import { type FileHandle, open, opendir, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'

// The one directory walk behind glob and the grep fallback: depth first, entries of each directory
// in byte order of their names (what `rg --sort path` does, so both grep backends list files in the
// same order), symlinks not followed (ripgrep's default), version-control and dependency
// directories skipped below the starting point, only regular files yielded (a FIFO, socket or
// device is never offered to a reader).
//
// What was listed is what was checked (issue 13 §3): on Linux each directory is opened with O_NOFOLLOW and listed through its descriptor (`/proc/self/fd/N`) after the
// descriptor's real path proved to be the walked path, so a directory swapped for a link during
// the walk is skipped, not followed out of the tree. Without procfs it is listed by name.
//
// Never unbounded on the agent's thread: the walk gives the event loop a turn every
// WALK_CHUNK entries and checks the call's signal, so a timeout or an abort ends it promptly.

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
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0)
const PROCFS = process.platform === 'linux'

/** A directory's entries, or `undefined` when it cannot be listed as the very directory walked. */
async function list(dir: string): Promise<Dirent[] | undefined> {
  let handle: FileHandle | undefined
  try {
    let source = dir
    if (PROCFS) {
      handle = await open(dir, DIR_FLAGS)
      const fd = `/proc/self/fd/${handle.fd}`
      if ((await readlink(fd)) !== dir) return undefined
      source = fd
    }
    const entries: Dirent[] = []
    for await (const entry of await opendir(source)) entries.push(entry)
    return entries
  } catch {
    return undefined // unreadable, gone, or a link now: skipped (as ripgrep skips what it cannot read)
  } finally {
    await handle?.close()
  }
}

/**
 * Regular files under `dir`, in traversal order. `dir` must be a real path (no links: the caller
 * resolved and checked it), since every directory's descriptor must prove to be the walked path.
 */
export async function* walkFiles(dir: string, signal?: AbortSignal): AsyncGenerator<WalkEntry> {
  let handled = 0
  async function* walk(at: string, relative: string): AsyncGenerator<WalkEntry> {
    const entries = await list(at)
    if (entries === undefined) return
    entries.sort(byName)
    for (const entry of entries) {
      if (++handled % WALK_CHUNK === 0) await nextTurn()
      signal?.throwIfAborted()
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) yield* walk(join(at, entry.name), rel)
      } else if (entry.isFile()) {
        yield { path: join(at, entry.name), relative: rel, name: entry.name }
      }
    }
  }
  signal?.throwIfAborted()
  yield* walk(dir, '')
}
