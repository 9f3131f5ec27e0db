// grep {pattern, path?, glob?, output_mode?}: regular-expression search over file contents.
// ripgrep when `rg` is installed, a pure-JS fallback otherwise; both fill the same result shape.

import { defineTool } from '@toolgate/core'
import { z } from 'zod'
import type { GrepBackend, ToolsEnv } from '../context.js'
import { fsError } from '../fs/errors.js'
import { openSearchTarget } from '../fs/open-file.js'
import { grepJs } from '../search/grep-js.js'
import {
  GREP_MAX_ENTRIES,
  GREP_MAX_LINE_CHARS,
  GREP_MODES,
  type GrepValue,
  grepValueSchema,
} from '../search/grep-result.js'
import { grepRipgrep, ripgrepAvailable } from '../search/grep-rg.js'
import { SKIPPED_DIRS } from '../search/walk.js'
import { count, plural } from '../util/format.js'
import { displayPath, modelPath, resolvePath } from '../util/paths.js'
import { presenter, resultPresenter } from '../util/present.js'

/**
 * The deadline of one grep or glob call: the walk and the match worker stop at it (every wait has
 * a deadline); the model is told the call timed out and to narrow it.
 */
export const SEARCH_TIMEOUT_MS = 120_000

export const grepParameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Regular expression (ripgrep syntax), e.g. "function\\s+load" or "TODO|FIXME". Prefix (?i) for case-insensitive.',
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe(
      'File or directory to search: absolute, or relative to the workspace root (default: the workspace root).',
    ),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Only search files matching this glob, e.g. "*.ts" (matches file names at any depth) or "src/**/*.py".',
    ),
  output_mode: z
    .enum(GREP_MODES)
    .optional()
    .describe(
      '"files_with_matches" (default): matching file paths; "content": matching lines as path:line:text; "count": path:number of matching lines.',
    ),
})
export type GrepArgs = z.infer<typeof grepParameters>

export const GREP_DESCRIPTION = [
  'Search file contents with a regular expression. Use it instead of grep/rg in bash; use glob to find files by name.',
  `output_mode "files_with_matches" (default) lists matching files; "content" lists matching lines as path:line:text (lines cut at ${count(GREP_MAX_LINE_CHARS)} characters); "count" lists path:count.`,
  `Paths are relative to the workspace root, in path order; at most ${count(GREP_MAX_ENTRIES.content)} lines or ${count(GREP_MAX_ENTRIES.files_with_matches)} files are listed and the rest counted.`,
  `Hidden files are searched; binary files, symbolic links and the directories ${SKIPPED_DIRS.join(', ')} are skipped. Matches within one line only.`,
  'A directory search never reads protected files such as .env (they may hold secrets); to search one, name it as path (the user is asked).',
].join(' ')

export function grepTool(env: ToolsEnv) {
  return defineTool({
    name: 'grep',
    description: GREP_DESCRIPTION,
    parameters: grepParameters,
    output: {
      schema: grepValueSchema,
      render: (_args, value: GrepValue) => [{ type: 'text', text: renderGrep(value) }],
    },
    isConcurrencySafe: () => true,
    timeoutMs: SEARCH_TIMEOUT_MS,
    async execute(args, exec): Promise<GrepValue> {
      const lexical = resolvePath(env.root, args.path ?? '.')
      const shown = displayPath(env.root, lexical)
      const opened = await openSearchTarget(env, { lexical, shown, tool: 'grep', access: 'read' })
      if (opened === 'missing') throw fsError({ code: 'ENOENT' }, shown, 'search')
      const mode = args.output_mode ?? 'files_with_matches'
      const request = {
        pattern: args.pattern,
        mode,
        target:
          opened.kind === 'directory'
            ? { kind: 'directory' as const, lexical, real: opened.real }
            : {
                kind: 'file' as const,
                lexical,
                handle: opened.file.handle,
                size: Number(opened.file.stat.size),
              },
        ...(args.glob === undefined ? {} : { glob: args.glob }),
        display: (abs: string) => displayPath(env.root, abs),
        excludes: env.searchExcludes,
        signal: exec.signal,
      }
      let found: Awaited<ReturnType<typeof grepJs>>
      try {
        found =
          (await chooseBackend(env.grepBackend, env.ripgrepPath)) === 'ripgrep'
            ? await grepRipgrep(request, env.ripgrepPath)
            : await grepJs(request)
      } finally {
        if (opened.kind === 'file') await opened.file.handle.close()
      }
      return {
        pattern: args.pattern,
        path: shown,
        ...(args.glob === undefined ? {} : { glob: args.glob }),
        mode,
        files: found.files,
        totalFiles: found.totalFiles,
        ...(mode === 'files_with_matches' ? {} : { totalLines: found.totalLines }),
        omitted: found.omitted,
      }
    },
    presentCall: presenter(grepParameters, (args) => ({
      card: 'generic' as const,
      title: `Grep ${args.pattern}${args.path === undefined ? '' : ` in ${args.path}`}`,
      kind: 'search',
    })),
    presentResult: resultPresenter(grepParameters, grepValueSchema, (_args, value) => ({
      card: 'search' as const,
      query: value.pattern,
      mode:
        value.mode === 'content'
          ? ('matches' as const)
          : value.mode === 'count'
            ? ('count' as const)
            : ('paths' as const),
      files: value.files,
    })),
  })
}

async function chooseBackend(backend: GrepBackend, ripgrepPath: string): Promise<'ripgrep' | 'js'> {
  switch (backend) {
    case 'js':
      return 'js'
    case 'ripgrep':
      return 'ripgrep'
    case 'auto':
      return (await ripgrepAvailable(ripgrepPath)) ? 'ripgrep' : 'js'
    default: {
      const never: never = backend
      return never
    }
  }
}

export function renderGrep(value: GrepValue): string {
  const where = `${modelPath(value.path)}${value.glob === undefined ? '' : ` (files matching ${value.glob})`}`
  if (value.totalFiles === 0) return `(no matches for ${value.pattern} in ${where})`
  const lines: string[] = []
  switch (value.mode) {
    case 'files_with_matches':
      for (const f of value.files) lines.push(modelPath(f.path))
      if (value.omitted > 0)
        lines.push(
          `[${plural(value.omitted, 'more file')} not listed (${count(value.totalFiles)} matched); narrow the pattern, path or glob]`,
        )
      break
    case 'count':
      for (const f of value.files) lines.push(`${modelPath(f.path)}:${f.count ?? 0}`)
      if (value.omitted > 0) lines.push(`[${plural(value.omitted, 'more file')} not listed]`)
      lines.push(`[${plural(value.totalLines ?? 0, 'matching line')} in ${plural(value.totalFiles, 'file')}]`)
      break
    case 'content':
      for (const f of value.files)
        for (const m of f.matches ?? []) lines.push(`${modelPath(f.path)}:${m.line}:${m.text}`)
      if (value.omitted > 0) {
        lines.push(
          `[${plural(value.omitted, 'more matching line')} not shown (${count(value.totalLines ?? 0)} in ${plural(value.totalFiles, 'file')}); narrow the pattern, path or glob, or use output_mode "files_with_matches"]`,
        )
      }
      break
    default: {
      const never: never = value.mode
      return never
    }
  }
  return lines.join('\n')
}
