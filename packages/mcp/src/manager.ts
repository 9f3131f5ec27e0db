// The MCP host side (seed 003 §12.2): which servers start, how many at once, which tools they
// contribute and when. Tool registrations change only in `sync()`, which the agent loop calls
// between turns (never mid-request), so a server that connects late, changes its list or dies
// changes `tools[]` at a turn boundary. Names and order are deterministic whatever order servers
// connect in (seed 003 §3.5): names come from the configuration, the registry sorts by name.
import { resolve } from 'node:path'
import {
  type Disposable,
  type JsonObject,
  type JsonValue,
  normalizeSchema,
  type Runtime,
} from '@toolgate/core'
import { type LoadOptions, loadMcpConfig } from './config/load.js'
import { fileTrustStore, type TrustStore } from './config/trust.js'
import type { ConfigProblem, ServerEntry } from './config/types.js'
import { DEFAULT_TIMEOUT_MS, McpConnection, type ServerState } from './connection.js'
import { concurrencyLimit } from './limit.js'
import { bridgeTool } from './tools/bridge.js'
import { capDescription, type NameCollision, serverNameParts, toolNames } from './tools/naming.js'
import { DEFAULT_MAX_OUTPUT_TOKENS } from './tools/output-limit.js'
import { directorySpill, type SpillSink } from './tools/spill-sink.js'

export const START_LIMITS = { local: 3, remote: 20 } as const

export type ServerStatus =
  | ServerState
  | { readonly state: 'untrusted' }
  | { readonly state: 'disabled' }
  | { readonly state: 'invalid'; readonly problems: readonly ConfigProblem[] }

export interface ServerReport {
  readonly name: string
  readonly source: ServerEntry['source']
  readonly file: string
  readonly transport: 'stdio' | 'http' | 'unknown'
  readonly status: ServerStatus
  /** Tools registered now (after the last sync). */
  readonly tools: number
  /** Bytes of the model-facing declarations of those tools ({name, description, parameters}). */
  readonly schemaBytes: number
  /** Tools the server listed that were left out, and why. */
  readonly problems: readonly string[]
  readonly collisions: readonly NameCollision[]
}

export interface McpManagerOptions {
  readonly root: string
  /** Servers to manage (from `loadMcpConfig`, or built in code with source 'code'). */
  readonly servers: readonly ServerEntry[]
  readonly fileProblems?: readonly ConfigProblem[]
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly trust?: TrustStore
  /** Where full outputs of truncated results go (default: files in `spillDir`). */
  readonly spill?: SpillSink
  /** Directory for full outputs when no `spill` is given (default: a fresh `toolgate-mcp-*` temp directory). */
  readonly spillDir?: string
  readonly limits?: { readonly local?: number; readonly remote?: number }
  readonly reconnect?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number }
  /** Session log; default the attached runtime's. */
  readonly log?: (type: string, payload: Record<string, JsonValue>) => void
}

interface Managed {
  readonly entry: ServerEntry
  readonly part: string
  readonly connection?: McpConnection
  readonly status?: ServerStatus
  registered: Disposable[]
  registeredVersion: number
  schemaBytes: number
  problems: string[]
  collisions: NameCollision[]
}

export interface SyncReport {
  /** Servers whose tools were (re-)registered or removed in this sync. */
  readonly changed: readonly string[]
  readonly tools: number
}

export class McpManager {
  private readonly managed: Managed[]
  private runtime?: Runtime
  private started?: Promise<void>
  private dirty = true
  private readonly spill: SpillSink
  private disposed = false
  private readonly listeners = new Set<() => void>()

  /** Read `.mcp.json`, `.toolgate/settings.json` (and the user's settings) and manage them. */
  static fromConfig(options: LoadOptions & Omit<McpManagerOptions, 'servers' | 'root'>): McpManager {
    const loaded = loadMcpConfig(options)
    return new McpManager({ ...options, servers: loaded.servers, fileProblems: loaded.fileProblems })
  }

  constructor(private readonly o: McpManagerOptions) {
    const root = resolve(o.root)
    this.spill = o.spill ?? directorySpill(o.spillDir)
    const trust = o.trust ?? fileTrustStore()
    const env = o.env ?? process.env
    const { parts, collisions } = serverNameParts(o.servers.map((s) => s.name))
    this.managed = o.servers.map((entry) => {
      const base = {
        entry,
        part: parts.get(entry.name)!,
        registered: [],
        registeredVersion: -1,
        schemaBytes: 0,
        problems: [],
        collisions: collisions.filter((c) => c.server === entry.name),
      }
      if (!entry.config) return { ...base, status: { state: 'invalid', problems: entry.problems } }
      if (entry.config.disabled) return { ...base, status: { state: 'disabled' } }
      if (!trust.isTrusted(root, entry)) return { ...base, status: { state: 'untrusted' } }
      const connection = new McpConnection({
        name: entry.name,
        config: entry.config,
        env,
        log: (type, payload) => this.log(type, payload),
        onToolsChanged: () => this.markDirty(),
        onStateChanged: () => this.markDirty(),
        ...(o.reconnect ? { reconnect: o.reconnect } : {}),
      })
      return { ...base, connection }
    })
  }

  private markDirty(): void {
    this.dirty = true
    for (const l of this.listeners) l()
  }

  /** Called whenever a server's state or tool list changes (the CLI banner, tests). */
  onChange(listener: () => void): Disposable {
    this.listeners.add(listener)
    const dispose = () => void this.listeners.delete(listener)
    return { dispose, [Symbol.dispose]: dispose }
  }

  private log(type: string, payload: Record<string, JsonValue>): void {
    try {
      if (this.o.log) this.o.log(type, payload)
      else this.runtime?.session.append(type, payload)
    } catch {
      // The log is telemetry; it never changes what a server does.
    }
  }

  /** Register tools into this runtime at every `sync()`. */
  attach(runtime: Runtime): this {
    this.runtime = runtime
    for (const p of this.o.fileProblems ?? []) this.log('mcp/config-problem', { ...p })
    for (const m of this.managed) {
      for (const p of m.entry.problems) this.log('mcp/config-problem', { ...p })
      for (const c of m.collisions) this.log('mcp/name-collision', { ...c })
      if (m.status) this.log('mcp/server', { server: m.entry.name, state: m.status.state })
    }
    return this
  }

  /**
   * Start every trusted server (local stdio at most 3 at a time, remote at most 20). Resolves
   * when every server is connected or failed; never rejects. Idempotent.
   */
  start(): Promise<void> {
    if (this.started) return this.started
    const local = concurrencyLimit(this.o.limits?.local ?? START_LIMITS.local)
    const remote = concurrencyLimit(this.o.limits?.remote ?? START_LIMITS.remote)
    this.started = Promise.all(
      this.managed.map((m) => {
        const c = m.connection
        if (!c) return Promise.resolve()
        return (c.local ? local : remote)(() => (this.disposed ? Promise.resolve() : c.start()))
      }),
    ).then(() => undefined)
    return this.started
  }

  /**
   * Names of servers whose tools the model cannot see yet (for tool_search, seed 003 §12.4):
   * still connecting, reconnecting, or connected with tools not registered until the next
   * `sync()` — a server that connects in the middle of a turn is still "pending" for that turn.
   */
  pendingServers(): string[] {
    return this.managed
      .filter((m) => {
        const state = m.connection?.state.state
        if (state === 'pending' || state === 'reconnecting') return true
        return state === 'connected' && m.registeredVersion !== m.connection!.toolsVersion
      })
      .map((m) => m.entry.name)
  }

  /**
   * Apply what changed since the last sync: register the tools of servers that connected or
   * changed their list, remove those of servers that died. Call it between turns.
   */
  sync(): SyncReport {
    const changed: string[] = []
    if (this.dirty && this.runtime && !this.disposed) {
      this.dirty = false
      for (const m of this.managed) if (this.syncOne(m)) changed.push(m.entry.name)
    }
    return { changed, tools: this.managed.reduce((n, m) => n + m.registered.length, 0) }
  }

  private syncOne(m: Managed): boolean {
    const c = m.connection
    if (!c) return false
    const live = c.state.state === 'connected' || c.state.state === 'reconnecting'
    if (!live) {
      if (m.registered.length === 0) return false
      this.unregister(m)
      m.registeredVersion = -1
      return true
    }
    if (m.registeredVersion === c.toolsVersion) return false
    this.unregister(m)
    this.register(m, c)
    m.registeredVersion = c.toolsVersion
    return true
  }

  private unregister(m: Managed): void {
    for (const d of m.registered.reverse()) d.dispose()
    m.registered = []
    m.schemaBytes = 0
  }

  private register(m: Managed, c: McpConnection): void {
    const runtime = this.runtime!
    const config = m.entry.config!
    const { names, collisions } = toolNames(
      m.entry.name,
      m.part,
      c.tools.map((t) => t.name),
    )
    m.collisions = [...m.collisions.filter((x) => x.kind === 'server'), ...collisions]
    for (const collision of collisions) this.log('mcp/name-collision', { ...collision })
    m.problems = [...c.listProblems]
    const sorted = [...c.tools].sort((a, b) => (names.get(a.name)! < names.get(b.name)! ? -1 : 1))
    const seen = new Set<string>()
    for (const tool of sorted) {
      // A server listing one name twice: the first listing is used, the repeat reported.
      if (seen.has(tool.name)) {
        m.problems.push(`"${tool.name}" is listed twice; the first listing is used`)
        continue
      }
      seen.add(tool.name)
      const name = names.get(tool.name)!
      const input = normalizeSchema(tool.inputSchema, { root: 'object' })
      if (!input.ok) {
        m.problems.push(
          `"${tool.name}" left out: its inputSchema ${input.path === '' ? '' : `at ${input.path} `}is unusable: ${input.problem}`,
        )
        continue
      }
      let outputSchema: JsonObject | undefined
      if (tool.outputSchema !== undefined) {
        const output = normalizeSchema(tool.outputSchema, { root: 'any' })
        if (output.ok) outputSchema = output.schema
        else
          m.problems.push(
            `"${tool.name}": its outputSchema is unusable (${output.problem}); its content is used instead`,
          )
      }
      // Only trusted servers run at all (user settings, or a project server the user approved);
      // even then annotations are third-party hints: they may make a call parallel, never allow it.
      const parallelSafe =
        config.trustAnnotations === true &&
        tool.annotations.readOnlyHint === true &&
        tool.annotations.destructiveHint !== true
      const definition = bridgeTool({
        name,
        server: m.entry.name,
        tool: tool.name,
        description: capDescription(tool.description, m.entry.name, tool.name),
        parameters: input.schema,
        ...(outputSchema ? { outputSchema } : {}),
        connection: c,
        timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxOutputTokens: config.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
        parallelSafe,
        spill: this.spill,
      })
      try {
        m.registered.push(runtime.register(definition))
      } catch (error) {
        m.problems.push(`"${tool.name}" left out: ${(error as Error).message}`)
        continue
      }
      const schema = runtime.schemas().find((s) => s.name === name)
      m.schemaBytes += JSON.stringify({
        name,
        description: schema?.description,
        parameters: schema?.parameters,
      }).length
    }
    for (const problem of m.problems) this.log('mcp/tool-problem', { server: m.entry.name, problem })
    this.log('mcp/tools-registered', {
      server: m.entry.name,
      tools: m.registered.length,
      schemaBytes: m.schemaBytes,
    })
  }

  /** Every configured server with its state, tool count and schema bytes, sorted by name. */
  report(): ServerReport[] {
    return this.managed.map((m) => ({
      name: m.entry.name,
      source: m.entry.source,
      file: m.entry.file,
      transport: m.entry.config?.type ?? 'unknown',
      status: m.status ?? m.connection!.state,
      tools: m.registered.length,
      schemaBytes: m.schemaBytes,
      problems: [...m.problems],
      collisions: m.collisions,
    }))
  }

  get fileProblems(): readonly ConfigProblem[] {
    return this.o.fileProblems ?? []
  }

  /** The connection of a server (tests, diagnostics). */
  connection(name: string): McpConnection | undefined {
    return this.managed.find((m) => m.entry.name === name)?.connection
  }

  /** Stop every server (and its process group) and remove its tools. */
  async dispose(): Promise<void> {
    this.disposed = true
    for (const m of this.managed) this.unregister(m)
    await Promise.all(this.managed.map((m) => m.connection?.close()))
  }
}
