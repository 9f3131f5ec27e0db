// MCP in a CLI session: the configured servers (`.mcp.json`, `.toolgate/settings.json`, the
// user's settings) start in the background; their tools are registered between turns (the agent
// loop's beforeTurn), deferred behind tool_search once their declarations would take 10% of the
// model's context window (seed 003 §10.2), and the servers are stopped with the session. A server
// whose state changes after the banner (connects, dies, reconnects) is reported at the next turn.
import { DeferredTools } from '@toolgate/agent'
import type { Runtime } from '@toolgate/core'
import { McpManager, type ServerReport, type SpillSink } from '@toolgate/mcp'
import { toolSearchTool } from '@toolgate/tools'
import type { McpPending } from '../render/status-line.js'
import { terminalSafe } from '../render/terminal-text.js'

export interface McpSession {
  readonly manager: McpManager
  readonly deferred: DeferredTools
  /**
   * Between turns: apply what changed (new servers, list_changed, dead servers). Returns one
   * line per server whose state changed since the banner or the last sync.
   */
  sync(): string[]
  /** Banner lines: every server's state now (and the baseline for later changes). */
  banner(): string[]
  /** Servers whose tools the model cannot call yet: starting (or connected, tools at the next turn), reconnecting. */
  pending(): McpPending
  dispose(): Promise<void>
}

export interface McpSessionOptions {
  /** The model's context window (tokens): deferral starts at 10% of it. */
  readonly contextWindowTokens?: number
  /** The provider searches deferred tools itself (Anthropic's tool search tool). */
  readonly nativeToolSearch?: boolean
  /** Where full outputs of cut results go (the workspace spill directory `read` may open). */
  readonly spill?: SpillSink
}

/** Undefined when no server is configured (then nothing is registered, not even tool_search). */
export function startMcp(
  runtime: Runtime,
  root: string,
  options: McpSessionOptions = {},
): McpSession | undefined {
  const manager = McpManager.fromConfig({ root, ...(options.spill ? { spill: options.spill } : {}) })
  if (manager.report().length === 0 && manager.fileProblems.length === 0) return undefined
  manager.attach(runtime)
  void manager.start()
  const deferred = new DeferredTools({
    ...(options.contextWindowTokens !== undefined
      ? { contextWindowTokens: options.contextWindowTokens }
      : {}),
    ...(options.nativeToolSearch ? { native: true } : {}),
  })
  const search = runtime.register(
    toolSearchTool({ catalog: deferred, pendingServers: () => manager.pendingServers() }),
  )
  const shown = new Map<string, string>()
  const lines = (changedOnly: boolean) => {
    const out: string[] = []
    for (const r of manager.report()) {
      const state = describeServer(r)
      if (changedOnly && shown.get(r.name) === state) continue
      shown.set(r.name, state)
      out.push(serverLine(r, state))
    }
    return out
  }
  return {
    manager,
    deferred,
    sync() {
      manager.sync()
      return lines(true)
    },
    banner() {
      manager.sync()
      return lines(false)
    },
    pending() {
      const waiting = new Set(manager.pendingServers())
      let starting = 0
      let reconnecting = 0
      for (const r of manager.report()) {
        if (!waiting.has(r.name)) continue
        if (r.status.state === 'reconnecting') reconnecting++
        else starting++
      }
      return { starting, reconnecting }
    },
    async dispose() {
      search.dispose()
      await manager.dispose()
    },
  }
}

/**
 * One banner line per server, printed as is by the run view: terminal-safe here, since a server's
 * name is a key of a repository's .mcp.json and its state quotes what the server said.
 */
export function serverLine(r: ServerReport, state: string): string {
  const tools = r.status.state === 'connected' ? ` (${r.tools} tool${r.tools === 1 ? '' : 's'})` : ''
  return terminalSafe(`mcp       ${r.name}: ${state}${tools}`)
}

/** One line per server for banners and `toolgate mcp list`. */
export function describeServer(r: ServerReport): string {
  const s = r.status
  const state =
    s.state === 'failed'
      ? `failed: ${s.error}${s.stderr ? ` — stderr: ${lastLine(s.stderr)}` : ''}`
      : s.state === 'invalid'
        ? `invalid configuration: ${s.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`
        : s.state === 'untrusted'
          ? `not approved (project server): run \`toolgate mcp approve ${r.name}\` to allow it`
          : s.state === 'reconnecting'
            ? `reconnecting (attempt ${s.attempt}): ${s.error}`
            : s.state
  return state
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n')
  return (lines[lines.length - 1] ?? '').slice(0, 200)
}
