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
  statSync,
  unlinkSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
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
 * (`SYNCED_FILES`) and of the reflogs (`logs/`), with `objects/`, `refs/` and `lfs/` bound
 * writable on top and everything else (config, hooks, info, modules, worktrees, rr-cache,
 * commondir, unknown entries) bound read-only. When the command has ended, `sync()` writes back
 * only the state files and reflogs that changed, each with git's lock protocol (`<name>.lock`
 * created exclusively, then renamed) and only if the host's file is still the one that was copied
 * in; whatever else the command created there is dropped, and the result says so.
 *
 * The reflogs are copied, not bound: git APPENDS to them through whatever the path names, so a
 * reflog the command replaced by a symbolic link to a hook would make the host's next
 * `git checkout` append a line holding a branch name the command chose (`$(...)` runs) to that
 * hook. Only regular files come back. `refs/` stays bound (git replaces refs by rename, never
 * through a link), but symbolic links the command made there are removed afterwards.
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
 * The top-level state files git itself removes when an operation ends (a merge, a cherry-pick, a
 * bisect): only their removal is written back. HEAD, the index, packed-refs and the rest are never
 * removed on the host (a command that deletes them inside only breaks its own view). Reflogs of
 * refs (`logs/refs/...`) may be removed (git deletes a branch's reflog with the branch); HEAD's not.
 */
const REMOVABLE =
  /^(?:ORIG_HEAD|FETCH_HEAD|MERGE_(?:HEAD|MSG|MODE|AUTOSTASH)|AUTO_MERGE|CHERRY_PICK_HEAD|REVERT_HEAD|REBASE_HEAD|SQUASH_MSG|TAG_EDITMSG|NOTES_MERGE_(?:PARTIAL|REF)|BISECT_[A-Z_]+|shallow|sharedindex\..*|logs\/refs\/.*)$/

/** Split-index files (`core.splitIndex`): content-addressed, replaced like the index. */
const SHARED_INDEX = /^sharedindex\.[0-9a-f]{40}(?:[0-9a-f]{24})?$/

/**
 * Subdirectories bound writable: git writes into them by creating a temporary file and renaming
 * it (objects, refs; git-lfs objects), so a link there cannot redirect a write to a chosen name.
 */
const WRITABLE_DIRS = new Set(['objects', 'refs', 'lfs'])
/** Subdirectories copied in and written back file by file (see above). */
const LOGS = 'logs'

/** Left behind by git itself; dropped without a note. */
const IGNORED = /^(?:.*\.lock|gc\.pid|gc\.log)$/

/** A state file larger than this is bound read-only instead of copied (an index of ~1M paths). */
const MAX_COPY_BYTES = 512 * 1024 * 1024
/** Entries at a gitdir's top; a larger top is bound read-only as a whole (fail closed). */
const MAX_TOP_ENTRIES = 4096
/** Reflogs copied per command; beyond either bound `logs/` is read-only (noted). */
const MAX_LOG_FILES = 4096
const MAX_LOG_BYTES = 64 * 1024 * 1024
/** Entries of `refs/` searched for links after the command. */
const MAX_REFS_ENTRIES = 50_000

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
   * After the command ended: write changed state files and reflogs back, drop the rest, remove
   * links the command made in `refs/`, remove the staging directory. Returns model-facing notes
   * (paths relative to the workspace root). Idempotent.
   */
  sync(): readonly string[]
}

export function stageGitdir(gitdir: string, stagingParent: string, root: string): GitStage {
  const rel = relative(root, gitdir)
  const startedMs = Date.now()
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
  mkdirSync(stagingParent, { recursive: true, mode: 0o700 })
  const staging = mkdtempSync(join(stagingParent, 'git-'))
  const mounts: Mount[] = [{ kind: 'bind', source: staging, target: gitdir }]
  const copied = new Map<string, Copied>()
  const bound = new Set<string>()
  const notes: string[] = []
  const copyIn = (name: string, mode: number) => {
    const host = identity(lstatSync(join(gitdir, name), { bigint: true }))
    const target = join(staging, name)
    copyFileSync(join(gitdir, name), target, constants.COPYFILE_FICLONE)
    copied.set(name, { host, staged: identity(lstatSync(target, { bigint: true })), mode })
  }
  try {
    for (const name of names) {
      const path = join(gitdir, name)
      let st: ReturnType<typeof lstatSync>
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
      if (st.isDirectory() && name === LOGS) {
        const logs = listLogs(gitdir)
        if (logs === undefined) {
          mounts.push({ kind: 'ro-bind', source: path, target: path })
          bound.add(name)
          notes.push(
            `git: ${join(rel, LOGS)} holds more than ${MAX_LOG_FILES} files or ${MAX_LOG_BYTES} bytes, so it is read-only in the sandbox: git commands that write a reflog fail there`,
          )
          continue
        }
        for (const dir of logs.dirs) mkdirSync(join(staging, dir), { recursive: true })
        for (const file of logs.files) copyIn(file, lstatSync(join(gitdir, file)).mode & 0o777)
        continue
      }
      if (st.isFile() && isSynced(name) && st.size <= MAX_COPY_BYTES) {
        copyIn(name, st.mode & 0o777)
        continue
      }
      mounts.push({ kind: 'ro-bind', source: path, target: path })
      bound.add(name)
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    throw error
  }
  let synced: readonly string[] | undefined
  return {
    gitdir,
    mounts,
    sync() {
      synced ??= [
        ...notes,
        ...syncBack(gitdir, staging, rel, copied, bound),
        ...removeNewLinks(gitdir, 'refs', rel, startedMs),
      ]
      return synced
    },
  }
}

/** The reflog tree (relative paths, regular files and directories only), or undefined past the bounds. */
function listLogs(gitdir: string): { dirs: string[]; files: string[] } | undefined {
  const dirs: string[] = [LOGS]
  const files: string[] = []
  let bytes = 0
  for (let i = 0; i < dirs.length; i++) {
    const dir = dirs[i]!
    for (const name of readdirSync(join(gitdir, dir)).sort()) {
      const path = join(dir, name)
      const st = lstatSync(join(gitdir, path))
      if (st.isDirectory()) dirs.push(path)
      else if (st.isFile()) {
        files.push(path)
        bytes += st.size
        if (files.length > MAX_LOG_FILES || bytes > MAX_LOG_BYTES) return undefined
      }
      // Links and special files stay out of the sandbox (and are never written back).
    }
  }
  return { dirs, files }
}

function syncBack(
  gitdir: string,
  staging: string,
  rel: string,
  copied: ReadonlyMap<string, Copied>,
  bound: ReadonlySet<string>,
): string[] {
  const notes: string[] = []
  const dropped: string[] = []
  const kept: string[] = []
  try {
    // Every regular file and directory of the staging directory, top first (paths relative to it).
    const present = new Set<string>()
    const walk = (dir: string) => {
      let names: string[]
      try {
        names = readdirSync(join(staging, dir)).sort()
      } catch {
        return
      }
      for (const name of names) {
        const path = dir === '' ? name : join(dir, name)
        if (dir === '' && bound.has(name)) continue
        if (IGNORED.test(name)) continue
        let st: ReturnType<typeof lstatSync>
        try {
          st = lstatSync(join(staging, path))
        } catch {
          continue
        }
        const inLogs = path === LOGS || path.startsWith(`${LOGS}/`)
        if (st.isDirectory() && inLogs) {
          walk(path)
          continue
        }
        if (!st.isFile() || !(inLogs || isSynced(path))) {
          dropped.push(path)
          continue
        }
        present.add(path)
        const staged = join(staging, path)
        const before = copied.get(path)
        if (before !== undefined && same(identity(lstatSync(staged, { bigint: true })), before.staged))
          continue
        if (st.size > MAX_COPY_BYTES) {
          notes.push(`git: ${join(rel, path)} was not kept: it is larger than ${MAX_COPY_BYTES} bytes`)
          continue
        }
        const problem = invalid(path, staged)
        if (problem !== undefined) {
          notes.push(`git: ${join(rel, path)} was not kept: ${problem}`)
          continue
        }
        const failed = replaceOnHost(gitdir, path, before?.host, staged, before?.mode ?? 0o644)
        if (failed !== undefined) notes.push(`git: ${join(rel, path)} was not kept: ${failed}`)
      }
    }
    walk('')
    for (const [path, before] of copied) {
      if (present.has(path)) continue
      if (!REMOVABLE.test(path)) {
        kept.push(path)
        continue
      }
      const problem = replaceOnHost(gitdir, path, before.host, undefined, before.mode)
      if (problem !== undefined) notes.push(`git: the removal of ${join(rel, path)} was not kept: ${problem}`)
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
      `git: ${shown.join(', ')}${more} ${dropped.length === 1 ? 'was' : 'were'} created by the command but not kept: in the sandbox only git's own state files and reflogs in ${rel} are written back, as regular files (configuration, hooks, links and pointers to other directories stay as they were; an operation such as a rebase must finish within one command)`,
    )
  }
  return notes
}

/**
 * Git's lock protocol on the host: `<path>.lock` created exclusively (a git running on the host
 * holds it), the host file compared with the one copied in (changed meanwhile: not ours to
 * overwrite), then the new content renamed over it — or the file removed. Every directory on the
 * way must be a real directory (never a link): a new reflog's directories are made here.
 */
function replaceOnHost(
  gitdir: string,
  path: string,
  expected: Identity | undefined,
  staged: string | undefined,
  mode: number,
): string | undefined {
  const problem = realDirectories(gitdir, dirname(path))
  if (problem !== undefined) return problem
  const target = join(gitdir, path)
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
    // Changed meanwhile into exactly what the command wrote (two `git status` refreshing the same
    // index at once): nothing to do, nothing to report.
    if (!unchanged && staged !== undefined && current !== undefined && sameContent(target, staged))
      return undefined
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

/** Make `dir` (relative to the gitdir) exist, refusing any component that is not a real directory. */
function realDirectories(gitdir: string, dir: string): string | undefined {
  if (dir === '.' || dir === '') return undefined
  let current = gitdir
  for (const part of dir.split('/')) {
    current = join(current, part)
    try {
      const st = lstatSync(current)
      if (!st.isDirectory()) return `${relative(gitdir, current)} on the host is not a directory`
    } catch {
      try {
        mkdirSync(current)
      } catch (error) {
        return `cannot create its directory (${(error as NodeJS.ErrnoException).code ?? 'error'})`
      }
    }
  }
  return undefined
}

/**
 * Links and special files the command made under a bound directory (`refs/`), found by their
 * change time (not before the command started), are removed: git never makes them, and a link
 * there makes the host's git read, or replace, a file of the command's choosing.
 */
function removeNewLinks(gitdir: string, name: string, rel: string, sinceMs: number): string[] {
  const removed: string[] = []
  const dirs = [name]
  let seen = 0
  for (let i = 0; i < dirs.length && seen < MAX_REFS_ENTRIES; i++) {
    let entries: string[]
    try {
      entries = readdirSync(join(gitdir, dirs[i]!))
    } catch {
      continue
    }
    for (const entry of entries) {
      if (++seen > MAX_REFS_ENTRIES) break
      const path = join(dirs[i]!, entry)
      let st: ReturnType<typeof lstatSync>
      try {
        st = lstatSync(join(gitdir, path))
      } catch {
        continue
      }
      if (st.isDirectory()) dirs.push(path)
      else if (!st.isFile() && st.ctimeMs >= sinceMs - 1) {
        rmSync(join(gitdir, path), { force: true })
        removed.push(path)
      }
    }
  }
  if (removed.length === 0) return []
  return [
    `git: removed ${removed.length === 1 ? 'a link' : `${removed.length} links`} the command made under ${join(rel, name)} (${removed
      .slice(0, 3)
      .map((p) => join(rel, p))
      .join(', ')}${removed.length > 3 ? ', ...' : ''}): git never makes them`,
  ]
}

function sameContent(a: string, b: string): boolean {
  try {
    const sa = statSync(a)
    const sb = statSync(b)
    if (!sa.isFile() || !sb.isFile() || sa.size !== sb.size || sa.size > MAX_COPY_BYTES) return false
    return readFileSync(a).equals(readFileSync(b))
  } catch {
    return false
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
