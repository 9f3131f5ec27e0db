// MCP in a CLI session: the configured servers (`.mcp.json`, `.toolgate/settings.json`, the
// user's settings) start in the background; their tools are registered between turns (the agent
// loop's beforeTurn), deferred behind tool_search once they are many (seed 003 §10), and the
// servers are stopped with the session.
import { DeferredTools } from '@toolgate/agent'
import type { Runtime } from '@toolgate/core'
import { McpManager, type ServerReport } from '@toolgate/mcp'
import { toolSearchTool } from '@toolgate/tools'

export interface McpSession {
  readonly manager: McpManager
  readonly deferred: DeferredTools
  /** Between turns: apply what changed (new servers, list_changed, dead servers). */
  sync(): void
  dispose(): Promise<void>
}

/** Undefined when no server is configured (then nothing is registered, not even tool_search). */
export function startMcp(runtime: Runtime, root: string): McpSession | undefined {
  const manager = McpManager.fromConfig({ root })
  if (manager.report().length === 0 && manager.fileProblems.length === 0) return undefined
  manager.attach(runtime)
  void manager.start()
  const deferred = new DeferredTools()
  const search = runtime.register(
    toolSearchTool({ catalog: deferred, pendingServers: () => manager.pendingServers() }),
  )
  return {
    manager,
    deferred,
    sync: () => void manager.sync(),
    async dispose() {
      search.dispose()
      await manager.dispose()
    },
  }
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
