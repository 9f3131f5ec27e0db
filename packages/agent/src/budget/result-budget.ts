// Result budget (seed 003 §9.2): a tool result is resent on every later turn, so a huge output is
// paid for again and again. Over its tool's budget (in tokens), the model sees the head (70%:
// command, context) and the tail (30%: error summaries live there), in whole lines, is told
// exactly which lines were left out, and gets the full text in a file with a ready `read` call for
// them. `read` is exempt: its own line limits bound it, and spilling a read result would send the
// model to read the spill file, which would spill again — two correct mechanisms composing into a
// loop (§9.2, §13.5). MCP tools (`mcp__*`) are exempt too: they bound their own output by tokens in
// finalizeContent, AFTER post-execute, so post-execute listeners (redaction) see the untruncated
// output (§5.2, §12.3); cutting them here would cut twice and hide the output from the listeners
// after this one.
//
// It is a tools/post-execute listener, so the pipeline stays the one place content is decided:
// only the content is replaced; the value (and the session log's copy of it) stays complete.
import { relative, resolve, sep } from 'node:path'
import type { ContentBlock, Plugin, PostToolDecision } from '@toolgate/core'
import { estimateTokens } from '../context/tokens.js'
import { SpillDirectory } from './spill.js'

export interface ResultBudgetOptions {
  /** Directory for the full outputs; created on the first spill. */
  readonly spillDir: string
  /**
   * The workspace root: paths in notices are shown relative to it (what the model's tools take), and
   * every directory from it down to `spillDir` must be a real directory (see spill.ts).
   */
  readonly root?: string
  /** Tokens of model-visible text per result. Default 6,000. */
  readonly maxTokens?: number
  /** Per-tool budgets in tokens; `Infinity` exempts a tool. */
  readonly limits?: Readonly<Record<string, number>>
  /** Tools never budgeted; `prefix*` names every tool with that prefix. Default ['read', 'mcp__*']. */
  readonly exempt?: readonly string[]
  /** Share of the kept text taken from the head. Default 0.7. */
  readonly headRatio?: number
  /**
   * Budget calls made with a parent token too. Default false: Code Mode's sub-calls feed a program,
   * not the model. A sub-agent (the `task` tool) sets it for its own scope: its results feed a model.
   */
  readonly budgetSubCalls?: boolean
}

export const DEFAULT_RESULT_TOKENS = 6_000
/** `read` returns at most this many lines per call (the tools package's READ_MAX_LINES). */
const READ_MAX_LINES = 2000
/** Tokens of the budget kept for the marker and the notice. */
const NOTICE_RESERVE = 150
/** read bounds itself by lines; MCP tools by tokens, after post-execute. */
export const DEFAULT_EXEMPT: readonly string[] = ['read', 'mcp__*']

export function resultBudget(options: ResultBudgetOptions): Plugin {
  const spill = new SpillDirectory(options.spillDir, options.root)
  const exemptions = options.exempt ?? DEFAULT_EXEMPT
  const exempt = new Set(exemptions.filter((e) => !e.endsWith('*')))
  const prefixes = exemptions.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1))
  const headRatio = options.headRatio ?? 0.7
  const shown = (file: string) => displayPath(file, options.root)
  const limitOf = (name: string) =>
    exempt.has(name) || prefixes.some((p) => name.startsWith(p))
      ? Number.POSITIVE_INFINITY
      : (options.limits?.[name] ?? options.maxTokens ?? DEFAULT_RESULT_TOKENS)

  return (ctx) => {
    ctx.on('tools/post-execute', async (exec, result, next) => {
      const decision = await next()
      if (exec.parent !== undefined && options.budgetSubCalls !== true) return decision
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
      // Cheap bound first: fewer characters than the budget in tokens can never be over it.
      if (text.length <= limit || estimateTokens(text) <= limit) return decision
      const cut = cutLines(text, limit - NOTICE_RESERVE, headRatio)
      let notice: string
      try {
        const file = await spill.write(`${exec.name}-${exec.callId}`, text)
        notice = spillNotice(shown(file), cut)
      } catch (error) {
        notice = `[Output truncated to about ${limit} tokens: it has ${cut.totalLines} lines (~${cut.totalTokens} tokens). The full output could not be saved (${(error as Error).message}); re-run the command with narrower output if you need lines ${cut.omittedFrom}-${cut.omittedTo}.]`
      }
      const images = content.filter((b) => b.type !== 'text')
      return {
        ...(decision.additionalContexts ? { additionalContexts: decision.additionalContexts } : {}),
        kind: 'accept',
        content: [{ type: 'text', text: `${cut.text}\n\n${notice}` }, ...images],
      } satisfies PostToolDecision
    })
  }
}

/** What a cut kept and left out, in 1-based line numbers of the full text. */
export interface LineCut {
  /** Head, the omission marker, tail. */
  readonly text: string
  readonly totalLines: number
  readonly totalTokens: number
  readonly omittedFrom: number
  readonly omittedTo: number
}

/**
 * Whole lines from the head (headRatio of `budget` tokens) and from the tail (the rest), with a
 * marker between them naming the omitted lines. A single line longer than its share is cut inside
 * (marked), so a one-line minified file cannot defeat the budget.
 */
export function cutLines(text: string, budget: number, headRatio = 0.7): LineCut {
  const lines = text.split('\n')
  const tokens = lines.map((l) => estimateTokens(l) + 1)
  const totalTokens = tokens.reduce((a, b) => a + b, 0)
  const headBudget = Math.max(1, Math.floor(budget * headRatio))
  const tailBudget = Math.max(1, budget - headBudget)
  let head = 0
  let used = 0
  while (head < lines.length && used + tokens[head]! <= headBudget) used += tokens[head++]!
  let tail = 0
  used = 0
  while (tail < lines.length - head && used + tokens[lines.length - 1 - tail]! <= tailBudget)
    used += tokens[lines.length - 1 - tail++]!
  const headLines = lines.slice(0, head)
  const tailLines = lines.slice(lines.length - tail)
  // Nothing fit whole on a side: show the start (or end) of its first line, cut and marked.
  if (head === 0) headLines.push(`${clip(lines[0]!, headBudget, 'start')} [line 1 cut]`)
  if (tail === 0 && lines.length - head > 1)
    tailLines.unshift(`[line ${lines.length} cut] ${clip(lines[lines.length - 1]!, tailBudget, 'end')}`)
  const omittedFrom = head + 1
  const omittedTo = lines.length - tail
  const omittedTokens = tokens.slice(head, lines.length - tail).reduce((a, b) => a + b, 0)
  const marker = `[... lines ${omittedFrom}-${omittedTo} of ${lines.length} omitted (~${omittedTokens} tokens) ...]`
  return {
    text: [...headLines, '', marker, '', ...tailLines].join('\n'),
    totalLines: lines.length,
    totalTokens,
    omittedFrom,
    omittedTo,
  }
}

/** The notice after a cut: where the full text is, and the exact read call for the omitted lines. */
export function spillNotice(path: string, cut: LineCut): string {
  const count = cut.omittedTo - cut.omittedFrom + 1
  const limit = Math.min(count, READ_MAX_LINES)
  const more =
    count > READ_MAX_LINES
      ? ` (read returns at most ${READ_MAX_LINES} lines per call; continue with offset ${cut.omittedFrom + READ_MAX_LINES})`
      : ''
  return (
    `[Output truncated: it has ${cut.totalLines} lines (~${cut.totalTokens} tokens). The full output is saved to ${path}. ` +
    `Read the omitted lines with read {"path": ${JSON.stringify(path)}, "offset": ${cut.omittedFrom}, "limit": ${limit}}${more}.]`
  )
}

/** Relative to the workspace root when inside it (what the model's paths look like), else absolute. */
export function displayPath(file: string, root: string | undefined): string {
  if (root === undefined) return file
  const rel = relative(resolve(root), file)
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return file
  return sep === '/' ? rel : rel.split(sep).join('/')
}

function clip(line: string, budget: number, side: 'start' | 'end'): string {
  // ~3 characters per token keeps the clipped part inside its budget for any script.
  const chars = Math.max(1, budget * 3)
  let out = side === 'start' ? line.slice(0, chars) : line.slice(line.length - chars)
  while (estimateTokens(out) > budget && out.length > 1)
    out =
      side === 'start' ? out.slice(0, Math.floor(out.length * 0.8)) : out.slice(Math.ceil(out.length * 0.2))
  // Never half a surrogate pair at a cut.
  if (side === 'start' && /[\ud800-\udbff]$/.test(out)) out = out.slice(0, -1)
  if (side === 'end' && /^[\udc00-\udfff]/.test(out)) out = out.slice(1)
  return out
}
