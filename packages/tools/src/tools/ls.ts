// ls {path?}: one directory's entries, sorted, directories marked with a trailing `/`.

import { readdir, stat } from 'node:fs/promises'
import { defineTool, ToolError } from '@toolgate/core'
import { z } from 'zod'
import type { ToolsEnv } from '../context.js'
import { fsError } from '../fs/errors.js'
import { count, plural } from '../util/format.js'
import { displayPath, modelPath, resolvePath } from '../util/paths.js'
import { presenter, resultPresenter } from '../util/present.js'

export const LS_MAX_ENTRIES = 1000

export const lsParameters = z.object({
  path: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The directory to list: absolute, or relative to the workspace root (default: the workspace root).',
    ),
})
export type LsArgs = z.infer<typeof lsParameters>

const entryType = z.enum(['file', 'directory', 'symlink', 'other'])
export const lsValueSchema = z.object({
  path: z.string(),
  entries: z.array(z.object({ name: z.string(), type: entryType })),
  /** Entries beyond LS_MAX_ENTRIES, not listed. */
  omitted: z.number().int(),
})
export type LsValue = z.infer<typeof lsValueSchema>

export const LS_DESCRIPTION = [
  'List the entries of one directory (not recursive), sorted by name; directories end with "/", symbolic links with "@".',
  `At most ${count(LS_MAX_ENTRIES)} entries are listed and the rest counted. To find files by name pattern across directories use glob; to search contents use grep.`,
].join(' ')

const MARK = { file: '', directory: '/', symlink: '@', other: '' } as const

export function lsTool(env: ToolsEnv) {
  return defineTool({
    name: 'ls',
    description: LS_DESCRIPTION,
    parameters: lsParameters,
    output: {
      schema: lsValueSchema,
      render: (_args, value: LsValue) => [{ type: 'text', text: renderLs(value) }],
    },
    isConcurrencySafe: () => true,
    async execute(args): Promise<LsValue> {
      const abs = resolvePath(env.root, args.path ?? '.')
      const shown = displayPath(env.root, abs)
      let dirents: import('node:fs').Dirent[]
      try {
        const st = await stat(abs)
        if (!st.isDirectory())
          throw new ToolError(`${shown} is a file, not a directory. Use read to see its content.`)
        dirents = await readdir(abs, { withFileTypes: true })
      } catch (error) {
        if (error instanceof ToolError) throw error
        throw fsError(error, shown, 'list')
      }
      const entries = dirents
        .map((d) => ({
          name: d.name,
          type: d.isSymbolicLink()
            ? ('symlink' as const)
            : d.isDirectory()
              ? ('directory' as const)
              : d.isFile()
                ? ('file' as const)
                : ('other' as const),
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      return {
        path: shown,
        entries: entries.slice(0, LS_MAX_ENTRIES),
        omitted: Math.max(0, entries.length - LS_MAX_ENTRIES),
      }
    },
    presentCall: presenter(lsParameters, (args) => ({
      card: 'generic' as const,
      title: `List ${args.path ?? '.'}`,
      kind: 'ls',
      locations: [{ path: args.path ?? '.' }],
    })),
    presentResult: resultPresenter(lsParameters, lsValueSchema, (_args, value) => ({
      card: 'generic' as const,
      title: `List ${value.path}`,
      kind: 'ls',
      summary: plural(value.entries.length + value.omitted, 'entry', 'entries'),
      locations: [{ path: value.path }],
    })),
  })
}

export function renderLs(value: LsValue): string {
  if (value.entries.length === 0) return `(empty directory: ${modelPath(value.path)})`
  const lines = [
    `${modelPath(`${value.path}/`)} (${plural(value.entries.length + value.omitted, 'entry', 'entries')})`,
  ]
  for (const e of value.entries) lines.push(`${modelPath(e.name)}${MARK[e.type]}`)
  if (value.omitted > 0)
    lines.push(
      `[${plural(value.omitted, 'more entry', 'more entries')} not listed; use glob with a pattern to narrow]`,
    )
  return lines.join('\n')
}
