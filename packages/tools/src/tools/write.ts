// write {path, content}: create a file, or overwrite one the model has read in its current version.

import { defineTool } from '@toolgate/core'
import { z } from 'zod'
import type { ToolsEnv } from '../context.js'
import { unifiedDiff } from '../fs/diff.js'
import { openForWrite, requireFresh, withFile, writeObserved } from '../fs/guarded.js'
import type { Target } from '../fs/open-file.js'
import { count, plural } from '../util/format.js'
import { displayPath, resolvePath } from '../util/paths.js'
import { diffMeta, presenter, resultPresenter } from '../util/present.js'

export const writeParameters = z.object({
  path: z
    .string()
    .min(1)
    .describe(
      'The file to write: absolute, or relative to the workspace root. Parent directories are created.',
    ),
  content: z.string().describe('The complete new content of the file.'),
})
export type WriteArgs = z.infer<typeof writeParameters>

export const writeValueSchema = z.object({
  path: z.string(),
  created: z.boolean(),
  bytes: z.number().int(),
  lines: z.number().int(),
  diff: z.string(),
  added: z.number().int(),
  removed: z.number().int(),
})
export type WriteValue = z.infer<typeof writeValueSchema>

export const WRITE_DESCRIPTION = [
  'Create a new file or replace the whole content of an existing one. Parent directories are created as needed.',
  'To change part of an existing file use edit instead (smaller, safer). Overwriting an existing file requires that you read its current version with read in this session; if it changed since, read it again.',
  'Do not use bash (echo, cat <<EOF, sed) to write files. Returns a one-line confirmation.',
].join(' ')

function lineCount(text: string): number {
  if (text === '') return 0
  const n = text.split('\n').length
  return text.endsWith('\n') ? n - 1 : n
}

export function writeTool(env: ToolsEnv) {
  return defineTool({
    name: 'write',
    description: WRITE_DESCRIPTION,
    parameters: writeParameters,
    output: {
      schema: writeValueSchema,
      render: (_args, value: WriteValue) => [{ type: 'text', text: renderWrite(value) }],
      presentationMeta: diffMeta,
    },
    async execute(args, exec): Promise<WriteValue> {
      const abs = resolvePath(env.root, args.path)
      const shown = displayPath(env.root, abs)
      const target: Target = { lexical: abs, shown, tool: 'write', access: 'write' }
      return env.observations.withLock(abs, async () => {
        const current = await openForWrite(env, target)
        return withFile(current.file, async () => {
          if (current.exists) requireFresh(env, abs, shown, current.stamp, 'overwrite')
          const before = current.exists ? current.content.toString('utf8') : ''
          await writeObserved(env, exec, current.file, target, args.content)
          const { diff, added, removed } = unifiedDiff(shown, before, args.content)
          return {
            path: shown,
            created: !current.exists,
            bytes: Buffer.byteLength(args.content, 'utf8'),
            lines: lineCount(args.content),
            diff,
            added,
            removed,
          }
        })
      })
    },
    presentCall: presenter(writeParameters, (args) => ({ card: 'diff' as const, path: args.path })),
    presentResult: resultPresenter(writeParameters, writeValueSchema, (args, value) => ({
      card: 'diff' as const,
      ...diffMeta(args, value),
    })),
  })
}

export function renderWrite(value: WriteValue): string {
  const size = `${plural(value.lines, 'line')}, ${plural(value.bytes, 'byte')}`
  if (value.created) return `Created ${value.path} (${size}).`
  if (value.added === 0 && value.removed === 0)
    return `Overwrote ${value.path} with identical content (${size}).`
  return `Overwrote ${value.path} (${size}; +${count(value.added)} -${count(value.removed)} lines).`
}
