// glob {pattern, path?}: files whose path matches a glob pattern, sorted, capped with a count.

import { join } from 'node:path'
import { defineTool, ToolError } from '@toolgate/core'
import { compileGlob, type GlobMatcher, GlobPatternError } from '@toolgate/policy'
import { z } from 'zod'
import type { ToolsEnv } from '../context.js'
import { fsError } from '../fs/errors.js'
import { openSearchTarget } from '../fs/open-file.js'
import { Pacer } from '../search/pacer.js'
import { SKIPPED_DIRS, walkFiles } from '../search/walk.js'
import { count, plural } from '../util/format.js'
import { displayPath, modelPath, resolvePath } from '../util/paths.js'
import { presenter, resultPresenter } from '../util/present.js'
import { SEARCH_TIMEOUT_MS } from './grep.js'

export const GLOB_MAX_RESULTS = 1000

export const globParameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob over paths relative to `path`: `*` and `?` stay within one directory, `**/` spans directories, `{a,b}` alternatives, `[abc]` classes. Example: "src/**/*.ts".',
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Directory to search from: absolute, or relative to the workspace root (default: the workspace root).',
    ),
})
export type GlobArgs = z.infer<typeof globParameters>

export const globValueSchema = z.object({
  pattern: z.string(),
  path: z.string(),
  /** Matching files (relative to the workspace root when inside it), in path order. */
  files: z.array(z.string()),
  /** Matches beyond GLOB_MAX_RESULTS, not listed. */
  omitted: z.number().int(),
})
export type GlobValue = z.infer<typeof globValueSchema>

export const GLOB_DESCRIPTION = [
  'Find files by path pattern, e.g. "**/*.ts" or "src/**/{index,main}.js". Use it to locate files by name; use grep to search their contents and ls to look at one directory.',
  `Returns matching file paths (relative to the workspace root), sorted by path, one per line; at most ${count(GLOB_MAX_RESULTS)} are listed and the rest counted.`,
  `Symbolic links and the directories ${SKIPPED_DIRS.join(', ')} are skipped (set path inside one to search it).`,
].join(' ')

export function globTool(env: ToolsEnv) {
  return defineTool({
    name: 'glob',
    description: GLOB_DESCRIPTION,
    parameters: globParameters,
    output: {
      schema: globValueSchema,
      render: (_args, value: GlobValue) => [{ type: 'text', text: renderGlob(value) }],
    },
    isConcurrencySafe: () => true,
    timeoutMs: SEARCH_TIMEOUT_MS,
    async execute(args, exec): Promise<GlobValue> {
      const base = resolvePath(env.root, args.path ?? '.')
      const shown = displayPath(env.root, base)
      const pattern = args.pattern.startsWith('./') ? args.pattern.slice(2) : args.pattern
      const matcher = compilePattern(args.pattern, pattern)
      const opened = await openSearchTarget(env, { lexical: base, shown, tool: 'glob', access: 'read' })
      if (opened === 'missing') throw fsError({ code: 'ENOENT' }, shown, 'search')
      if (opened.kind === 'file') {
        await opened.file.handle.close()
        throw new ToolError(`${shown} is a file, not a directory. Pass a directory as path.`)
      }
      const pacer = new Pacer(exec.signal)
      const files: string[] = []
      let total = 0
      for await (const entry of walkFiles(opened.real, exec.signal)) {
        await pacer.spend(entry.relative.length * matcher.cost)
        if (!matcher.test(entry.relative)) continue
        total++
        if (files.length < GLOB_MAX_RESULTS) files.push(displayPath(env.root, join(base, entry.relative)))
      }
      return { pattern: args.pattern, path: shown, files, omitted: total - files.length }
    },
    presentCall: presenter(globParameters, (args) => ({
      card: 'generic' as const,
      title: `Glob ${args.pattern}${args.path === undefined ? '' : ` in ${args.path}`}`,
      kind: 'search',
    })),
    presentResult: resultPresenter(globParameters, globValueSchema, (_args, value) => ({
      card: 'search' as const,
      query: value.pattern,
      mode: 'paths' as const,
      files: value.files.map((path) => ({ path })),
    })),
  })
}

function compilePattern(written: string, pattern: string): GlobMatcher {
  try {
    return compileGlob(pattern)
  } catch (error) {
    if (!(error instanceof GlobPatternError)) throw error
    throw new ToolError(
      `Invalid glob pattern ${JSON.stringify(written)}: ${error.message}. Correct the pattern and call glob again.`,
      {
        info: { code: 'INVALID_GLOB' },
      },
    )
  }
}

export function renderGlob(value: GlobValue): string {
  if (value.files.length === 0) return `(no files match ${value.pattern} in ${modelPath(value.path)})`
  const lines = value.files.map(modelPath)
  if (value.omitted > 0) {
    lines.push(
      `[${plural(value.omitted, 'more file')} not listed (${count(value.files.length + value.omitted)} matched); narrow the pattern or path]`,
    )
  }
  return lines.join('\n')
}
