import { lstatSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { renameBlocked, workspaceRelative } from './blocked-rename.js'
import { realOrUndefined } from './fs-kind.js'
import { readGitConfig } from './git-config.js'
import { indexGitlinks } from './git-index.js'
import type { GitLayout } from './git-layout.js'

/**
 * Repositories a command makes inside a writable workspace (issue 11 §1: the host's git must
 * never read a configuration the command wrote). A mount can protect only names that exist
 * before the command, so a new `sub/.git`, a `.git` file, or a bare layout (HEAD + objects +
 * refs) in a subdirectory is writable — and the host's git reads its configuration, running
 * `core.fsmonitor` and friends, without the person choosing to: `git status` at the top enters
 * every populated submodule (an unpopulated one after a clone without --recurse-submodules, or a
 * gitlink the command added), and a shell prompt runs git in whatever directory it enters.
 *
 * So after the command ended (every process of it is gone: PID namespace), the workspace is
 * looked at again: the `.git` entries and bare layouts of the bounded walk (`scanWorkspace`) and
 * the `.git` of every gitlink in the repository's index (wherever it is, skipped directories
 * too). One that is a repository, was not a mount point during the command (those cannot be
 * replaced: the top `.git`, staged gitdirs, nested repositories that existed) and changed after
 * the command started (its change time: the kernel sets it, a command cannot move it back; an
 * inode number can be reused) is renamed to `<name>.toolgate-blocked` (for a bare layout: its
 * HEAD), and a `.git` symlink the command replaced is put back. Each is reported to the model.
 */
export interface RepositorySnapshot {
  readonly root: string
  readonly startedMs: number
  /** Repository paths that were mount points during the command (never renamed). */
  readonly mounted: ReadonlySet<string>
  /** The top `.git` when it was a symbolic link: its target, to put back. */
  readonly topLink: string | undefined
  /** The repository's index and its object id size, to find gitlinks after the command. */
  readonly index: { readonly path: string; readonly hashBytes: 20 | 32 } | undefined
}

/** Change times are set by the kernel's coarse clock, which may lag `Date.now()` by a tick. */
const CLOCK_SLACK_MS = 1000

/** The repository's index and its object id size (SHA-256 repositories say so in their config). */
export function repositoryIndex(
  layout: GitLayout,
  home: string,
): { readonly path: string; readonly hashBytes: 20 | 32 } | undefined {
  const gitdir =
    layout.entry.kind === 'file'
      ? layout.entry.gitdir
      : layout.entry.kind === 'absent'
        ? undefined
        : realOrUndefined(layout.entry.path)
  if (gitdir === undefined) return undefined
  const configs = [join(gitdir, 'config')]
  try {
    const common = readFileSync(join(gitdir, 'commondir'), 'utf8').trim()
    if (common !== '') configs.push(join(resolve(gitdir, common), 'config'))
  } catch {
    // not a linked worktree
  }
  const sha256 = configs.some((config) =>
    readGitConfig(config, home).entries.some(
      (e) => e.key === 'extensions.objectformat' && e.value.toLowerCase() === 'sha256',
    ),
  )
  return { path: join(gitdir, 'index'), hashBytes: sha256 ? 32 : 20 }
}

/**
 * Paths where a repository may sit: the walk's findings and `<gitlink>/.git` for each gitlink of
 * the index (an index this reader does not understand gives none; the walk still runs).
 */
export function repositoryCandidates(
  root: string,
  walked: readonly string[],
  index: RepositorySnapshot['index'],
): string[] {
  const paths = new Set(walked)
  if (index !== undefined) {
    // The object id size from the configuration, else the other one (the entries' path lengths
    // tell whether an index was read right).
    const links =
      indexGitlinks(index.path, index.hashBytes) ??
      indexGitlinks(index.path, index.hashBytes === 20 ? 32 : 20)
    for (const link of links ?? []) {
      if (link.split('/').some((part) => part === '' || part === '.' || part === '..')) continue
      paths.add(join(root, ...link.split('/'), '.git'))
    }
  }
  return [...paths].sort()
}

export function snapshotRepositories(
  root: string,
  mounted: ReadonlySet<string>,
  index: RepositorySnapshot['index'],
  startedMs: number,
): RepositorySnapshot {
  let topLink: string | undefined
  try {
    topLink = readlinkSync(join(root, '.git'))
  } catch {
    topLink = undefined
  }
  return { root, startedMs, mounted, topLink, index }
}

/** After the command: rename what it made (see above); returns model-facing notes. */
export function blockNewRepositories(snapshot: RepositorySnapshot, walked: readonly string[]): string[] {
  const { root } = snapshot
  const notes: string[] = []
  for (const path of repositoryCandidates(root, walked, snapshot.index)) {
    let st: ReturnType<typeof lstatSync>
    try {
      st = lstatSync(path, { bigint: true })
    } catch {
      continue
    }
    if (snapshot.mounted.has(path)) continue
    if (Number(st.ctimeMs) < snapshot.startedMs - CLOCK_SLACK_MS) continue
    if (!isRepository(path, st)) continue
    const renamed = renameBlocked(root, path)
    if (renamed.kind === 'skipped') continue
    notes.push(
      renamed.kind === 'failed'
        ? `sandbox: ${rel(root, path)} was created by the command and could not be renamed (${renamed.code}): do not run git in ${where(root, path)} before removing it`
        : `sandbox: ${rel(root, path)} was created by the command and renamed to ${rel(root, renamed.to)}: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters ${where(root, path)}). Make repositories outside the workspace (under /tmp), or run \`git init\` yourself.`,
    )
  }
  if (snapshot.topLink !== undefined) {
    const top = join(root, '.git')
    let current: string | undefined
    try {
      current = readlinkSync(top)
    } catch {
      current = undefined
    }
    if (current !== snapshot.topLink) {
      try {
        lstatSync(top)
      } catch {
        try {
          symlinkSync(snapshot.topLink, top)
          notes.push(
            `sandbox: .git was a symbolic link to ${snapshot.topLink} before the command; it is again`,
          )
        } catch {
          // a concurrent command put something there meanwhile: its own check handles it
        }
      }
    }
  }
  return notes
}

/** What git's discovery accepts as a repository there (`.git` of any kind, or a bare HEAD). */
function isRepository(
  path: string,
  st: { isSymbolicLink(): boolean; isFile(): boolean; isDirectory(): boolean },
): boolean {
  if (path.endsWith(`${sep}HEAD`)) return true // found by the walk as a bare layout
  if (st.isSymbolicLink() || st.isFile()) return true
  if (!st.isDirectory()) return false
  try {
    lstatSync(join(path, 'HEAD'))
    return true
  } catch {
    return false // an empty cover (the sandbox's own mount point) or no repository
  }
}

const rel = workspaceRelative

function where(root: string, path: string): string {
  const dir = relative(root, dirname(path))
  return dir === '' ? 'the workspace' : dir
}

/** Entries of `dir` that make it a bare gitdir: HEAD, and objects + refs or a commondir file. */
export function looksBare(names: ReadonlySet<string>): boolean {
  return names.has('HEAD') && ((names.has('objects') && names.has('refs')) || names.has('commondir'))
}
