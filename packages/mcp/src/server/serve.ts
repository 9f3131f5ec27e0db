// toolgate as an MCP server (issue 16 §4): the runtime's tools, with its policy, sandbox and
// session log, served to any MCP client. Every `tools/call` is an ordinary runtime call (same
// pipeline, same log); an `ask` becomes an elicitation request to the client (elicit-approval.ts);
// the client's cancellation (notifications/cancelled) aborts the call's signal; calls from
// concurrent requests keep the runtime's parallel/exclusive rule (call-gate.ts).
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
  /** Abort every call in flight and close the connection. */
  close(): Promise<void>
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

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: runtime.schemas().map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.parameters as { type: 'object' } & JsonObject,
    })),
  }))

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
    try {
      const call = { callId, name: request.params.name, arguments: args, signal: controller.signal }
      const kind = safeMode(runtime, call)
      const result = await gate.run(kind, controller.signal, () => runtime.execute(call))
      return toCallToolResult(result)
    } finally {
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

/** A toolgate result as an MCP tool result: the same model-facing content, `isError` kept. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  return {
    content: result.content.map((b: ContentBlock) =>
      b.type === 'text'
        ? { type: 'text' as const, text: b.text }
        : { type: 'image' as const, data: b.data, mimeType: b.mediaType },
    ),
    ...(result.isError ? { isError: true } : {}),
  }
}
