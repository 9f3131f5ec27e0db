import { createHash } from 'node:crypto'
import type { BigIntStats } from 'node:fs'

// Read-before-edit (issue 4 §4, seed 001 §6.9 "fs-observation-policy"): editing or overwriting an
// existing file needs a read of its current version in this session. A version is identified by
// mtime + size + SHA-256 of the content: mtime alone misses same-second rewrites and tools that
// restore mtimes; the hash alone would force a full read just to notice an obvious change.

/** What was observed of one file's version. */
export interface FileStamp {
  readonly mtimeMs: number
  readonly size: number
  readonly sha256: string
}

export type ObservationCheck =
  | { readonly kind: 'fresh' }
  | { readonly kind: 'unread' }
  | { readonly kind: 'stale'; readonly observed: FileStamp; readonly current: FileStamp }

export function sha256(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex')
}

/** mtime (ms, sub-millisecond digits kept) and size of a descriptor's fstat: every stamp's basis. */
export function statFields(stat: BigIntStats): { readonly mtimeMs: number; readonly size: number } {
  return { mtimeMs: Number(stat.mtimeNs) / 1e6, size: Number(stat.size) }
}

export function stampOf(stat: BigIntStats, content: Uint8Array): FileStamp {
  return { ...statFields(stat), sha256: sha256(content) }
}

/**
 * The session's record of which file versions the model has seen. One instance per plugin instance
 * (so per runtime): what one session read never vouches for another session's edit.
 */
export class FsObservations {
  readonly #seen = new Map<string, FileStamp>()
  readonly #locks = new Map<string, Promise<void>>()

  /** Remember that the model has seen this version (a read, or its own write/edit). */
  record(absolutePath: string, stamp: FileStamp): void {
    this.#seen.set(absolutePath, stamp)
  }

  /** Forget a path (the file was removed or the observation must not be trusted). */
  forget(absolutePath: string): void {
    this.#seen.delete(absolutePath)
  }

  get(absolutePath: string): FileStamp | undefined {
    return this.#seen.get(absolutePath)
  }

  /** Compare the current version against the last one the model saw. */
  check(absolutePath: string, current: FileStamp): ObservationCheck {
    const observed = this.#seen.get(absolutePath)
    if (observed === undefined) return { kind: 'unread' }
    if (
      observed.size === current.size &&
      observed.sha256 === current.sha256 &&
      observed.mtimeMs === current.mtimeMs
    ) {
      return { kind: 'fresh' }
    }
    return { kind: 'stale', observed, current }
  }

  /**
   * Run `fn` holding this path's lock: check-then-write is one step even when calls from several
   * agents or batches touch the same file (edit and write are exclusive within a batch already).
   */
  async withLock<T>(absolutePath: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(absolutePath) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((resolve) => {
      release = resolve
    })
    const tail = previous.then(() => mine)
    this.#locks.set(absolutePath, tail)
    await previous
    try {
      return await fn()
    } finally {
      release()
      if (this.#locks.get(absolutePath) === tail) this.#locks.delete(absolutePath)
    }
  }
}
