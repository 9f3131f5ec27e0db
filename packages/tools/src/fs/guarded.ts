import type { FileHandle } from 'node:fs/promises'
import { ToolError, type ToolRunContext } from '@toolgate/core'
import type { ToolsEnv } from '../context.js'
import { fsError, vanishedError } from './errors.js'
import { type FileStamp, stampOf } from './observations.js'
import { createFile, type OpenedFile, openExisting, type Target } from './open-file.js'

// The write side of read-before-edit: open the file (descriptor-checked, `open-file.ts`), load
// its current version through that descriptor, refuse when the model has not seen it (or saw an
// older one), write through the same descriptor, and record the new version as seen.

export type Current =
  | { readonly exists: false; readonly file: OpenedFile }
  | { readonly exists: true; readonly file: OpenedFile; readonly content: Buffer; readonly stamp: FileStamp }

/** Run `fn` on the opened file; the descriptor is closed whatever happens. */
export async function withFile<T>(file: OpenedFile, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } finally {
    await file.handle.close()
  }
}

/**
 * The largest file write and edit load (to check it was seen, and to change it). A bash command
 * makes a file of any size at no cost (`truncate -s 1500M big`); loading that held 1.5 GB in the
 * agent's memory and hashed it for a minute only to refuse (red-team audit). The same limit as
 * the grep tool's per-file limit.
 */
export const EDIT_MAX_BYTES = 64 * 1024 * 1024

function tooLarge(shown: string, size: bigint | number, verb: 'write' | 'edit'): ToolError {
  return new ToolError(
    `${shown} is ${size.toLocaleString('en-US')} bytes, over the ${EDIT_MAX_BYTES.toLocaleString('en-US')}-byte limit for ${verb}; nothing was changed. Change a file this large with a command in bash (e.g. sed -i, or a script that streams it).`,
    { code: 'FILE_TOO_LARGE', info: { path: shown, bytes: Number(size), limit: EDIT_MAX_BYTES } },
  )
}

async function loadExisting(file: OpenedFile, target: Target, verb: 'write' | 'edit'): Promise<Current> {
  if (file.stat.size > BigInt(EDIT_MAX_BYTES)) throw tooLarge(target.shown, file.stat.size, verb)
  // To the end of the file (it may have grown since fstat), but never more than one byte over
  // the limit. The stamp's mtime/size come from before the read: a change makes it stale.
  const chunks: Buffer[] = []
  let length = 0
  let chunk = Buffer.alloc(Math.min(Number(file.stat.size) + 1, EDIT_MAX_BYTES + 1))
  let used = 0
  for (;;) {
    if (used === chunk.length) {
      chunks.push(chunk)
      chunk = Buffer.alloc(Math.min(1024 * 1024, EDIT_MAX_BYTES + 1 - length))
      used = 0
    }
    const { bytesRead } = await file.handle.read(chunk, used, chunk.length - used, length)
    if (bytesRead === 0) break
    used += bytesRead
    length += bytesRead
    if (length > EDIT_MAX_BYTES) throw tooLarge(target.shown, length, verb)
  }
  chunks.push(chunk.subarray(0, used))
  const content = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length)
  return { exists: true, file, content, stamp: stampOf(file.stat, content) }
}

/** `edit`: the existing file, opened for reading and writing. */
export async function openForEdit(env: ToolsEnv, target: Target): Promise<Current & { exists: true }> {
  const file = await openExisting(env, target, 'modify')
  if (file === 'missing') throw fsError({ code: 'ENOENT' }, target.shown, 'edit')
  try {
    return (await loadExisting(file, target, 'edit')) as Current & { exists: true }
  } catch (error) {
    await file.handle.close()
    throw error instanceof ToolError ? error : fsError(error, target.shown, 'read')
  }
}

/** `write`: the existing file with its content, or a new empty one it created. */
export async function openForWrite(env: ToolsEnv, target: Target): Promise<Current> {
  // Created by someone else between our look and our O_EXCL create: open it as existing (once).
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await openExisting(env, target, 'modify')
    if (existing !== 'missing') {
      try {
        return await loadExisting(existing, target, 'write')
      } catch (error) {
        await existing.handle.close()
        throw error instanceof ToolError ? error : fsError(error, target.shown, 'read')
      }
    }
    const created = await createFile(env, target)
    if (created !== 'exists') return { exists: false, file: created }
  }
  throw vanishedError(target.shown)
}

/** Throw the model-facing refusal unless the model has read exactly the current version. */
export function requireFresh(
  env: ToolsEnv,
  abs: string,
  shown: string,
  stamp: FileStamp,
  verb: 'edit' | 'overwrite',
): void {
  const check = env.observations.check(abs, stamp)
  switch (check.kind) {
    case 'fresh':
      return
    case 'unread':
      throw new ToolError(
        `${shown} has not been read in this session. Read it with the read tool first, then ${verb} it (${verb === 'edit' ? 'copy old_string exactly from what you read' : 'or use edit for a targeted change'}).`,
        { info: { code: 'NOT_READ', path: shown } },
      )
    case 'stale':
      throw new ToolError(
        `${shown} has changed on disk since you last read it (by another program or person). Read it again, then retry the ${verb} against the current content.`,
        { info: { code: 'STALE_READ', path: shown } },
      )
    default: {
      const never: never = check
      throw new Error(`unexpected observation ${String(never)}`)
    }
  }
}

/** Replace the whole content through the descriptor (written first, then cut: never empty between). */
async function replaceContent(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset)
    offset += bytesWritten
  }
  await handle.truncate(bytes.length)
}

/** Write the content through the opened file and record the written version as observed. */
export async function writeObserved(
  env: ToolsEnv,
  exec: Pick<ToolRunContext, 'emit'>,
  file: OpenedFile,
  target: Target,
  content: string,
): Promise<FileStamp> {
  const bytes = Buffer.from(content, 'utf8')
  try {
    await replaceContent(file.handle, bytes)
    const stamp = stampOf(await file.handle.stat({ bigint: true }), bytes)
    env.observations.record(target.lexical, stamp)
    exec.emit('fs/observed', { path: target.lexical, tool: target.tool, ...stamp })
    return stamp
  } catch (error) {
    env.observations.forget(target.lexical)
    throw fsError(error, target.shown, 'write')
  }
}
