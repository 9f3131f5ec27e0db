// Context pressure (seed 003 §4.3 ①, §9): the loop knows the model's window and how full it is,
// and keeps every request inside it. How full: the provider's usage of the last request (prompt +
// output tokens) plus an estimate of what was appended since; before the first response, an
// estimate of everything. Above `elideAt` of the usable window, old tool-result bodies are replaced
// by stubs that say where the full text is saved (one pass over everything old enough, so the
// prompt cache breaks once, not on every turn). Above `compactAt`, the older turns are summarized
// by the model into one message; the recent turns stay verbatim. Both keep the history valid for
// every wire format: a cut falls only between turns (never between a call and its result), and a
// stub is a result of its own call. Both are logged, so a resumed session rebuilds the same history.
import type { JsonObject, JsonValue, ToolSchema } from '@toolgate/core'
import type { Message, ModelClient, ModelRequest, ToolResultMessage } from '@toolgate/providers'
import { displayPath } from '../budget/result-budget.js'
import type { SpillDirectory } from '../budget/spill.js'
import { COMPACTION_PROMPT, elidedStub, lostTurnsText, summaryMessageText } from './compaction-prompts.js'
import { estimateTokens, messagesTokens, messageTokens, toolsTokens } from './tokens.js'

export interface ContextOptions {
  /** The model's context window in tokens (see `contextWindowOf`). */
  readonly window: number
  /** Elide old tool results above this share of the usable window. Default 0.6. */
  readonly elideAt?: number
  /** Compact above this share of the usable window. Default 0.8. */
  readonly compactAt?: number
  /** Turns at the end that elision never touches. Default 2. */
  readonly keepTurns?: number
  /** Share of the usable window the verbatim tail after a compaction may take. Default 0.3. */
  readonly keepShare?: number
  /** Where elided results are saved, and the root their paths are shown relative to. */
  readonly spill?: { readonly dir: SpillDirectory; readonly root?: string }
  /**
   * Messages appended right after a compaction's summary: announcements the summary must not eat,
   * such as the list of deferred tools (seed 003 §10.7: replayed in full after every compaction).
   */
  readonly afterCompaction?: () => readonly Message[]
  /** Output tokens per summary request. Default 4,096. */
  readonly summaryMaxTokens?: number
}

/** What relieving the pressure did (for events and the session log). */
export type PressureAction =
  | {
      readonly kind: 'elided'
      readonly before: number
      readonly after: number
      readonly results: readonly ElidedResult[]
    }
  | {
      readonly kind: 'compacted'
      readonly before: number
      readonly after: number
      readonly summarized: number
      readonly dropped: number
      /** The message that replaced the summarized turns (exact, for a resumed session). */
      readonly summary: string
      /** The messages `afterCompaction` put right after it. */
      readonly replayed: readonly Message[]
      readonly failed?: string
    }

export interface ElidedResult {
  readonly callId: string
  readonly name: string
  readonly tokens: number
  /** The stub that replaced the body (exact, for a resumed session). */
  readonly stub: string
}

export interface PressureContext {
  readonly history: Message[]
  readonly system: string | undefined
  readonly tools: readonly ToolSchema[]
  /** Output tokens reserved for the reply. */
  readonly maxOutput: number
  readonly model: ModelClient
  readonly signal: AbortSignal
  readonly cache?: ModelRequest['cache']
}

/** Output tokens reserved when the request sets none (the providers' default). */
export const DEFAULT_OUTPUT_RESERVE = 8192

export class ContextManager {
  private known: { index: number; tokens: number } | undefined
  /** History indexes below this were scanned for elision already. */
  private elidedBelow = 0

  constructor(readonly options: ContextOptions) {}

  /** The usable window: the window minus what the reply may take (at most a quarter of it). */
  usable(maxOutput: number): number {
    return this.options.window - Math.min(maxOutput, Math.floor(this.options.window / 4))
  }

  /** The provider said how many tokens a request held: history[0..index) plus its reply. */
  observe(index: number, promptTokens: number, outputTokens: number): void {
    this.known = { index, tokens: promptTokens + outputTokens }
  }

  /** Tokens the next request would carry (excluding its reply). */
  estimate(ctx: Pick<PressureContext, 'history' | 'system' | 'tools'>): number {
    const { history } = ctx
    if (this.known !== undefined && this.known.index <= history.length) {
      let n = this.known.tokens
      for (let i = this.known.index; i < history.length; i++) n += messageTokens(history[i]!)
      return n
    }
    return (
      (ctx.system === undefined ? 0 : estimateTokens(ctx.system) + 4) +
      toolsTokens(ctx.tools) +
      messagesTokens(history)
    )
  }

  /**
   * Elide, then compact, as far as needed; the history is edited in place. Returns what was done
   * (nothing when below the thresholds).
   */
  async relieve(ctx: PressureContext, force = false): Promise<PressureAction[]> {
    const usable = this.usable(ctx.maxOutput)
    const actions: PressureAction[] = []
    let used = this.estimate(ctx)
    if (force || used > usable * (this.options.elideAt ?? 0.6)) {
      const elided = await this.elide(ctx)
      if (elided.length > 0) {
        const after = this.estimate(ctx)
        actions.push({ kind: 'elided', before: used, after, results: elided })
        used = after
      }
    }
    if (force || used > usable * (this.options.compactAt ?? 0.8)) {
      const compacted = await this.compact(ctx, usable, used, force)
      if (compacted) {
        actions.push(compacted)
        used = compacted.after
      }
    }
    if (used > usable) {
      // Still too large (one turn is most of the window): the recent results go to stubs as well.
      const elided = await this.elide(ctx, 0)
      if (elided.length > 0) {
        const after = this.estimate(ctx)
        actions.push({ kind: 'elided', before: used, after, results: elided })
      }
    }
    return actions
  }

  /** Replace the bodies of tool results older than the last `keepTurns` turns with stubs. */
  private async elide(ctx: PressureContext, keep = this.options.keepTurns ?? 2): Promise<ElidedResult[]> {
    const { history } = ctx
    let turns = 0
    let limit = history.length
    for (let i = history.length - 1; i >= 0 && turns < keep; i--) {
      if (history[i]!.role === 'assistant') {
        turns++
        limit = i
      }
    }
    const out: ElidedResult[] = []
    for (let i = keep === 0 ? 0 : this.elidedBelow; i < limit; i++) {
      const m = history[i]!
      if (m.role !== 'tool' || isStub(m)) continue
      const tokens = messageTokens(m)
      if (tokens < 200) continue // a stub would not be much shorter
      const text = m.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
      const lines = text.split('\n').length
      let saved: { path: string } | { error: string }
      if (this.options.spill === undefined) saved = { error: 'no spill directory is configured' }
      else {
        try {
          const file = await this.options.spill.dir.write(`elided-${m.name}-${m.callId}`, text)
          saved = { path: displayPath(file, this.options.spill.root) }
        } catch (error) {
          saved = { error: (error as Error).message }
        }
      }
      const stub = elidedStub(m.name, lines, tokens, saved)
      history[i] = stubMessage(m, stub)
      out.push({ callId: m.callId, name: m.name, tokens, stub })
    }
    this.elidedBelow = Math.max(this.elidedBelow, limit)
    if (out.length > 0) this.known = undefined
    return out
  }

  /** Summarize the turns before a turn boundary into one message; keep the rest verbatim. */
  private async compact(
    ctx: PressureContext,
    usable: number,
    before: number,
    force: boolean,
  ): Promise<PressureAction | undefined> {
    const { history } = ctx
    // Asked for (`/compact`): keep only the last turn verbatim.
    const cut = keptFrom(history, force ? 0 : Math.floor(usable * (this.options.keepShare ?? 0.3)))
    if (cut <= 0) return undefined // one turn is all there is: nothing older to summarize
    const older = history.slice(0, cut)
    // What the summary request can carry: drop whole turns from the front until it fits.
    const fixed =
      (ctx.system === undefined ? 0 : estimateTokens(ctx.system)) +
      toolsTokens(ctx.tools) +
      estimateTokens(COMPACTION_PROMPT)
    const summaryOutput = Math.min(this.options.summaryMaxTokens ?? 4096, Math.floor(usable / 4))
    let from = 0
    let size = messagesTokens(older)
    while (fixed + size + summaryOutput > usable && from < older.length) {
      const next = nextBoundary(older, from)
      for (let i = from; i < next; i++) size -= messageTokens(older[i]!)
      from = next
    }
    const input = older.slice(from)
    let text: string
    let failed: string | undefined
    try {
      if (input.length === 0) throw new Error('the older turns do not fit into a summary request')
      const summary = await summarize(ctx, input, summaryOutput)
      text = summaryMessageText(summary, older.length, from)
    } catch (error) {
      if (ctx.signal.aborted) throw error
      failed = (error as Error).message
      text = lostTurnsText(older.length, failed)
    }
    const replay = this.options.afterCompaction?.() ?? []
    history.splice(0, cut, { role: 'user', content: [{ type: 'text', text }] }, ...replay)
    this.known = undefined
    this.elidedBelow = Math.max(0, this.elidedBelow - cut + 1 + replay.length)
    return {
      kind: 'compacted',
      before,
      after: this.estimate(ctx),
      summarized: older.length,
      dropped: from,
      summary: text,
      replayed: replay,
      ...(failed === undefined ? {} : { failed }),
    }
  }
}

/** The history index where the verbatim tail starts: whole turns from the end within `budget` tokens (at least the last turn). */
function keptFrom(history: readonly Message[], budget: number): number {
  let size = 0
  let start = history.length
  for (let i = history.length - 1; i >= 0; i--) {
    size += messageTokens(history[i]!)
    if (isBoundary(history, i)) {
      if (size > budget && start < history.length) break
      start = i
    }
  }
  return start === history.length ? lastBoundary(history) : start
}

/** A turn starts at a user or assistant message that does not follow a user message. */
function isBoundary(history: readonly Message[], i: number): boolean {
  const m = history[i]!
  if (m.role === 'tool' || m.role === 'system') return false
  return i === 0 || history[i - 1]!.role !== 'user'
}

function lastBoundary(history: readonly Message[]): number {
  for (let i = history.length - 1; i >= 0; i--) if (isBoundary(history, i)) return i
  return 0
}

function nextBoundary(history: readonly Message[], from: number): number {
  for (let i = from + 1; i < history.length; i++) if (isBoundary(history, i)) return i
  return history.length
}

const STUB_PREFIX = '[This '

function isStub(m: ToolResultMessage): boolean {
  const first = m.content[0]
  return (
    m.content.length === 1 &&
    first?.type === 'text' &&
    first.text.startsWith(STUB_PREFIX) &&
    first.text.includes('was removed from the conversation to save context')
  )
}

function stubMessage(m: ToolResultMessage, stub: string): ToolResultMessage {
  return {
    role: 'tool',
    callId: m.callId,
    name: m.name,
    content: [{ type: 'text', text: stub }],
    isError: m.isError,
  }
}

/** One model request over the older turns; its text is the summary. */
async function summarize(
  ctx: PressureContext,
  older: readonly Message[],
  maxTokens: number,
): Promise<string> {
  const messages: Message[] = [
    ...(ctx.system === undefined ? [] : [{ role: 'system' as const, content: ctx.system }]),
    ...older,
    { role: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] },
  ]
  // The same tools as the conversation (their bytes are the cached prefix; Anthropic also requires
  // tools to be declared when the history holds tool calls), but none may be called.
  const request: ModelRequest = {
    messages,
    tools: ctx.tools,
    toolChoice: 'none',
    maxTokens,
    ...(ctx.cache ? { cache: ctx.cache } : {}),
  }
  let text = ''
  let finished = false
  for await (const event of ctx.model.stream(request, ctx.signal)) {
    if (event.type === 'text-delta') text += event.text
    else if (event.type === 'finish') finished = true
  }
  if (!finished) throw new Error('the summary reply ended without a finish event')
  if (text.trim() === '') throw new Error('the summary reply was empty')
  return text
}

/** The action as a session event payload (lossless JSON). */
export function actionPayload(turn: number, action: PressureAction): JsonObject {
  if (action.kind === 'elided')
    return {
      turn,
      before: action.before,
      after: action.after,
      results: action.results.map((r) => ({
        callId: r.callId,
        name: r.name,
        tokens: r.tokens,
        stub: r.stub,
      })) as JsonValue,
    }
  return {
    turn,
    before: action.before,
    after: action.after,
    summarized: action.summarized,
    dropped: action.dropped,
    summary: action.summary,
    replayed: action.replayed as unknown as JsonValue,
    ...(action.failed === undefined ? {} : { failed: action.failed }),
  }
}
