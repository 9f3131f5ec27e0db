import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ToolError, type ToolRunContext } from '@toolgate/core'
import type { ToolsEnv } from '../context.js'
import { fsError } from './errors.js'
import { type FileStamp, stampOf } from './observations.js'

// The write side of read-before-edit: load the current version, refuse when the model has not
// seen it (or saw an older one), write, and record the new version as seen (the model wrote it).

export type Current =
  | { readonly exists: false }
  | { readonly exists: true; readonly content: Buffer; readonly stamp: FileStamp }

export async function loadCurrent(abs: string, shown: string): Promise<Current> {
  try {
    const st = await stat(abs)
    if (st.isDirectory()) throw fsError({ code: 'EISDIR' }, shown, 'write')
    const content = await readFile(abs)
    // The stamp's mtime/size come from before the read: a change during the read makes it stale.
    return { exists: true, content, stamp: stampOf(st, content) }
  } catch (error) {
    if (error instanceof ToolError) throw error
    if ((error as { code?: unknown }).code === 'ENOENT') return { exists: false }
    throw fsError(error, shown, 'open')
  }
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

/** Write the file (creating parent directories) and record the written version as observed. */
export async function writeObserved(
  env: ToolsEnv,
  exec: Pick<ToolRunContext, 'emit'>,
  abs: string,
  shown: string,
  content: string,
  tool: 'write' | 'edit',
): Promise<FileStamp> {
  const bytes = Buffer.from(content, 'utf8')
  try {
    await mkdir(dirname(abs), { recursive: true })
    await writeFile(abs, bytes)
    const st = await stat(abs)
    const stamp = stampOf(st, bytes)
    env.observations.record(abs, stamp)
    exec.emit('fs/observed', { path: abs, tool, ...stamp })
    return stamp
  } catch (error) {
    env.observations.forget(abs)
    throw fsError(error, shown, 'write')
  }
}
