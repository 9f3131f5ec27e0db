// One MCP server: connect (stdio or Streamable HTTP) through the official SDK client, list its
// tools leniently (one malformed tool must not cost the others), follow `tools/list_changed`,
// call tools with cancellation, progress and a timeout, reconnect HTTP with capped exponential
// backoff, and report a dead server with its stderr tail. Nothing here throws into the session:
// failures become the connection's state.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { ToolError } from '@toolgate/core'
import { z } from 'zod'
import type { ServerConfig } from './config/types.js'
import { mcpMessages } from './tools/messages.js'
import { childEnvironment } from './transport/env.js'
import { OrderedTransport } from './transport/ordered.js'
import { StderrTail, sanitize } from './transport/stderr-tail.js'
import { GroupStdioTransport } from './transport/stdio.js'

export const DEFAULT_TIMEOUT_MS = 120_000
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000
/** Seed 003 §12.3 (5): at most 5 reconnect attempts, exponential from 1 s, capped. */
export const RECONNECT = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 30_000 } as const
const MAX_TOOLS = 1_000
const MAX_PAGES = 50
const STDERR_TAIL_BYTES = 4_096
const STDERR_LOG_BYTES = 64 * 1024

export type ServerState =
  | { readonly state: 'pending' }
  | { readonly state: 'connected' }
  | { readonly state: 'reconnecting'; readonly attempt: number; readonly error: string }
  | { readonly state: 'failed'; readonly error: string; readonly stderr?: string }
  | { readonly state: 'closed' }

/** A tool as the server listed it, checked only for what the bridge needs. */
export interface ForeignTool {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: unknown
  readonly outputSchema?: unknown
  readonly annotations: { readonly readOnlyHint?: boolean; readonly destructiveHint?: boolean }
}

export interface RawCallResult {
  readonly content: readonly unknown[]
  readonly structuredContent?: unknown
  readonly isError: boolean
}

export interface ConnectionOptions {
  readonly name: string
  readonly config: ServerConfig
  /** The host environment (allowlisted for stdio; `bearerTokenEnv` is read from it). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Session log. */
  readonly log: (type: string, payload: Record<string, string | number | boolean | null>) => void
  /** The tool list changed (list_changed, reconnect): the manager re-registers between turns. */
  readonly onToolsChanged: () => void
  readonly onStateChanged: () => void
  readonly reconnect?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number }
  readonly clientInfo?: { name: string; version: string }
}

const ListResult = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).passthrough()
const CallResult = z
  .object({
    content: z.array(z.unknown()).optional(),
    structuredContent: z.unknown().optional(),
    isError: z.unknown().optional(),
  })
  .passthrough()

export class McpConnection {
  state: ServerState = { state: 'pending' }
  tools: readonly ForeignTool[] = []
  /** Problems with individual listed tools (left out, reported). */
  listProblems: readonly string[] = []
  /** Increments whenever `tools` changes. */
  toolsVersion = 0
  readonly stderr: StderrTail
  private client?: Client
  private transport?: OrderedTransport
  private closing = false
  private reconnecting?: Promise<void>
  private refreshing: Promise<void> = Promise.resolve()

  constructor(private readonly o: ConnectionOptions) {
    this.stderr = new StderrTail(STDERR_TAIL_BYTES, STDERR_LOG_BYTES, (line) =>
      this.o.log('mcp/stderr', { server: o.name, line: sanitize(line).slice(0, 2_000) }),
    )
  }

  get name(): string {
    return this.o.name
  }

  get local(): boolean {
    return this.o.config.type === 'stdio'
  }

  /** Connect and list tools. Never rejects; the outcome is `state`. */
  async start(): Promise<void> {
    const attempts = this.o.config.type === 'http' ? this.retry().maxAttempts : 1
    let error = ''
    for (let attempt = 1; attempt <= attempts && !this.closing; attempt++) {
      if (attempt > 1) await delay(this.backoff(attempt - 1))
      try {
        await this.connectOnce()
        this.setState({ state: 'connected' })
        return
      } catch (e) {
        error = describe(e)
      }
    }
    if (this.closing) return
    const stderr = this.stderr.tail()
    this.setState({ state: 'failed', error: `failed to start: ${error}`, ...(stderr ? { stderr } : {}) })
  }

  private retry() {
    return { ...RECONNECT, ...this.o.reconnect }
  }

  private backoff(attempt: number): number {
    const r = this.retry()
    return Math.min(r.baseDelayMs * 2 ** (attempt - 1), r.maxDelayMs)
  }

  private setState(state: ServerState): void {
    this.state = state
    this.o.log('mcp/server', {
      server: this.o.name,
      state: state.state,
      ...('error' in state ? { error: state.error.slice(0, 2_000) } : {}),
      ...('stderr' in state && state.stderr ? { stderr: state.stderr } : {}),
      ...(state.state === 'connected' ? { tools: this.tools.length } : {}),
    })
    this.o.onStateChanged()
  }

  private makeTransport(): OrderedTransport {
    return new OrderedTransport(this.makeInnerTransport())
  }

  private makeInnerTransport(): Transport {
    const config = this.o.config
    if (config.type === 'stdio') {
      return new GroupStdioTransport({
        command: config.command,
        args: config.args,
        env: childEnvironment(this.o.env, config.env),
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        onStderr: (chunk) => this.stderr.push(chunk),
      })
    }
    const headers: Record<string, string> = { ...config.headers }
    if (config.bearerTokenEnv !== undefined)
      headers.Authorization = `Bearer ${this.o.env[config.bearerTokenEnv] ?? ''}`
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers },
      // The SDK's own SSE-stream reconnection stays bounded too.
      reconnectionOptions: {
        maxRetries: 2,
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 30_000,
        reconnectionDelayGrowFactor: 2,
      },
    })
  }

  private async connectOnce(): Promise<void> {
    const startup = this.o.config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS
    const client = new Client(this.o.clientInfo ?? { name: 'toolgate', version: '0.1.0' }, {
      capabilities: {},
    })
    const transport = this.makeTransport()
    const controller = new AbortController()
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${startup} ms (startupTimeoutMs)`)),
      startup,
    )
    try {
      const connected = client.connect(transport, { timeout: startup, signal: controller.signal })
      await raceAbort(connected, controller.signal)
      const tools = await raceAbort(this.fetchTools(client, controller.signal, startup), controller.signal)
      clearTimeout(timer)
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        this.refreshing = this.refreshing.then(() => this.refresh(client))
      })
      client.onclose = () => this.onClosed(client)
      client.onerror = (error) =>
        this.o.log('mcp/transport-error', { server: this.o.name, error: describe(error).slice(0, 1_000) })
      this.client = client
      this.transport = transport
      this.applyTools(tools)
    } catch (error) {
      clearTimeout(timer)
      client.onclose = undefined
      await transport.close().catch(() => {})
      throw error
    }
  }

  private async fetchTools(client: Client, signal?: AbortSignal, timeout?: number) {
    const tools: ForeignTool[] = []
    const problems: string[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ListResult,
        { ...(signal ? { signal } : {}), timeout: timeout ?? DEFAULT_STARTUP_TIMEOUT_MS },
      )
      for (const [i, raw] of result.tools.entries()) {
        const parsed = parseTool(raw)
        if (typeof parsed === 'string') problems.push(`tool #${page * 1000 + i + 1}: ${parsed}`)
        else if (tools.length < MAX_TOOLS) tools.push(parsed)
        else {
          problems.push(`more than ${MAX_TOOLS} tools: the rest are left out`)
          return { tools, problems }
        }
      }
      cursor = result.nextCursor
      if (cursor === undefined) break
    }
    return { tools, problems }
  }

  private applyTools(listed: { tools: ForeignTool[]; problems: string[] }): boolean {
    const before = JSON.stringify(this.tools)
    this.tools = listed.tools
    this.listProblems = listed.problems
    for (const problem of listed.problems) this.o.log('mcp/tool-problem', { server: this.o.name, problem })
    if (JSON.stringify(listed.tools) === before) return false
    this.toolsVersion++
    return true
  }

  private async refresh(client: Client): Promise<void> {
    if (client !== this.client || this.closing) return
    try {
      const listed = await this.fetchTools(client)
      if (this.applyTools(listed)) {
        this.o.log('mcp/tools-changed', { server: this.o.name, tools: this.tools.length })
        this.o.onToolsChanged()
      }
    } catch (error) {
      this.o.log('mcp/transport-error', {
        server: this.o.name,
        error: `tools/list after list_changed failed: ${describe(error)}`,
      })
    }
  }

  private onClosed(client: Client): void {
    if (client !== this.client || this.closing) return
    this.client = undefined
    const inner = this.transport?.inner
    const exit = inner instanceof GroupStdioTransport ? inner.exit : undefined
    if (this.o.config.type === 'http') {
      void this.reconnect('the connection closed')
      return
    }
    const how = exit
      ? exit.signal
        ? `it was killed by ${exit.signal}`
        : `it exited with code ${exit.code}`
      : 'its connection closed'
    const stderr = this.stderr.tail()
    this.setState({ state: 'failed', error: `the server stopped: ${how}`, ...(stderr ? { stderr } : {}) })
  }

  /** HTTP: reconnect in the background with capped exponential backoff. */
  private reconnect(why: string): Promise<void> {
    if (this.reconnecting) return this.reconnecting
    const run = async () => {
      const { maxAttempts } = this.retry()
      const old = this.transport
      this.client = undefined
      this.transport = undefined
      await old?.close().catch(() => {})
      let error = why
      for (let attempt = 1; attempt <= maxAttempts && !this.closing; attempt++) {
        this.setState({ state: 'reconnecting', attempt, error })
        await delay(this.backoff(attempt))
        if (this.closing) return
        const version = this.toolsVersion
        try {
          await this.connectOnce()
          this.setState({ state: 'connected' })
          if (this.toolsVersion !== version) this.o.onToolsChanged()
          return
        } catch (e) {
          error = describe(e)
        }
      }
      if (!this.closing)
        this.setState({ state: 'failed', error: `reconnecting failed ${maxAttempts} times: ${error}` })
    }
    this.reconnecting = run().finally(() => {
      this.reconnecting = undefined
    })
    return this.reconnecting
  }

  /** Call a tool. Throws ToolError with a model-facing message when the server cannot be used. */
  async call(
    toolgateName: string,
    tool: string,
    args: unknown,
    options: {
      signal: AbortSignal
      timeoutMs: number
      onProgress?: (p: { progress: number; total?: number; message?: string }) => void
    },
  ): Promise<RawCallResult> {
    const client = this.client
    const state = this.state
    if (!client || state.state !== 'connected') {
      switch (state.state) {
        case 'pending':
          throw new ToolError(mcpMessages.stillConnecting(this.o.name, toolgateName))
        case 'reconnecting':
          throw new ToolError(mcpMessages.reconnecting(this.o.name, toolgateName, state.error))
        case 'failed':
          throw new ToolError(
            mcpMessages.notRunning(this.o.name, toolgateName, withTail(state.error, state.stderr)),
          )
        default:
          throw new ToolError(mcpMessages.notRunning(this.o.name, toolgateName, 'the session closed it'))
      }
    }
    try {
      const result = await client.request(
        { method: 'tools/call', params: { name: tool, arguments: (args ?? {}) as Record<string, unknown> } },
        CallResult,
        {
          signal: options.signal,
          // The pipeline's deadline (timeoutMs on the tool) fires first and aborts `signal`,
          // which the SDK turns into notifications/cancelled; this is only a backstop.
          timeout: options.timeoutMs + 5_000,
          ...(options.onProgress
            ? {
                onprogress: (p: { progress: number; total?: number; message?: string }) =>
                  options.onProgress?.({
                    progress: p.progress,
                    ...(p.total === undefined ? {} : { total: p.total }),
                    ...(p.message === undefined ? {} : { message: p.message }),
                  }),
              }
            : {}),
        },
      )
      return {
        content: result.content ?? [],
        ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
        isError: result.isError === true,
      }
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason ?? error
      if (error instanceof McpError && error.code !== -32000) {
        throw new ToolError(
          mcpMessages.protocolError(
            this.o.name,
            tool,
            error.code,
            error.message.replace(/^MCP error -?\d+: /, ''),
          ),
        )
      }
      // The transport failed: a stdio server that died, an HTTP server that went away.
      if (this.o.config.type === 'http' && !this.closing) {
        void this.reconnect(describe(error))
        throw new ToolError(mcpMessages.reconnecting(this.o.name, toolgateName, describe(error)))
      }
      const after = this.state
      const why = after.state === 'failed' ? withTail(after.error, after.stderr) : describe(error)
      throw new ToolError(mcpMessages.notRunning(this.o.name, toolgateName, why))
    }
  }

  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    const client = this.client
    this.client = undefined
    if (client) client.onclose = undefined
    await (this.transport?.close() ?? Promise.resolve()).catch(() => {})
    await this.reconnecting?.catch(() => {})
    this.state = { state: 'closed' }
  }

  /** The server process id (stdio), for tests and diagnostics. */
  get pid(): number | undefined {
    const inner = this.transport?.inner
    return inner instanceof GroupStdioTransport ? inner.pid : undefined
  }
}

function withTail(error: string, stderr: string | undefined): string {
  if (!stderr) return error
  const tail = stderr.length > 600 ? `…${stderr.slice(-600)}` : stderr
  return `${error}; its last stderr output: ${tail}`
}

function parseTool(raw: unknown): ForeignTool | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'not an object'
  const t = raw as Record<string, unknown>
  if (typeof t.name !== 'string' || t.name === '') return 'no name'
  if (t.name.length > 1_000) return `the name is ${t.name.length} characters long`
  const annotations =
    typeof t.annotations === 'object' && t.annotations !== null
      ? (t.annotations as Record<string, unknown>)
      : {}
  return {
    name: t.name,
    ...(typeof t.title === 'string' ? { title: t.title } : {}),
    ...(typeof t.description === 'string' ? { description: t.description } : {}),
    inputSchema: t.inputSchema,
    ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
    annotations: {
      ...(typeof annotations.readOnlyHint === 'boolean' ? { readOnlyHint: annotations.readOnlyHint } : {}),
      ...(typeof annotations.destructiveHint === 'boolean'
        ? { destructiveHint: annotations.destructiveHint }
        : {}),
    },
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause
    return cause instanceof Error && cause.message !== error.message
      ? `${error.message} (${cause.message})`
      : error.message
  }
  return String(error)
}
