// edit {path, old_string, new_string, replace_all?}: exact string replacement in a file the model
// has read. The model sees a one-line confirmation; the unified diff goes to meta and the diff card.

import { defineTool, ToolError } from '@toolgate/core'
import { z } from 'zod'
import type { ToolsEnv } from '../context.js'
import { unifiedDiff } from '../fs/diff.js'
import { EDIT_MAX_BYTES, openForEdit, requireFresh, withFile, writeObserved } from '../fs/guarded.js'
import { looksBinary } from '../fs/kind.js'
import type { Target } from '../fs/open-file.js'
import { count, plural } from '../util/format.js'
import { displayPath, resolvePath } from '../util/paths.js'
import { diffMeta, presenter, resultPresenter } from '../util/present.js'

export const editParameters = z.object({
  path: z.string().min(1).describe('The file to edit: absolute, or relative to the workspace root.'),
  old_string: z
    .string()
    .min(1)
    .describe(
      'The exact text to replace, copied from read output without the line-number prefix (whitespace and indentation must match).',
    ),
  new_string: z.string().describe('The replacement text (must differ from old_string).'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence instead of exactly one (default false).'),
})
export type EditArgs = z.infer<typeof editParameters>

export const editValueSchema = z.object({
  path: z.string(),
  replacements: z.number().int(),
  diff: z.string(),
  added: z.number().int(),
  removed: z.number().int(),
})
export type EditValue = z.infer<typeof editValueSchema>

export const EDIT_DESCRIPTION = [
  "Replace exact text in an existing file. Requires a read of the file's current version in this session.",
  'old_string must match the file exactly (copy it from read output, without the line-number prefix) and must occur exactly once, unless replace_all is true; include enough surrounding lines to make it unique.',
  'Use write to create files or replace a whole file; do not edit files with sed or bash. Returns a one-line confirmation with the number of replacements.',
].join(' ')

/** Non-overlapping occurrences of `needle` (non-empty) in `haystack`. */
function occurrences(haystack: string, needle: string): number {
  let n = 0
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++
  return n
}

export function editTool(env: ToolsEnv) {
  return defineTool({
    name: 'edit',
    description: EDIT_DESCRIPTION,
    parameters: editParameters,
    output: {
      schema: editValueSchema,
      render: (_args, value: EditValue) => [{ type: 'text', text: renderEdit(value) }],
      presentationMeta: diffMeta,
    },
    async execute(args, exec): Promise<EditValue> {
      const abs = resolvePath(env.root, args.path)
      const shown = displayPath(env.root, abs)
      if (args.old_string === args.new_string) {
        throw new ToolError(
          'old_string and new_string are identical, so the edit would change nothing. Send the text you want in new_string.',
        )
      }
      const target: Target = { lexical: abs, shown, tool: 'edit', access: 'write' }
      return env.observations.withLock(abs, async () => {
        const current = await openForEdit(env, target)
        return withFile(current.file, async () => {
          if (looksBinary(current.content.subarray(0, 8192))) {
            throw new ToolError(`${shown} is a binary file; edit only changes text files.`)
          }
          requireFresh(env, abs, shown, current.stamp, 'edit')
          const before = current.content.toString('utf8')
          let oldString = args.old_string
          let newString = args.new_string
          let found = occurrences(before, oldString)
          // CRLF files: read shows lines without \r, so the model's text has bare \n.
          if (
            found === 0 &&
            before.includes('\r\n') &&
            oldString.includes('\n') &&
            !oldString.includes('\r')
          ) {
            oldString = oldString.replace(/\n/g, '\r\n')
            newString = newString.replace(/\r?\n/g, '\r\n')
            found = occurrences(before, oldString)
          }
          if (found === 0) {
            throw new ToolError(
              `old_string was not found in ${shown}. Read the file again and copy the exact text to replace (same whitespace, indentation and line breaks, without line-number prefixes).`,
              { info: { code: 'NO_MATCH', path: shown } },
            )
          }
          if (found > 1 && args.replace_all !== true) {
            throw new ToolError(
              `old_string occurs ${count(found)} times in ${shown}. Include more surrounding lines in old_string so it matches exactly one place, or set replace_all: true to replace all ${count(found)}.`,
              { info: { code: 'AMBIGUOUS_MATCH', path: shown, occurrences: found } },
            )
          }
          // replace_all multiplies new_string: the result may not pass what edit can load (a 1 KB
          // file became 100 MB, and a little more failed as "Invalid string length")
          const replaced = args.replace_all === true ? found : 1
          const bytes =
            current.content.length +
            replaced * (Buffer.byteLength(newString, 'utf8') - Buffer.byteLength(oldString, 'utf8'))
          if (bytes > EDIT_MAX_BYTES) throw tooLargeResult(shown, bytes, replaced)
          // split/join and slicing, not String.replace: `$&` and `$1` in new_string stay literal.
          const after =
            args.replace_all === true
              ? before.split(oldString).join(newString)
              : (() => {
                  const at = before.indexOf(oldString)
                  return before.slice(0, at) + newString + before.slice(at + oldString.length)
                })()
          await writeObserved(env, exec, current.file, target, after)
          const { diff, added, removed } = unifiedDiff(shown, before, after)
          return { path: shown, replacements: found, diff, added, removed }
        })
      })
    },
    presentCall: presenter(editParameters, (args) => ({ card: 'diff' as const, path: args.path })),
    presentResult: resultPresenter(editParameters, editValueSchema, (args, value) => ({
      card: 'diff' as const,
      ...diffMeta(args, value),
    })),
  })
}

function tooLargeResult(shown: string, bytes: number, replaced: number): ToolError {
  return new ToolError(
    `The edit would make ${shown} ${count(bytes)} bytes (${plural(replaced, 'replacement')}), over the ${count(EDIT_MAX_BYTES)}-byte limit for edit; nothing was changed. Replace fewer occurrences, or make this change with a command in bash (e.g. a script that streams the file).`,
    { info: { code: 'FILE_TOO_LARGE', path: shown, bytes, limit: EDIT_MAX_BYTES } },
  )
}

export function renderEdit(value: EditValue): string {
  return `Edited ${value.path}: replaced ${plural(value.replacements, 'occurrence')} (+${count(value.added)} -${count(value.removed)} lines).`
}
