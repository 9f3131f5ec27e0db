// read {path, offset?, limit?}: a line-numbered window of a text file, or an image (issue 4 §4).
// Never spilled: its own limits (2,000 lines x 2,000 chars) bound it, and spilling a read would
// tell the model to read the spill with read again (seed 003 §9.2, the Read->file->Read loop).

import { type ContentBlock, defineTool, ToolError } from '@toolgate/core'
import { z } from 'zod'
import type { ToolsEnv } from '../context.js'
import { fsError } from '../fs/errors.js'
import { withFile } from '../fs/guarded.js'
import { languageOf, looksBinary, sniffImage } from '../fs/kind.js'
import { readLineWindow } from '../fs/line-window.js'
import { type FileStamp, sha256, statFields } from '../fs/observations.js'
import { openExisting } from '../fs/open-file.js'
import { count, plural } from '../util/format.js'
import { displayPath, modelPath, resolvePath } from '../util/paths.js'
import { presenter, resultPresenter } from '../util/present.js'
import { SEARCH_TIMEOUT_MS } from './grep.js'

export const READ_MAX_LINES = 2000
export const READ_MAX_LINE_CHARS = 2000
export const READ_MAX_IMAGE_BYTES = 5 * 1024 * 1024
const SNIFF_BYTES = 8192

export const readParameters = z.object({
  path: z.string().min(1).describe('The file to read: absolute, or relative to the workspace root.'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('1-based line number to start at (default 1). Only for files too long to read at once.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(READ_MAX_LINES)
    .optional()
    .describe(`How many lines to show (default and max ${READ_MAX_LINES}).`),
})
export type ReadArgs = z.infer<typeof readParameters>

export const readValueSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('text'),
    path: z.string(),
    startLine: z.number().int(),
    totalLines: z.number().int(),
    lines: z.array(z.string()),
    /** Lines cut at READ_MAX_LINE_CHARS, with their full length. */
    truncated: z.array(z.object({ line: z.number().int(), chars: z.number().int() })),
  }),
  z.object({
    kind: z.literal('image'),
    path: z.string(),
    mediaType: z.string(),
    bytes: z.number().int(),
    data: z.string(),
  }),
])
export type ReadValue = z.infer<typeof readValueSchema>

export const READ_DESCRIPTION = [
  'Read a file from the workspace. Use it instead of cat/head/tail in bash, and before edit or write on an existing file (editing requires a read of the current version).',
  `Text files come back numbered like \`cat -n\` (line number, tab, text), at most ${count(READ_MAX_LINES)} lines per call and ${count(READ_MAX_LINE_CHARS)} characters per line (longer lines are cut and marked). A header gives the shown range and the total line count; when lines remain, read again with offset.`,
  'Prefer reading the whole file (no offset/limit) unless it is longer than the limit. PNG, JPEG, GIF and WebP images come back as images. Other binary files are refused. Directories: use ls.',
].join(' ')

export function readTool(env: ToolsEnv) {
  return defineTool({
    name: 'read',
    description: READ_DESCRIPTION,
    parameters: readParameters,
    output: { schema: readValueSchema, render: renderRead },
    isConcurrencySafe: () => true,
    // a file of any size is one bash call away (`truncate -s 1T`): reading it has a deadline
    timeoutMs: SEARCH_TIMEOUT_MS,
    async execute(args, exec): Promise<ReadValue> {
      const abs = resolvePath(env.root, args.path)
      const shown = displayPath(env.root, abs)
      const file = await openExisting(env, { lexical: abs, shown, tool: 'read', access: 'read' }, 'read')
      if (file === 'missing') throw fsError({ code: 'ENOENT' }, shown, 'read')
      const { handle } = file
      const stat = statFields(file.stat)
      return withFile(file, async () => {
        const head = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size))
        if (head.length > 0) await handle.read(head, 0, head.length, 0)
        const observe = (stamp: FileStamp) => {
          env.observations.record(abs, stamp)
          exec.emit('fs/observed', { path: abs, tool: 'read', ...stamp })
        }

        const image = sniffImage(abs, head)
        if (image !== undefined) {
          if (stat.size > READ_MAX_IMAGE_BYTES) {
            throw new ToolError(
              `${shown} is a ${count(stat.size)}-byte image, over the ${count(READ_MAX_IMAGE_BYTES)}-byte limit for images. Resize it first (e.g. with ImageMagick in bash) and read the smaller copy.`,
            )
          }
          const bytes = await handle.readFile()
          observe({ mtimeMs: stat.mtimeMs, size: stat.size, sha256: sha256(bytes) })
          return {
            kind: 'image',
            path: shown,
            mediaType: image,
            bytes: bytes.length,
            data: bytes.toString('base64'),
          }
        }
        if (looksBinary(head)) {
          throw new ToolError(
            `${shown} is a binary file (${count(stat.size)} bytes); read only shows text and PNG/JPEG/GIF/WebP images. Inspect it with a suitable command in bash (e.g. \`file\`, \`xxd ${shown} | head\`).`,
            { info: { code: 'BINARY_FILE', path: shown } },
          )
        }
        const start = args.offset ?? 1
        const window = await readLineWindow(
          handle,
          start,
          args.limit ?? READ_MAX_LINES,
          READ_MAX_LINE_CHARS,
          {
            bytes: stat.size,
            signal: exec.signal,
          },
        )
        observe({ mtimeMs: stat.mtimeMs, size: stat.size, sha256: window.sha256 })
        if (window.totalLines > 0 && start > window.totalLines) {
          throw new ToolError(
            `offset ${start} is past the end of ${shown}, which has ${plural(window.totalLines, 'line')}. Use an offset between 1 and ${window.totalLines}.`,
          )
        }
        return {
          kind: 'text',
          path: shown,
          startLine: start,
          totalLines: window.totalLines,
          lines: window.lines,
          truncated: window.truncated,
        }
      })
    },
    presentCall: presenter(readParameters, (args) => ({
      card: 'generic' as const,
      title: `Read ${args.path}`,
      kind: 'read',
      locations: [{ path: args.path, ...(args.offset === undefined ? {} : { line: args.offset }) }],
    })),
    presentResult: resultPresenter(readParameters, readValueSchema, (_args, value) => {
      if (value.kind === 'image') {
        return {
          card: 'generic' as const,
          title: `Read ${value.path}`,
          kind: 'read',
          summary: `${value.mediaType} image, ${count(value.bytes)} bytes`,
        }
      }
      const language = languageOf(value.path)
      return {
        card: 'read' as const,
        path: value.path,
        startLine: value.startLine,
        lines: value.lines,
        totalLines: value.totalLines,
        ...(language === undefined ? {} : { language }),
      }
    }),
  })
}

/** The model-visible text (pure: args and value only). */
export function renderRead(args: ReadArgs, value: ReadValue): readonly ContentBlock[] {
  if (value.kind === 'image') {
    return [
      { type: 'text', text: `${modelPath(value.path)} (${value.mediaType}, ${count(value.bytes)} bytes):` },
      { type: 'image', mediaType: value.mediaType, data: value.data },
    ]
  }
  if (value.totalLines === 0)
    return [{ type: 'text', text: `(empty file: ${modelPath(value.path)} has 0 lines)` }]
  const first = value.startLine
  const last = first + value.lines.length - 1
  const cut = new Map(value.truncated.map((t) => [t.line, t.chars]))
  const width = Math.max(6, String(last).length)
  const out: string[] = [
    `${modelPath(value.path)}: lines ${count(first)}-${count(last)} of ${count(value.totalLines)}`,
  ]
  value.lines.forEach((line, i) => {
    const n = first + i
    const chars = cut.get(n)
    out.push(
      `${String(n).padStart(width)}\t${line}${chars === undefined ? '' : ` … [line cut: ${count(chars)} characters, first ${count(READ_MAX_LINE_CHARS)} shown]`}`,
    )
  })
  if (last < value.totalLines) {
    out.push(
      `[${plural(value.totalLines - last, 'more line')} not shown; read with offset=${last + 1} to continue]`,
    )
  }
  // Seed 003 §9.3: reading a short file in pieces costs a turn per piece and resends context.
  const windowed = args.offset !== undefined || args.limit !== undefined
  if (windowed && value.totalLines <= READ_MAX_LINES && value.lines.length < value.totalLines) {
    out.push(
      `[the whole file has ${plural(value.totalLines, 'line')}, within one read: read it without offset/limit instead of in pieces]`,
    )
  }
  return [{ type: 'text', text: out.join('\n') }]
}
