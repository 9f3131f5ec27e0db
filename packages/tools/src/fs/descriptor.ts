import { constants } from 'node:fs'
import { type FileHandle, lstat, readlink, realpath } from 'node:fs/promises'
import { join } from 'node:path'

// Where an open descriptor really is (DESIGN.md §6 "paths are checked on the opened descriptor,
// not on a name that can change"). Linux: the kernel's own answer, `readlink /proc/self/fd/N`, and
// `/proc/self/fd/N/name` as an openat(N, name) for creating inside a verified directory. Elsewhere
// (no procfs): the real path of the name we opened, accepted only when the file found there now
// is the one we hold (same device and inode); any other answer is "changed", which fails closed.

export type PathStrategy = 'procfs' | 'realpath'

/** Never wait (a FIFO without a writer, a device) and never adopt a terminal. */
const NOWAIT = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)
/** And never follow a final symbolic link. */
const SAFE = (constants.O_NOFOLLOW ?? 0) | NOWAIT

export const OPEN_FLAGS = {
  read: constants.O_RDONLY | SAFE,
  modify: constants.O_RDWR | SAFE,
  create: constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | SAFE,
  // Directories are reached through links like any path component; their descriptor is judged.
  directory: constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | NOWAIT,
  // A walk's subdirectory, opened inside its parent's descriptor: a link there is refused.
  childDirectory: constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | SAFE,
} as const

/** Without O_NOFOLLOW (Windows) a final link cannot be refused at open: file tools fail closed. */
export const CAN_OPEN_SAFELY = constants.O_NOFOLLOW !== undefined && constants.O_NONBLOCK !== undefined

let strategy: PathStrategy | undefined

/** Force a strategy (tests run the fallback on Linux too); `undefined` detects again. */
export function setPathStrategy(next: PathStrategy | undefined): void {
  strategy = next
}

export interface Identity {
  readonly dev: bigint
  readonly ino: bigint
}

/**
 * The real path of the file `handle` holds, or `undefined` when it cannot be confirmed (the file
 * was removed or replaced while we looked). `opened` is the name it was opened by (for the
 * fallback), `identity` its fstat.
 */
export async function descriptorPath(
  handle: FileHandle,
  opened: string,
  identity: Identity,
): Promise<string | undefined> {
  let real: string | undefined
  if (strategy !== 'realpath' && process.platform === 'linux') {
    try {
      real = await readlink(`/proc/self/fd/${handle.fd}`)
      strategy = 'procfs'
    } catch {
      if (strategy === 'procfs') return undefined
      strategy = 'realpath'
    }
  }
  if (real === undefined) {
    try {
      real = await realpath(opened)
    } catch {
      return undefined
    }
  }
  // The name must hold our very file now: a deleted file reads "<path> (deleted)" in procfs, a
  // replaced one has another inode. Either way the path we would check is not what we hold.
  return (await sameFile(real, identity)) ? real : undefined
}

/** Whether `path` (not followed) is the file with this device and inode. */
export async function sameFile(path: string, identity: Identity): Promise<boolean> {
  try {
    const now = await lstat(path, { bigint: true })
    return now.dev === identity.dev && now.ino === identity.ino
  } catch {
    return false
  }
}

/**
 * A path that names `name` inside the directory `dir` holds: `/proc/self/fd/N/name` on Linux
 * (resolved from the descriptor, so no component above can be swapped), else `real/name`.
 */
export function inDirectory(
  dir: { readonly handle: FileHandle; readonly real: string },
  name: string,
): string {
  return strategy === 'procfs' ? `/proc/self/fd/${dir.handle.fd}/${name}` : join(dir.real, name)
}
