import type { BigIntStats } from 'node:fs'
import { realpathSync } from 'node:fs'
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readlink,
  realpath,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { ToolError } from '@toolgate/core'
import type { ToolsEnv } from '../context.js'
import { CAN_OPEN_SAFELY, descriptorPath, inDirectory, OPEN_FLAGS, sameFile } from './descriptor.js'
import {
  changedError,
  type FileTool,
  fsError,
  hardLinkedError,
  notRegularError,
  refusalError,
  unsupportedError,
} from './errors.js'
import { kindOf } from './file-type.js'
import { type Access, judgeTarget } from './target-check.js'

// Descriptor-checked file access (issue 13 §3). A name is only a way to reach a file: every open
// refuses a final symbolic link (O_NOFOLLOW; links are followed here, one lstat+readlink at a
// time, so each open opens exactly what lstat saw), never waits (O_NONBLOCK) and is confirmed by
// fstat to be the regular file lstat saw; then the descriptor's real path is judged
// (`target-check.ts`) and only then is anything read or written, through that descriptor.

/** What the call names: the path as written (absolute) and as shown to the model. */
export interface Target {
  readonly lexical: string
  readonly shown: string
  readonly tool: FileTool
  readonly access: Access
}

export interface OpenedFile {
  readonly handle: FileHandle
  /** fstat of the descriptor (bigint: exact device and inode numbers). */
  readonly stat: BigIntStats
  /** The real path the checks ran on. */
  readonly real: string
}

/** Symbolic links followed for one name at most (Linux's MAXSYMLINKS). */
const MAX_LINKS = 40

const rootsOf = new WeakMap<ToolsEnv, readonly string[]>()

/** The workspace root as written and resolved (a root reached through a link is still inside). */
function workspaceRoots(env: ToolsEnv): readonly string[] {
  let roots = rootsOf.get(env)
  if (roots === undefined) {
    let real = env.root
    try {
      real = realpathSync.native(env.root)
    } catch {
      // A missing root: only the written form.
    }
    roots = real === env.root ? [env.root] : [env.root, real]
    rootsOf.set(env, roots)
  }
  return roots
}

function judge(env: ToolsEnv, target: Target, real: string): void {
  const refusal = judgeTarget(workspaceRoots(env), env.protection, target.lexical, real, target.access)
  if (refusal !== undefined) throw refusalError(target.shown, refusal, target.tool)
}

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code

/** A link's target, resolved from the real directory holding the link (as the kernel would). */
async function followLink(path: string): Promise<string> {
  const target = await readlink(path)
  return resolve(await realpath(dirname(path)), target)
}

/**
 * Open an existing regular file for reading (`read`) or reading and writing (`modify`), checked.
 * Returns `'missing'` when the name (or a link's target) does not exist; refusals throw ToolErrors.
 */
export async function openExisting(
  env: ToolsEnv,
  target: Target,
  mode: 'read' | 'modify',
): Promise<OpenedFile | 'missing'> {
  if (!CAN_OPEN_SAFELY) throw unsupportedError(target.tool)
  const verb = target.tool === 'grep' || target.tool === 'glob' ? 'search' : target.tool
  let path = target.lexical
  let links = 0
  const follow = async () => {
    if (++links > MAX_LINKS) throw fsError({ code: 'ELOOP' }, target.shown, verb)
    path = await followLink(path)
  }
  for (;;) {
    let seen: BigIntStats
    try {
      seen = await lstat(path, { bigint: true })
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return 'missing'
      throw fsError(error, target.shown, verb)
    }
    const kind = kindOf(seen)
    if (kind === 'symlink') {
      try {
        await follow()
      } catch (error) {
        if (error instanceof ToolError) throw error
        if (codeOf(error) === 'EINVAL') continue // no longer a link: look again
        if (codeOf(error) === 'ENOENT') return 'missing'
        throw fsError(error, target.shown, verb)
      }
      continue
    }
    if (kind === 'directory') throw fsError({ code: 'EISDIR' }, target.shown, verb)
    if (kind !== 'file') throw notRegularError(target.shown, kind, target.tool)
    let handle: FileHandle
    try {
      handle = await open(path, OPEN_FLAGS[mode])
    } catch (error) {
      // Replaced by a link (ELOOP) or a FIFO without a reader (ENXIO) since lstat: look again.
      if (codeOf(error) === 'ELOOP' || codeOf(error) === 'ENXIO') {
        if (++links > MAX_LINKS) throw fsError({ code: 'ELOOP' }, target.shown, verb)
        continue
      }
      if (codeOf(error) === 'ENOENT') return 'missing'
      throw fsError(error, target.shown, verb)
    }
    return closeOnError(handle, async () => {
      const stat = await handle.stat({ bigint: true })
      if (stat.dev !== seen.dev || stat.ino !== seen.ino) throw changedError(target.shown, target.tool)
      const opened = kindOf(stat)
      if (opened !== 'file') throw notRegularError(target.shown, opened, target.tool)
      // A hard link is the file under another name, and the real path below is only the name we
      // opened: a change through it could land in .git/config or outside the workspace.
      if (mode === 'modify' && stat.nlink > 1n && (target.tool === 'write' || target.tool === 'edit'))
        throw hardLinkedError(target.shown, Number(stat.nlink), target.tool)
      return { handle, stat, real: await judgedPath(env, target, handle, path, stat) }
    })
  }
}

/** Run `fn` on a fresh descriptor; close it if `fn` throws (else the caller owns it). */
async function closeOnError<T>(handle: FileHandle, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    await handle.close()
    throw error
  }
}

/** The descriptor's real path, once it passed the checks (else PATH_CHANGED or the refusal). */
async function judgedPath(
  env: ToolsEnv,
  target: Target,
  handle: FileHandle,
  opened: string,
  stat: BigIntStats,
): Promise<string> {
  const real = await descriptorPath(handle, opened, stat)
  if (real === undefined) throw changedError(target.shown, target.tool)
  judge(env, target, real)
  return real
}

interface OpenedDir {
  readonly handle: FileHandle
  readonly real: string
}

/** Open a directory by name (links followed by the kernel), judged by its descriptor's real path. */
async function openDirectory(env: ToolsEnv, target: Target, path: string): Promise<OpenedDir> {
  const handle = await open(path, OPEN_FLAGS.directory)
  return closeOnError(handle, async () => ({
    handle,
    real: await judgedPath(env, target, handle, path, await handle.stat({ bigint: true })),
  }))
}

/**
 * The directory `path`, created (with its missing parents) where needed. Each new directory is
 * made inside an already verified one (through its descriptor on Linux) after its future real path
 * passed the checks; `created` collects them for removal if the call fails later.
 */
async function ensureDirectory(
  env: ToolsEnv,
  target: Target,
  path: string,
  created: string[],
): Promise<OpenedDir> {
  try {
    return await openDirectory(env, target, path)
  } catch (error) {
    if (codeOf(error) !== 'ENOENT' || dirname(path) === path) throw error
  }
  const parent = await ensureDirectory(env, target, dirname(path), created)
  try {
    const name = basename(path)
    judge(env, target, join(parent.real, name))
    const where = inDirectory(parent, name)
    try {
      await mkdir(where)
      created.push(join(parent.real, name))
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error
    }
    return await openDirectory(env, target, where)
  } finally {
    await parent.handle.close()
  }
}

/**
 * Create a new regular file (O_CREAT|O_EXCL|O_NOFOLLOW) for `write`, parents included; a dangling
 * link names the file to create at its target. Returns `'exists'` when the name (or a link's
 * target) exists after all: the caller opens it as an existing file. Nothing it created stays
 * behind when a check refuses.
 */
export async function createFile(env: ToolsEnv, target: Target): Promise<OpenedFile | 'exists'> {
  if (!CAN_OPEN_SAFELY) throw unsupportedError(target.tool)
  let path = target.lexical
  for (let links = 0; ; ) {
    try {
      if (!(await lstat(path)).isSymbolicLink()) return 'exists'
    } catch (error) {
      if (codeOf(error) === 'ENOENT') break
      throw fsError(error, target.shown, 'write')
    }
    if (++links > MAX_LINKS) throw fsError({ code: 'ELOOP' }, target.shown, 'write')
    try {
      path = await followLink(path)
    } catch (error) {
      if (codeOf(error) !== 'EINVAL' && codeOf(error) !== 'ENOENT')
        throw fsError(error, target.shown, 'write')
    }
  }
  const created: string[] = []
  let dir: OpenedDir | undefined
  try {
    dir = await ensureDirectory(env, target, dirname(path), created)
    const name = basename(path)
    judge(env, target, join(dir.real, name))
    const where = inDirectory(dir, name)
    let handle: FileHandle
    try {
      handle = await open(where, OPEN_FLAGS.create, 0o666)
    } catch (error) {
      if (codeOf(error) === 'EEXIST') return 'exists'
      throw error
    }
    try {
      const stat = await handle.stat({ bigint: true })
      return { handle, stat, real: await judgedPath(env, target, handle, where, stat) }
    } catch (error) {
      // Remove the file we made, by the name we made it under, only if that name still holds it.
      const stat = await handle.stat({ bigint: true }).catch(() => undefined)
      if (stat !== undefined && (await sameFile(where, stat))) await unlink(where).catch(() => {})
      await handle.close()
      throw error
    }
  } catch (error) {
    for (const made of created.reverse()) await rmdir(made).catch(() => {})
    if (error instanceof ToolError) throw error
    throw fsError(error, target.shown, 'write')
  } finally {
    await dir?.handle.close()
  }
}

/** What a search (grep, glob) starts from: a directory by its checked real path, or one file. */
export type SearchTarget =
  | { readonly kind: 'directory'; readonly real: string }
  | { readonly kind: 'file'; readonly file: OpenedFile }

/**
 * Open what grep or glob is pointed at: a directory (links followed, its descriptor's real path
 * judged like a file's; the walk starts at that real path) or a regular file (`openExisting`).
 */
export async function openSearchTarget(env: ToolsEnv, target: Target): Promise<SearchTarget | 'missing'> {
  if (!CAN_OPEN_SAFELY) throw unsupportedError(target.tool)
  let isDirectory: boolean
  try {
    isDirectory = (await stat(target.lexical)).isDirectory()
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return 'missing'
    throw fsError(error, target.shown, 'search')
  }
  if (isDirectory) {
    let dir: OpenedDir
    try {
      dir = await openDirectory(env, target, target.lexical)
    } catch (error) {
      if (error instanceof ToolError) throw error
      if (codeOf(error) === 'ENOENT') return 'missing'
      throw fsError(error, target.shown, 'search')
    }
    await dir.handle.close()
    return { kind: 'directory', real: dir.real }
  }
  const file = await openExisting(env, target, 'read')
  return file === 'missing' ? 'missing' : { kind: 'file', file }
}
