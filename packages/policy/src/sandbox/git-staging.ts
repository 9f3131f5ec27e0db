import {
  closeSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import type { Mount } from './mounts.js'

/**
 * A git directory inside a writable sandbox (issue 11 §1). Git updates the files at the top of a
 * gitdir by writing `<name>.lock` next to them and renaming it over the old file, so the top
 * directory must be writable for `git add` / `commit` / `checkout -b` to work — and a writable top
 * directory lets a command create `commondir` (pointing git at a configuration it wrote) or any
 * other name the host's git will read. A read-only bind per file cannot help: a rename onto a
 * mount point fails (EBUSY), and a missing name cannot be covered without leaving a file on the
 * host that changes what git does there (an empty `commondir` makes every git command fail).
 *
 * So the gitdir's top is a STAGING directory: a private host directory bound over the gitdir (a
 * mount point: `.git` cannot be renamed or replaced), holding copies of git's own state files
 * (`SYNCED_FILES`), with the real subdirectories git writes (`objects`, `refs`, `logs`, `lfs`,
 * `rr-cache`) bound writable on top and everything else (config, hooks, info, modules, worktrees,
 * commondir, unknown entries) bound read-only. When the command has ended, `sync()` copies back
 * only the state files that changed, each with git's own lock protocol (`<name>.lock` created
 * exclusively, then renamed) and only if the host's file is still the one that was copied in;
 * whatever else the command created at the top is dropped, and the result says so.
 */

/** State files git replaces at the top of a gitdir during normal work (copied in and back). */
const SYNCED_FILES = new Set([
  'HEAD',
  'index',
  'packed-refs',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'MERGE_AUTOSTASH',
  'AUTO_MERGE',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'REBASE_HEAD',
  'COMMIT_EDITMSG',
  'SQUASH_MSG',
  'TAG_EDITMSG',
  'NOTES_MERGE_PARTIAL',
  'NOTES_MERGE_REF',
  'BISECT_LOG',
  'BISECT_START',
  'BISECT_TERMS',
  'BISECT_EXPECTED_REV',
  'BISECT_ANCESTORS_OK',
  'BISECT_NAMES',
  'BISECT_RUN',
  'BISECT_FIRST_PARENT',
  'shallow',
  'description',
])
/**
 * The state files git itself removes when an operation ends (a merge, a cherry-pick, a bisect):
 * only their removal is written back. HEAD, the index, packed-refs and the rest are never
 * removed on the host (a command that deletes them inside only breaks its own view).
 */
const REMOVABLE =
  /^(?:ORIG_HEAD|FETCH_HEAD|MERGE_(?:HEAD|MSG|MODE|AUTOSTASH)|AUTO_MERGE|CHERRY_PICK_HEAD|REVERT_HEAD|REBASE_HEAD|SQUASH_MSG|TAG_EDITMSG|NOTES_MERGE_(?:PARTIAL|REF)|BISECT_[A-Z_]+|shallow|sharedindex\..*)$/

/** Split-index files (`core.splitIndex`): content-addressed, replaced like the index. */
const SHARED_INDEX = /^sharedindex\.[0-9a-f]{40}(?:[0-9a-f]{24})?$/

/** Subdirectories git writes during normal work: bound writable (their contents cannot run code). */
const WRITABLE_DIRS = new Set(['objects', 'refs', 'logs', 'lfs', 'rr-cache'])

/** Left behind by git itself; dropped without a note. */
const IGNORED = /^(?:.*\.lock|gc\.pid|gc\.log)$/

/** A state file larger than this is bound read-only instead of copied (an index of ~1M paths). */
const MAX_COPY_BYTES = 512 * 1024 * 1024
/** Entries at a gitdir's top; a larger top is bound read-only as a whole (fail closed). */
const MAX_TOP_ENTRIES = 4096

const HEAD_CONTENT = /^(?:ref: refs\/[\x21-\x7e]+|[0-9a-f]{40}(?:[0-9a-f]{24})?)\n?$/

/** What a state file must look like to be written back (a broken HEAD or index breaks git on the host). */
function invalid(name: string, path: string): string | undefined {
  if (name === 'HEAD') {
    return HEAD_CONTENT.test(readFileSync(path, 'latin1'))
      ? undefined
      : 'it is not a branch reference or a commit id'
  }
  if (name === 'index' || SHARED_INDEX.test(name)) {
    // "DIRC", then the version (2, 3 or 4), big-endian.
    const fd = openSync(path, 'r')
    try {
      const header = Buffer.alloc(8)
      const n = readSync(fd, header, 0, 8, 0)
      const version = n === 8 ? header.readUInt32BE(4) : 0
      return header.subarray(0, 4).toString('latin1') === 'DIRC' && version >= 2 && version <= 4
        ? undefined
        : 'it is not a git index'
    } finally {
      closeSync(fd)
    }
  }
  return undefined
}

interface Identity {
  readonly ino: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
}

interface Copied {
  /** The host file when it was copied in. */
  readonly host: Identity
  /** The staged copy right after copying (a change means the command replaced or wrote it). */
  readonly staged: Identity
  readonly mode: number
}

export interface GitStage {
  readonly gitdir: string
  /** bwrap mounts, in order: the staging directory over the gitdir, then its entries. */
  readonly mounts: readonly Mount[]
  /**
   * After the command ended: copy changed state files back, drop the rest, remove the staging
   * directory. Resolves to model-facing notes (paths relative to the workspace root).
   */
  sync(): readonly string[]
}

export function stageGitdir(gitdir: string, stagingParent: string, root: string): GitStage {
  const rel = relative(root, gitdir)
  let names: string[]
  try {
    names = readdirSync(gitdir).sort()
  } catch (error) {
    throw new Error(`cannot read the git directory ${rel}: ${(error as Error).message}`)
  }
  if (names.length > MAX_TOP_ENTRIES) {
    return {
      gitdir,
      mounts: [{ kind: 'ro-bind', source: gitdir, target: gitdir }],
      sync: () => [
        `git: ${rel} has more than ${MAX_TOP_ENTRIES} entries at its top, so it is read-only in the sandbox: git commands that change the repository fail there`,
      ],
    }
  }
  // `logs` is created by git on the first ref update anyway; make it now so it is bound writable.
  if (!names.includes('logs')) {
    try {
      mkdirSync(join(gitdir, 'logs'))
      names.push('logs')
    } catch {
      // Not writable for us either: reflogs written in the sandbox are then dropped (noted).
    }
  }
  mkdirSync(stagingParent, { recursive: true })
  const staging = mkdtempSync(join(stagingParent, 'git-'))
  const mounts: Mount[] = [{ kind: 'bind', source: staging, target: gitdir }]
  const copied = new Map<string, Copied>()
  const bound = new Set<string>()
  for (const name of names) {
    const path = join(gitdir, name)
    let st: Stats
    try {
      st = lstatSync(path)
    } catch {
      continue // vanished meanwhile
    }
    if (st.isSymbolicLink()) {
      // Bound read-only when its target exists (the mount follows the link); else left out.
      try {
        statSync(path)
        mounts.push({ kind: 'ro-bind', source: path, target: path })
        bound.add(name)
      } catch {
        // dangling: git in the sandbox sees nothing there
      }
      continue
    }
    if (st.isDirectory() && WRITABLE_DIRS.has(name)) {
      mounts.push({ kind: 'bind', source: path, target: path })
      bound.add(name)
      continue
    }
    if (st.isFile() && isSynced(name) && st.size <= MAX_COPY_BYTES) {
      const host = identity(lstatSync(path, { bigint: true }))
      const target = join(staging, name)
      copyFileSync(path, target, constants.COPYFILE_FICLONE)
      copied.set(name, { host, staged: identity(lstatSync(target, { bigint: true })), mode: st.mode & 0o777 })
      continue
    }
    mounts.push({ kind: 'ro-bind', source: path, target: path })
    bound.add(name)
  }
  let synced: readonly string[] | undefined
  return {
    gitdir,
    mounts,
    sync() {
      synced ??= syncBack(gitdir, staging, rel, copied, bound)
      return synced
    },
  }
}

function syncBack(
  gitdir: string,
  staging: string,
  rel: string,
  copied: ReadonlyMap<string, Copied>,
  bound: ReadonlySet<string>,
): readonly string[] {
  const notes: string[] = []
  const dropped: string[] = []
  const kept: string[] = []
  try {
    let names: string[]
    try {
      names = readdirSync(staging).sort()
    } catch {
      names = []
    }
    for (const name of names) {
      if (bound.has(name) || IGNORED.test(name)) continue
      const staged = join(staging, name)
      let st: ReturnType<typeof lstatSync>
      try {
        st = lstatSync(staged)
      } catch {
        continue
      }
      const before = copied.get(name)
      if (!isSynced(name) || !st.isFile()) {
        dropped.push(name)
        continue
      }
      if (before !== undefined && same(identity(lstatSync(staged, { bigint: true })), before.staged)) continue
      if (st.size > MAX_COPY_BYTES) {
        notes.push(`git: ${join(rel, name)} was not kept: it is larger than ${MAX_COPY_BYTES} bytes`)
        continue
      }
      const problem = invalid(name, staged)
      if (problem !== undefined) {
        notes.push(`git: ${join(rel, name)} was not kept: ${problem}`)
        continue
      }
      const failed = replaceOnHost(gitdir, name, before?.host, staged, before?.mode ?? 0o644)
      if (failed !== undefined) notes.push(`git: ${join(rel, name)} was not kept: ${failed}`)
    }
    for (const [name, before] of copied) {
      if (names.includes(name)) continue
      if (!REMOVABLE.test(name)) {
        kept.push(name)
        continue
      }
      const problem = replaceOnHost(gitdir, name, before.host, undefined, before.mode)
      if (problem !== undefined) notes.push(`git: the removal of ${join(rel, name)} was not kept: ${problem}`)
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  if (kept.length > 0) {
    notes.unshift(
      `git: the removal of ${kept.map((n) => join(rel, n)).join(', ')} was not kept (git itself never removes ${kept.length === 1 ? 'it' : 'them'})`,
    )
  }
  if (dropped.length > 0) {
    const shown = dropped.slice(0, 5).map((n) => join(rel, n))
    const more = dropped.length > 5 ? ` and ${dropped.length - 5} more` : ''
    notes.unshift(
      `git: ${shown.join(', ')}${more} ${dropped.length === 1 ? 'was' : 'were'} created by the command but not kept: in the sandbox only git's own state files at the top of ${rel} are written back (configuration, hooks and pointers to other directories stay as they were; an operation such as a rebase must finish within one command)`,
    )
  }
  return notes
}

/**
 * Git's lock protocol on the host: `<name>.lock` created exclusively (a git running on the host
 * holds it), the host file compared with the one copied in (changed meanwhile: not ours to
 * overwrite), then the new content renamed over it — or the file removed.
 */
function replaceOnHost(
  gitdir: string,
  name: string,
  expected: Identity | undefined,
  staged: string | undefined,
  mode: number,
): string | undefined {
  const target = join(gitdir, name)
  const lock = `${target}.lock`
  let fd: number
  try {
    fd = openSync(lock, 'wx', mode)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'EEXIST'
      ? 'a git command on the host holds its lock; run the command again'
      : `cannot write it (${code ?? 'error'})`
  }
  closeSync(fd)
  let locked = true
  try {
    let current: Identity | undefined
    try {
      current = identity(lstatSync(target, { bigint: true }))
    } catch {
      current = undefined
    }
    const unchanged =
      current === undefined ? expected === undefined : expected !== undefined && same(current, expected)
    if (!unchanged) return 'it changed outside the sandbox while the command ran; run the command again'
    if (staged === undefined) {
      unlinkSync(target)
      return undefined
    }
    copyFileSync(staged, lock)
    renameSync(lock, target)
    locked = false
    return undefined
  } catch (error) {
    return `cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`
  } finally {
    if (locked) rmSync(lock, { force: true })
  }
}

function isSynced(name: string): boolean {
  return SYNCED_FILES.has(name) || SHARED_INDEX.test(name)
}

function identity(st: { ino: bigint; size: bigint; mtimeNs: bigint }): Identity {
  return { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs }
}

function same(a: Identity, b: Identity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs
}
