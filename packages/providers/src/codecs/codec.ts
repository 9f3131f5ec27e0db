// What every wire format provides. Codecs are pure: no I/O, no timers (the transport does that).
import type { JsonObject, ToolSchema } from '@toolgate/core'
import type { AssistantMessage } from '../messages.js'
import type { ModelRequest, ModelStreamEvent, Provider, Usage } from '../model.js'
import { SchemaDialectError } from '../schema/dialect-error.js'
import { DIALECTS, type DialectProfile, type SchemaDialect } from '../schema/dialects.js'
import { compileProviderSchema, type SchemaUsage, toProviderSchema } from '../schema/to-provider-schema.js'
import type { StopReason } from '../stop-reasons.js'
import { ProviderStreamError } from '../transport/errors.js'
import type { SseMessage } from '../transport/sse.js'

export interface EncodeOptions {
  readonly model: string
  readonly maxTokens: number
  /** Send tools with the family's strict dialect, falling back per tool. Default false. */
  readonly strictTools?: boolean
  readonly stream: boolean
  /**
   * Anthropic only: use the API's tool search tool for tools marked `deferLoading` (sent with
   * `defer_loading: true`). Without it `deferLoading` is ignored by the codec.
   */
  readonly nativeToolSearch?: 'bm25' | 'regex'
}

/** A tool that could not be sent strict: which keyword, where (for the session log). */
export interface SchemaFallback {
  readonly tool: string
  readonly keyword: string
  readonly path: string
  readonly message: string
}

/** A tool left out of a request because no dialect of the wire could express its schema. */
export interface SchemaOmission {
  readonly tool: string
  readonly keyword: string
  readonly path: string
  readonly message: string
}

export interface EncodedRequest {
  readonly body: JsonObject
  /** Tools sent with a strict schema (their optional fields may come back as null). */
  readonly strictTools: ReadonlySet<string>
  readonly schemaFallbacks: readonly SchemaFallback[]
  /** Tools left out (issue 16 §3: one bad schema never costs the whole request). */
  readonly schemaOmissions: readonly SchemaOmission[]
  /** Headers this request needs (a beta feature it uses). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface DecodedResponse {
  readonly message: AssistantMessage
  readonly stopReason: StopReason
  readonly rawStopReason: string | null
  readonly usage?: Usage
}

export interface StreamDecoder {
  /** Feed one SSE message; returns the events it completes. Throws ProviderStreamError on an error event. */
  push(message: SseMessage): ModelStreamEvent[]
  /** The body ended: returns the final events, or throws if the reply is incomplete. */
  end(): ModelStreamEvent[]
  /** A terminal event was seen; the rest of the body can be ignored. */
  readonly finished: boolean
}

export interface WireCodec {
  readonly provider: Provider
  readonly defaultBaseUrl: string
  /** Appended to the base URL. */
  readonly path: string
  headers(apiKey: string | undefined): Record<string, string>
  encodeRequest(request: ModelRequest, options: EncodeOptions): EncodedRequest
  decodeResponse(json: unknown): DecodedResponse
  /** `strictTools`: names of the tools sent strict, echoed on tool-call-complete events. */
  createStreamDecoder(strictTools?: ReadonlySet<string>): StreamDecoder
}

export interface CompiledTool {
  readonly tool: ToolSchema
  readonly parameters: JsonObject
  readonly strict: boolean
}

/**
 * Compile each tool for a family: strict dialect when asked, else (or when the strict dialect cannot
 * express the schema) the lenient one. One tool's failure never affects the others. Budgets the
 * family counts across the whole request (Anthropic: 20 strict tools, 24 optional and 16
 * union-typed parameters in total) are spent in request order, first come first served: a tool
 * that would overspend goes non-strict with a fallback saying so. Earlier tools never depend on
 * later ones, so appending a tool (deferred loading) never changes what was already sent.
 */
export function compileTools(
  tools: readonly ToolSchema[],
  strictDialect: SchemaDialect,
  lenientDialect: SchemaDialect,
  strict: boolean,
): { compiled: CompiledTool[]; fallbacks: SchemaFallback[]; omissions: SchemaOmission[] } {
  const compiled: CompiledTool[] = []
  const fallbacks: SchemaFallback[] = []
  const omissions: SchemaOmission[] = []
  const limits = (DIALECTS[strictDialect] as DialectProfile).requestLimits
  const spent = { strictTools: 0, optional: 0, unions: 0 }
  for (const tool of tools) {
    if (strict) {
      try {
        const { schema, usage } = compileProviderSchema(tool.parameters, strictDialect)
        const over = limits ? overspend(limits, spent, usage) : undefined
        if (over === undefined) {
          spent.strictTools++
          spent.optional += usage.optional
          spent.unions += usage.unions
          compiled.push({ tool, parameters: schema, strict: true })
          continue
        }
        fallbacks.push({ tool: tool.name, keyword: over.keyword, path: '', message: over.message })
      } catch (error) {
        if (!(error instanceof SchemaDialectError)) throw error
        fallbacks.push({ tool: tool.name, keyword: error.keyword, path: error.path, message: error.message })
      }
    }
    try {
      compiled.push({ tool, parameters: toProviderSchema(tool.parameters, lenientDialect), strict: false })
    } catch (error) {
      // Not even the lenient dialect can send it: this one tool is left out, the request goes.
      const e = error instanceof SchemaDialectError ? error : undefined
      omissions.push({
        tool: tool.name,
        keyword: e?.keyword ?? 'schema',
        path: e?.path ?? '',
        message: error instanceof Error ? error.message : String(error),
      })
    }
  }
  return { compiled, fallbacks, omissions }
}

/** Which request-wide budget this tool would overspend, if any. */
function overspend(
  limits: NonNullable<DialectProfile['requestLimits']>,
  spent: { strictTools: number; optional: number; unions: number },
  usage: SchemaUsage,
): { keyword: string; message: string } | undefined {
  const sentNonStrict = 'so this tool is sent non-strict'
  if (spent.strictTools + 1 > limits.strictTools)
    return {
      keyword: 'strict',
      message: `the request already has ${limits.strictTools} strict tools, the most the provider accepts; ${sentNonStrict}`,
    }
  if (spent.optional + usage.optional > limits.optional)
    return {
      keyword: 'required',
      message: `its ${usage.optional} optional parameters would bring the request's strict tools to ${spent.optional + usage.optional}, over the limit of ${limits.optional}; ${sentNonStrict}`,
    }
  if (spent.unions + usage.unions > limits.unions)
    return {
      keyword: 'anyOf',
      message: `its ${usage.unions} union-typed parameters would bring the request's strict tools to ${spent.unions + usage.unions}, over the limit of ${limits.unions}; ${sentNonStrict}`,
    }
  return undefined
}

/** The encoded request every codec returns: the wire body plus which tools went strict. */
export function encodedRequest(
  body: EncodedRequest['body'],
  compiled: readonly CompiledTool[],
  fallbacks: readonly SchemaFallback[],
  omissions: readonly SchemaOmission[] = [],
): EncodedRequest {
  return {
    body,
    strictTools: new Set(compiled.filter((c) => c.strict).map((c) => c.tool.name)),
    schemaFallbacks: fallbacks,
    schemaOmissions: omissions,
  }
}

/** Text of content blocks for wires whose tool results carry text only. */
export function blocksToText(
  blocks: readonly { type: string; text?: string; mediaType?: string; data?: string }[],
): string {
  return blocks
    .map((b) =>
      b.type === 'text'
        ? (b.text ?? '')
        : `[image ${b.mediaType ?? ''} omitted: this wire carries text only in tool results]`,
    )
    .join('\n')
}

export function parseJsonData(data: string, provider: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    throw new ProviderStreamError(`${provider} sent a stream event that is not JSON: ${data.slice(0, 120)}`)
  }
}

export function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

/** A stream that closed before its final event is an incomplete reply: say so, and what to do. */
export function incompleteStream(provider: Provider, finalEvent: string): ProviderStreamError {
  return new ProviderStreamError(
    `the ${provider} stream ended before ${finalEvent}; the reply is incomplete, send the request again.`,
  )
}
