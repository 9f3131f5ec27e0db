// An MCP tool as an ordinary toolgate tool: same pipeline, policy and approvals as built-in tools
// (seed 003 §12.3). Host-side behaviour lives here: the call through the connection, progress as
// session events, `isError` as TOOL_ERROR, content mapping, structured output as the value, and
// the token limit applied in finalizeContent — after post-execute, so post-execute listeners see
// the untruncated output (seed 003 §5.2: redaction must see what the model would not).
import type { ContentBlock, JsonObject, JsonValue, ToolDefinition, ToolExecution } from '@toolgate/core'
import { ToolError } from '@toolgate/core'
import type { McpConnection } from '../connection.js'
import { mapContent } from './content.js'
import { mcpMessages } from './messages.js'
import { limitContent } from './output-limit.js'
import type { SpillSink } from './spill-sink.js'

export interface BridgeSpec {
  /** The toolgate name, `mcp__<server>__<tool>`. */
  readonly name: string
  readonly server: string
  /** The tool's name on the server. */
  readonly tool: string
  readonly description: string
  /** Normalized parameters schema (2020-12, root object). */
  readonly parameters: JsonObject
  /** Normalized output schema, when the server declared a usable one. */
  readonly outputSchema?: JsonObject
  readonly connection: McpConnection
  readonly timeoutMs: number
  readonly maxOutputTokens: number
  /** Annotations from a trusted server allow parallel scheduling (never an allow). */
  readonly parallelSafe: boolean
  readonly spill: SpillSink
}

/** The value of a tool without an output schema: its content, as JSON. */
type McpContentValue = { readonly content: readonly ContentBlock[] }

const CONTENT_SCHEMA = {
  type: 'object',
  properties: { content: { type: 'array' } },
  required: ['content'],
} as const

export function bridgeTool(spec: BridgeSpec): ToolDefinition<JsonObject, JsonValue> {
  // Content of structured results, handed from the body to projectContent (keyed by execution).
  const pending = new Map<symbol, readonly ContentBlock[]>()
  const structured = spec.outputSchema !== undefined
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    timeoutMs: spec.timeoutMs,
    output: structured
      ? {
          schema: spec.outputSchema as JsonObject,
          render: (_args, value) => [{ type: 'text', text: JSON.stringify(value, null, 2) }],
        }
      : {
          schema: CONTENT_SCHEMA,
          render: (_args, value) => (value as unknown as McpContentValue).content,
        },
    isConcurrencySafe: () => spec.parallelSafe,
    async execute(args, exec) {
      const result = await spec.connection.call(spec.name, spec.tool, args, {
        signal: exec.signal,
        timeoutMs: spec.timeoutMs,
        onProgress: (p) => {
          try {
            exec.emit('mcp/progress', {
              server: spec.server,
              tool: spec.tool,
              progress: p.progress,
              ...(p.total === undefined ? {} : { total: p.total }),
              ...(p.message === undefined ? {} : { message: p.message.slice(0, 500) }),
            })
          } catch {
            // Progress is telemetry: a late or malformed notification never changes the call.
          }
        },
      })
      const content = mapContent(result.content)
      if (result.isError) {
        const text = content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mediaType}]`)).join('\n')
        throw new ToolError(mcpMessages.toolReportedError(spec.server, spec.tool, text))
      }
      if (!structured) return { content } as unknown as JsonValue
      const value = result.structuredContent
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new ToolError(mcpMessages.missingStructured(spec.server, spec.tool))
      if (content.length > 0) pending.set(exec.token, content)
      return value as JsonValue
    },
    projectContent(exec, result) {
      const content = pending.get(exec.token)
      pending.delete(exec.token)
      return result.isError ? undefined : content
    },
    finalizeContent(exec: ToolExecution, result) {
      pending.delete(exec.token)
      try {
        return limitContent(result.content, {
          maxTokens: spec.maxOutputTokens,
          spill: spec.spill,
          stem: spec.name,
        })
      } catch {
        return undefined
      }
    },
    presentCall: () => ({ card: 'generic', title: `${spec.server} › ${spec.tool}`, kind: 'mcp' }),
  }
}
