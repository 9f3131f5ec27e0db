// Result budget (seed 003 §9.2): a tool result is resent on every later turn, so a huge output is
// paid for again and again. Over its tool's threshold, the model sees the head (~70%: command,
// context) and the tail (~30%: error summaries live there), is told exactly how much was left out,
// and gets the full text in a file it can read back. `read` is exempt: its own line limits bound
// it, and spilling a read result would send the model to read the spill file, which would spill
// again — two correct mechanisms composing into a loop (§9.2, §13.5). MCP tools (`mcp__*`) are
// exempt too: they bound their own output by tokens in finalizeContent, AFTER post-execute, so
// post-execute listeners (redaction) see the untruncated output (§5.2, §12.3); cutting them here
// by characters would cut twice and hide the output from the listeners after this one.
//
// It is a tools/post-execute listener, so the pipeline stays the one place content is decided:
// only the content is replaced; the value (and the session log's copy of it) stays complete.
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { ContentBlock, Plugin, PostToolDecision } from '@toolgate/core'

export interface ResultBudgetOptions {
  /** Directory for the full outputs; created on first spill. */
  readonly spillDir: string
  /** Characters of model-visible text per result. Default 16,000. */
  readonly defaultLimit?: number
  /** Per-tool thresholds; `Infinity` exempts a tool. */
  readonly limits?: Readonly<Record<string, number>>
  /** Tools never budgeted; `prefix*` names every tool with that prefix. Default ['read', 'mcp__*']. */
  readonly exempt?: readonly string[]
  /** Share of the kept text taken from the head. Default 0.7. */
  readonly headRatio?: number
}

export const DEFAULT_RESULT_LIMIT = 16_000
/** read bounds itself by lines; MCP tools by tokens, after post-execute. */
export const DEFAULT_EXEMPT: readonly string[] = ['read', 'mcp__*']
/** Characters of the limit kept free for the notices. */
const NOTICE_RESERVE = 400

export function resultBudget(options: ResultBudgetOptions): Plugin {
  const spillDir = resolve(options.spillDir)
  const exemptions = options.exempt ?? DEFAULT_EXEMPT
  const exempt = new Set(exemptions.filter((e) => !e.endsWith('*')))
  const prefixes = exemptions.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1))
  const headRatio = options.headRatio ?? 0.7
  const limitOf = (name: string) =>
    exempt.has(name) || prefixes.some((p) => name.startsWith(p))
      ? Number.POSITIVE_INFINITY
      : (options.limits?.[name] ?? options.defaultLimit ?? DEFAULT_RESULT_LIMIT)
  let spilled = 0

  return (ctx) => {
    ctx.on('tools/post-execute', async (exec, result, next) => {
      const decision = await next()
      // Sub-calls (Code Mode) feed a program, not the model; run_code's own output is budgeted.
      if (exec.parent !== undefined) return decision
      const limit = limitOf(exec.name)
      if (!Number.isFinite(limit)) return decision
      let content: readonly ContentBlock[]
      if (decision.kind === 'accept' && decision.content !== undefined) content = decision.content
      else if (decision.kind === 'accept' && decision.value === undefined) content = result.content
      else return decision // a replaced value is re-rendered later; a block carries short feedback
      const text = content
        .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
        .map((b) => b.text)
        .join('\n')
      if (text.length <= limit) return decision
      let file = ''
      let saved: string | undefined
      try {
        await mkdir(spillDir, { recursive: true })
        // Never overwrite: call ids repeat across sessions (and scripted models).
        for (;;) {
          spilled++
          file = join(spillDir, `${safe(exec.name)}-${safe(exec.callId)}-${spilled}.txt`)
          try {
            await writeFile(file, text, { encoding: 'utf8', flag: 'wx' })
            break
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || spilled > 10_000) throw error
          }
        }
      } catch (error) {
        saved = `The full output could not be saved (${(error as Error).message}); re-run the command with narrower output if you need the omitted part.`
      }
      const truncated = truncateMiddle(text, limit, headRatio, saved ?? spillNotice(file, text))
      const images = content.filter((b) => b.type !== 'text')
      return {
        ...(decision.additionalContexts ? { additionalContexts: decision.additionalContexts } : {}),
        kind: 'accept',
        content: [{ type: 'text', text: truncated }, ...images],
      } satisfies PostToolDecision
    })
  }
}

/**
 * Head + omission marker + tail + notice, at most about `limit` characters. Cuts never split a
 * surrogate pair.
 */
export function truncateMiddle(text: string, limit: number, headRatio: number, notice: string): string {
  const room = Math.max(0, limit - NOTICE_RESERVE)
  let headEnd = Math.floor(room * headRatio)
  let tailStart = text.length - (room - headEnd)
  if (isLowSurrogate(text, headEnd)) headEnd--
  if (isLowSurrogate(text, tailStart)) tailStart++
  const head = text.slice(0, headEnd)
  const tail = text.slice(tailStart)
  const omitted = text.slice(headEnd, tailStart)
  const firstLine = lineCount(head) // the omitted part starts on this (1-based) line
  const lastLine = firstLine + lineCount(omitted) - 1
  const marker = `[... ${omitted.length} characters omitted (lines ${firstLine}-${lastLine} of ${lineCount(text)}) ...]`
  return `${head}\n\n${marker}\n\n${tail}\n\n${notice}`
}

export function spillNotice(file: string, text: string): string {
  return (
    `[Output truncated: it has ${text.length} characters in ${lineCount(text)} lines. The full output is saved ` +
    `to ${file}. Read the omitted lines with read {"path": ${JSON.stringify(file)}, "offset": <line>, "limit": <lines>}.]`
  )
}

function lineCount(text: string): number {
  let n = 1
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return n
}

function isLowSurrogate(text: string, index: number): boolean {
  const c = text.charCodeAt(index)
  return c >= 0xdc00 && c <= 0xdfff
}

function safe(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)
}
