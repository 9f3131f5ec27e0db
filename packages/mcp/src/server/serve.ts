// toolgate as an MCP server (issue 16 §4): the runtime's tools, with its policy, sandbox and
// session log, served to any MCP client. Every `tools/call` is an ordinary runtime call (same
// pipeline, same log); an `ask` becomes an elicitation request to the client (elicit-approval.ts);
// the client's cancellation (notifications/cancelled) aborts the call's signal; calls from
// concurrent requests keep the runtime's parallel/exclusive rule (call-gate.ts). A tool whose
// output schema is an object schema declares it as `outputSchema`, and its value is the result's
// `structuredContent`; the session events of a call are its progress notifications when the client
// asked for progress.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type {
  ApprovalService,
  ContentBlock,
  Disposable,
  JsonObject,
  JsonValue,
  Runtime,
  SessionEvent,
  ToolResult,
} from '@toolgate/core'
import { CallGate } from './call-gate.js'
import { elicitApproval, type PendingCall } from './elicit-approval.js'

export interface ServeOptions {
  readonly runtime: Runtime
  /** The runtime's approval service: asks are answered by the client (elicitation) from now on. */
  readonly approval: ApprovalService
  readonly transport: Transport
  readonly serverInfo?: { readonly name: string; readonly version: string }
  /** Approval answers wait at most this long (default 5 minutes). */
  readonly approvalTimeoutMs?: number
  /** Session log; default the runtime's. */
  readonly log?: (type: string, payload: Record<string, JsonValue>) => void
}

export interface ServedRuntime {
  readonly server: Server
  /** Resolves when the client disconnects (or `close()` was called). */
  readonly closed: Promise<void>
  /**
   * Feed the session's events here (a tee of the session sink): an event of a call whose client
   * request carried a progress token goes to the client as `notifications/progress`, with the
   * event type as its message. Other events are ignored.
   */
  observe(event: SessionEvent): void
  /** Abort every call in flight and close the connection. */
  close(): Promise<void>
}

/** Progress notifications per call at most (a chatty tool must not flood a slow client). */
export const MAX_PROGRESS_PER_CALL = 1_000

/** A call's progress channel while it runs. */
interface ProgressChannel {
  sent: number
  send(progress: number, message: string): void
}

export async function serveRuntime(o: ServeOptions): Promise<ServedRuntime> {
  const { runtime } = o
  const log = (type: string, payload: Record<string, JsonValue>) => {
    try {
      if (o.log) o.log(type, payload)
      else runtime.session.append(type, payload)
    } catch {
      // The log is telemetry: it never changes a call.
    }
  }
  const server = new Server(o.serverInfo ?? { name: 'toolgate', version: '0.1.0' }, {
    capabilities: { tools: { listChanged: false } },
  })
  const pending = new Map<string, PendingCall>()
  const inFlight = new Set<AbortController>()
  const gate = new CallGate()
  const progress = new Map<string, ProgressChannel>()
  let calls = 0

  const answerer: Disposable = o.approval.answer(
    elicitApproval({
      server,
      call: (callId) => pending.get(callId),
      ...(o.approvalTimeoutMs !== undefined ? { timeoutMs: o.approvalTimeoutMs } : {}),
      log,
    }),
  )

  server.oninitialized = () => {
    const client = server.getClientVersion()
    log('mcp-serve/client', {
      name: client?.name ?? '',
      version: client?.version ?? '',
      elicitation: server.getClientCapabilities()?.elicitation?.form !== undefined,
    })
  }

  // Output schemas as declared when the tools are listed; a result carries structuredContent only
  // when the client could have read that schema (MCP: a declared outputSchema obliges it).
  let outputSchemas = new Map<string, JsonObject>()
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const outputs = new Map(runtime.toolDescriptors().map((d) => [d.name, d.output]))
    outputSchemas = new Map()
    const tools = runtime.schemas().map((t) => {
      const output = objectOutputSchema(outputs.get(t.name))
      if (output) outputSchemas.set(t.name, output)
      return {
        name: t.name,
        description: t.description,
        inputSchema: t.parameters as { type: 'object' } & JsonObject,
        ...(output ? { outputSchema: output as { type: 'object' } & JsonObject } : {}),
      }
    })
    return { tools }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const callId = `mcp-${++calls}`
    // The call's own controller: the client's cancellation and a closing connection both abort it.
    const controller = new AbortController()
    const onCancel = () => controller.abort(extra.signal.reason ?? new Error('cancelled by the MCP client'))
    if (extra.signal.aborted) onCancel()
    else extra.signal.addEventListener('abort', onCancel, { once: true })
    inFlight.add(controller)
    const args = (request.params.arguments ?? {}) as JsonValue
    pending.set(callId, { name: request.params.name, arguments: args, requestId: extra.requestId })
    const token = request.params._meta?.progressToken
    if (token !== undefined)
      progress.set(callId, {
        sent: 0,
        send: (n, message) =>
          void extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: n, message },
            })
            .catch(() => undefined),
      })
    try {
      const call = { callId, name: request.params.name, arguments: args, signal: controller.signal }
      const kind = safeMode(runtime, call)
      const result = await gate.run(kind, controller.signal, () => runtime.execute(call))
      return toCallToolResult(result, outputSchemas.has(result.name))
    } finally {
      // Before the response is sent: no progress for this token after its result.
      progress.delete(callId)
      pending.delete(callId)
      inFlight.delete(controller)
      extra.signal.removeEventListener('abort', onCancel)
    }
  })

  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  server.onclose = () => {
    for (const c of inFlight) c.abort(new Error('the MCP client disconnected'))
    answerer.dispose()
    resolveClosed()
  }
  await server.connect(o.transport)
  return {
    server,
    closed,
    observe(event) {
      const callId = typeof event.callId === 'string' ? event.callId : undefined
      const channel = callId === undefined ? undefined : progress.get(callId)
      // The result itself is the response, not progress.
      if (!channel || event.type === 'tool/result' || channel.sent >= MAX_PROGRESS_PER_CALL) return
      channel.send(++channel.sent, event.type)
    },
    async close() {
      for (const c of inFlight) c.abort(new Error('the server is shutting down'))
      await server.close()
    },
  }
}

/** An unknown tool or unusable arguments: exclusive (fail closed); the runtime reports the error. */
function safeMode(runtime: Runtime, call: Parameters<Runtime['mode']>[0]): 'parallel' | 'exclusive' {
  try {
    return runtime.mode(call).kind === 'parallel' ? 'parallel' : 'exclusive'
  } catch {
    return 'exclusive'
  }
}

/**
 * MCP output schemas are object schemas (`type: "object"` at the root). A tool's output schema is
 * served when it is one, or a union of object branches (read, bash: `oneOf` of kinds), which is the
 * same set of values with `type: "object"` added at the root. Anything else is not declared.
 */
export function objectOutputSchema(schema: JsonObject | undefined): JsonObject | undefined {
  if (!schema) return undefined
  if (schema.type === 'object') return schema
  if (schema.type !== undefined) return undefined
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key]
    if (
      Array.isArray(branches) &&
      branches.length > 0 &&
      branches.every((b) => typeof b === 'object' && b !== null && !Array.isArray(b) && b.type === 'object')
    )
      return { type: 'object', ...schema }
  }
  return undefined
}

/**
 * A toolgate result as an MCP tool result: the same model-facing content, `isError` kept, and the
 * value as `structuredContent` when the tool declared an output schema (the runtime validated the
 * value against it) and the call succeeded.
 */
export function toCallToolResult(result: ToolResult, structured = false): CallToolResult {
  const value = result.value
  const withValue =
    structured && !result.isError && typeof value === 'object' && value !== null && !Array.isArray(value)
  return {
    content: result.content.map((b: ContentBlock) =>
      b.type === 'text'
        ? { type: 'text' as const, text: b.text }
        : { type: 'image' as const, data: b.data, mimeType: b.mediaType },
    ),
    ...(withValue ? { structuredContent: value as JsonObject } : {}),
    ...(result.isError ? { isError: true } : {}),
  }
}
