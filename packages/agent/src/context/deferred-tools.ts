// Deferred loading (seed 003 §10): tools that are rarely needed, or MCP tools once the tool
// declarations would take too much of the context window, are not sent in tools[]. The model
// learns their NAMES from a per-turn note in the dynamic part of the conversation, and loads one
// with tool_search; a loaded tool is appended to tools[] from the next request.
//
// Two rules from the prefix-collapse incident (§10.5-§10.7):
// - A deferred tool is never listed like a loaded one. The note says plainly that these tools are
//   not loaded and how to load them; a direct call to one is refused with the same instruction
//   (a guard), so the model never "knows" a name it cannot call.
// - Nothing runtime-dependent enters the static prefix (system prompt, earlier tools[]): which
//   tools are deferred is decided from static properties (deferLoading, the mcp__ prefix and the
//   size of the declarations), what is loaded lives in the note and in the END of tools[].
// Names are announced incrementally; when earlier notes are gone from the history (compaction),
// everything is announced again. Names that stop being deferred (loaded, or their server left)
// are dropped silently (§10.7 (2)).
import type { Disposable, Runtime, ToolSchema } from '@toolgate/core'
import { isForeignTool, type Message, type UserMessage } from '@toolgate/providers'

export interface DeferredToolsOptions {
  /**
   * Defer every MCP tool (`mcp__*`) once the declarations of all tools would exceed this many
   * bytes. Default: 10% of `contextWindowTokens` at ~4 bytes per token.
   */
  readonly thresholdBytes?: number
  /** Default 200,000. */
  readonly contextWindowTokens?: number
  /** Never defer these (the main tools: seed 003 §10.2 — read/grep/edit are never deferred). */
  readonly alwaysLoad?: readonly string[]
  /**
   * The wire searches itself (Anthropic's tool search tool: the model client was created with
   * `nativeToolSearch`). Then every tool is sent, deferred ones marked `deferLoading` for the
   * codec, the emulated search tool is left out, and there is no note and no guard: the API shows
   * a tool's schema to the model when its search finds it. A request whose tools would all be
   * deferred falls back to the emulation (the API refuses it).
   */
  readonly native?: boolean
  /** The emulated search tool's name, left out of native requests. Default 'tool_search'. */
  readonly searchTool?: string
}

export class DeferredTools {
  private readonly activated: string[] = []
  /** Tools that were sent in tools[] once stay there (a tool never vanishes from the model). */
  private readonly sent = new Set<string>()
  private readonly announced = new Set<string>()
  private notes: Message[] = []
  private current: readonly ToolSchema[] = []
  private readonly threshold: number
  private readonly alwaysLoad: ReadonlySet<string>
  private readonly native: boolean
  private readonly searchTool: string

  constructor(options: DeferredToolsOptions = {}) {
    this.threshold = options.thresholdBytes ?? Math.floor((options.contextWindowTokens ?? 200_000) * 0.1 * 4)
    this.alwaysLoad = new Set(options.alwaysLoad ?? [])
    this.native = options.native === true
    this.searchTool = options.searchTool ?? 'tool_search'
  }

  /** The static decision (§10.6): declared deferLoading, or an MCP tool when declarations are large. */
  private deferrable(tool: ToolSchema, mcpDeferred: boolean): boolean {
    if (this.alwaysLoad.has(tool.name) || this.sent.has(tool.name)) return false
    if (tool.deferLoading === true) return true
    return mcpDeferred && isForeignTool(tool.name)
  }

  /**
   * Split the visible tools into what this request sends and what stays deferred. tools[] is the
   * loaded tools in registry order, then the activated ones in activation order (appended).
   */
  plan(all: readonly ToolSchema[]): { tools: ToolSchema[]; deferred: ToolSchema[] } {
    const bytes = all.reduce((n, t) => n + JSON.stringify(t).length, 0)
    const mcpDeferred = bytes > this.threshold
    if (this.native) {
      const own = all.filter((t) => t.name !== this.searchTool)
      const deferred = own.filter((t) => this.deferrable(t, mcpDeferred))
      if (deferred.length > 0 && deferred.length < own.length) {
        const marked = new Set(deferred.map((t) => t.name))
        const tools = own.map((t) => (marked.has(t.name) ? { ...strip(t), deferLoading: true } : strip(t)))
        for (const t of own) if (!marked.has(t.name)) this.sent.add(t.name)
        this.current = []
        return { tools, deferred }
      }
    }
    const byName = new Map(all.map((t) => [t.name, t]))
    const activated = new Set(this.activated.filter((n) => byName.has(n)))
    const tools: ToolSchema[] = []
    const deferred: ToolSchema[] = []
    for (const t of all) {
      if (activated.has(t.name)) continue
      if (this.deferrable(t, mcpDeferred)) deferred.push(t)
      else tools.push(strip(t))
    }
    for (const name of this.activated) {
      const t = byName.get(name)
      if (t) tools.push(strip(t))
    }
    for (const t of tools) this.sent.add(t.name)
    this.current = deferred
    return { tools, deferred }
  }

  /** The note for this turn, or undefined when there is nothing new to announce. */
  announce(history: readonly Message[]): UserMessage | undefined {
    // Compaction removed an earlier note: the model lost those names, announce everything again.
    if (this.notes.some((n) => !history.includes(n))) {
      this.announced.clear()
      this.notes = []
    }
    const fresh = this.current.filter((t) => !this.announced.has(t.name)).map((t) => t.name)
    if (fresh.length === 0) return undefined
    for (const n of fresh) this.announced.add(n)
    const again = this.notes.length === 0 && this.current.length > fresh.length
    const text = deferredNote(fresh, again)
    const note: UserMessage = { role: 'user', content: [{ type: 'text', text }] }
    this.notes.push(note)
    return note
  }

  // ---- DeferredCatalog (what tool_search uses) ----

  deferred(): readonly ToolSchema[] {
    return this.current
  }

  activate(names: readonly string[]): readonly string[] {
    const deferred = new Set(this.current.map((t) => t.name))
    const done: string[] = []
    for (const n of names) {
      if (deferred.has(n) && !this.activated.includes(n)) {
        this.activated.push(n)
        done.push(n)
      }
    }
    return done
  }

  loaded(name: string): boolean {
    return this.sent.has(name)
  }

  isDeferred(name: string): boolean {
    return this.current.some((t) => t.name === name) && !this.activated.includes(name)
  }

  /** Refuse direct calls to a tool that is not loaded (the model never saw its schema). */
  guard(runtime: Runtime): Disposable {
    return runtime.guard((exec) =>
      exec.parent === undefined && this.isDeferred(exec.name)
        ? { message: notLoadedMessage(exec.name) }
        : undefined,
    )
  }
}

/** deferLoading is a host decision; the declaration sent is the ordinary one. */
function strip(tool: ToolSchema): ToolSchema {
  if (tool.deferLoading === undefined) return tool
  const { deferLoading: _, ...rest } = tool
  return rest
}

export function deferredNote(names: readonly string[], again: boolean): string {
  return [
    `<deferred-tools${again ? ' complete="true"' : ''}>`,
    'These tools exist but are NOT loaded: you cannot call them yet. To use one, first call tool_search with "select:<name>"; it can be called from your next step on.',
    ...names.map((n) => `- ${n}`),
    '</deferred-tools>',
  ].join('\n')
}

export function notLoadedMessage(name: string): string {
  return `${name} is a deferred tool that is not loaded, so this call was not run (its schema was never sent to you). Call tool_search with "select:${name}" first, then call ${name} with the arguments its schema asks for.`
}
