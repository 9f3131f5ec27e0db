// OpenAI Responses API (POST /responses). History is a list of items: messages, `function_call`
// items and `function_call_output` items (one per result). Tools default to strict on this wire, so
// `strict` is always sent explicitly.
import { assertNever, type JsonValue } from '@toolgate/core'
import type { AssistantPart, ContentBlock, Message } from '../messages.js'
import type { ModelRequest, ModelStreamEvent, Usage } from '../model.js'
import { normalizeStopReason, OPENAI_RESPONSES_STOP_REASONS, type StopReason } from '../stop-reasons.js'
import { ProviderStreamError } from '../transport/errors.js'
import type { SseMessage } from '../transport/sse.js'
import {
  asRecord,
  blocksToText,
  compileTools,
  type DecodedResponse,
  type EncodedRequest,
  type EncodeOptions,
  encodedRequest,
  incompleteStream,
  num,
  parseJsonData,
  type StreamDecoder,
  str,
  type WireCodec,
} from './codec.js'

type Wire = { [key: string]: JsonValue }

function encodeUserContent(blocks: readonly ContentBlock[]): JsonValue {
  return blocks.map(
    (b): Wire =>
      b.type === 'text'
        ? { type: 'input_text', text: b.text }
        : { type: 'input_image', image_url: `data:${b.mediaType};base64,${b.data}` },
  )
}

function encodeInput(messages: readonly Message[]): Wire[] {
  const out: Wire[] = []
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: m.content })
        break
      case 'user':
        out.push({ role: 'user', content: encodeUserContent(m.content) })
        break
      case 'assistant':
        for (const p of m.parts) {
          // Reasoning items can only be replayed by id with `store`; they are not resent.
          if (p.type === 'text' && p.text !== '') out.push({ role: 'assistant', content: p.text })
          else if (p.type === 'tool-call')
            out.push({ type: 'function_call', call_id: p.callId, name: p.name, arguments: p.arguments })
        }
        break
      case 'tool':
        out.push({ type: 'function_call_output', call_id: m.callId, output: blocksToText(m.content) })
        break
      default:
        assertNever(m, 'message')
    }
  }
  return out
}

function encodeRequest(request: ModelRequest, options: EncodeOptions): EncodedRequest {
  const body: Wire = {
    model: options.model,
    input: encodeInput(request.messages),
    max_output_tokens: request.maxTokens ?? options.maxTokens,
    store: false,
  }
  const { compiled, fallbacks, omissions } = compileTools(
    request.tools ?? [],
    'openai-strict',
    'openai',
    options.strictTools === true,
  )
  if (compiled.length > 0) {
    body.tools = compiled.map(({ tool, parameters, strict }) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters,
      strict,
    }))
    const choice = request.toolChoice
    if (choice !== undefined)
      body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name }
  }
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.cache?.key !== undefined) body.prompt_cache_key = request.cache.key
  if (options.stream) body.stream = true
  return encodedRequest(body, compiled, fallbacks, omissions)
}

function usageOf(u: unknown): Usage | undefined {
  const r = asRecord(u)
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {}
  if (num(r.input_tokens) !== undefined) usage.inputTokens = num(r.input_tokens)
  if (num(r.input_tokens) !== undefined) usage.promptTokens = num(r.input_tokens)
  if (num(r.output_tokens) !== undefined) usage.outputTokens = num(r.output_tokens)
  const cached = num(asRecord(r.input_tokens_details).cached_tokens)
  if (cached !== undefined) usage.cacheReadTokens = cached
  return Object.keys(usage).length > 0 ? usage : undefined
}

/** `completed` or the incomplete reason; a failed response is an error, not a stop reason. */
function stopOf(
  response: Record<string, unknown>,
  hasCalls: boolean,
): { stopReason: StopReason; raw: string | null } {
  const status = str(response.status)
  if (status === 'failed') {
    const err = asRecord(response.error)
    throw new ProviderStreamError(
      `openai-responses failed: ${str(err.message) ?? 'unknown error'}. Send the request again.`,
    )
  }
  const raw =
    status === 'incomplete' ? (str(asRecord(response.incomplete_details).reason) ?? null) : (status ?? null)
  const stopReason = normalizeStopReason(OPENAI_RESPONSES_STOP_REASONS, raw)
  return { stopReason: stopReason === 'done' && hasCalls ? 'tool_use' : stopReason, raw }
}

function decodeOutput(output: unknown): AssistantPart[] {
  const parts: AssistantPart[] = []
  for (const raw of Array.isArray(output) ? output : []) {
    const item = asRecord(raw)
    if (item.type === 'message') {
      for (const c of Array.isArray(item.content) ? item.content : []) {
        const block = asRecord(c)
        if (block.type === 'output_text' && typeof block.text === 'string')
          parts.push({ type: 'text', text: block.text })
      }
    } else if (item.type === 'function_call') {
      parts.push({
        type: 'tool-call',
        callId: str(item.call_id) ?? '',
        name: str(item.name) ?? '',
        arguments: str(item.arguments) ?? '',
      })
    } else if (item.type === 'reasoning') {
      const text = (Array.isArray(item.summary) ? item.summary : [])
        .map((s) => str(asRecord(s).text) ?? '')
        .join('')
      if (text !== '') parts.push({ type: 'reasoning', text })
    }
  }
  return parts
}

function decodeResponse(json: unknown): DecodedResponse {
  const r = asRecord(json)
  const parts = decodeOutput(r.output)
  const { stopReason, raw } = stopOf(
    r,
    parts.some((p) => p.type === 'tool-call'),
  )
  const usage = usageOf(r.usage)
  return {
    message: { role: 'assistant', parts },
    stopReason,
    rawStopReason: raw,
    ...(usage ? { usage } : {}),
  }
}

interface OpenCall {
  callId: string
  name: string
  args: string
  done: boolean
}

class OpenAIResponsesStreamDecoder implements StreamDecoder {
  finished = false
  /** Keyed by item id (deltas name the item, not the call). */
  private readonly calls = new Map<string, OpenCall>()
  private completedCalls = 0
  constructor(private readonly strict: ReadonlySet<string>) {}

  push(message: SseMessage): ModelStreamEvent[] {
    if (this.finished) return []
    const data = asRecord(parseJsonData(message.data, 'openai-responses'))
    const type = str(data.type) ?? message.event
    const out: ModelStreamEvent[] = []
    switch (type) {
      case 'response.output_item.added': {
        const item = asRecord(data.item)
        if (item.type === 'function_call') {
          const key = str(item.id) ?? `item_${num(data.output_index) ?? this.calls.size}`
          const call = {
            callId: str(item.call_id) ?? key,
            name: str(item.name) ?? '',
            args: str(item.arguments) ?? '',
            done: false,
          }
          this.calls.set(key, call)
          out.push({ type: 'tool-call-start', callId: call.callId, name: call.name })
        }
        break
      }
      case 'response.function_call_arguments.delta': {
        const call = this.callOf(data)
        const delta = str(data.delta) ?? ''
        if (call && !call.done && delta !== '') {
          call.args += delta
          out.push({ type: 'tool-call-delta', callId: call.callId, argumentsDelta: delta })
        }
        break
      }
      case 'response.function_call_arguments.done': {
        const call = this.callOf(data)
        if (call) this.complete(call, str(data.arguments), out)
        break
      }
      case 'response.output_item.done': {
        const item = asRecord(data.item)
        if (item.type === 'function_call') {
          const call =
            this.calls.get(str(item.id) ?? '') ??
            [...this.calls.values()].find((c) => c.callId === item.call_id)
          if (call) this.complete(call, str(item.arguments), out)
        }
        break
      }
      case 'response.output_text.delta': {
        const delta = str(data.delta)
        if (delta) out.push({ type: 'text-delta', text: delta })
        break
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const delta = str(data.delta)
        if (delta) out.push({ type: 'reasoning-delta', text: delta })
        break
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const response = asRecord(data.response)
        const { stopReason, raw } = stopOf(response, this.completedCalls > 0)
        this.finished = true
        const usage = usageOf(response.usage)
        out.push({ type: 'finish', stopReason, rawStopReason: raw, ...(usage ? { usage } : {}) })
        break
      }
      case 'error':
        throw new ProviderStreamError(
          `openai-responses stream error ${str(data.code) ?? ''}: ${str(data.message) ?? 'unknown'}. The reply is incomplete; send the request again.`,
        )
      default:
        break
    }
    return out
  }

  private callOf(data: Record<string, unknown>): OpenCall | undefined {
    const id = str(data.item_id)
    return id === undefined ? undefined : this.calls.get(id)
  }

  private complete(call: OpenCall, finalArgs: string | undefined, out: ModelStreamEvent[]): void {
    if (call.done) return
    call.done = true
    this.completedCalls++
    // The done event carries the whole text; prefer it over our concatenation.
    const args = finalArgs ?? call.args
    out.push({
      type: 'tool-call-complete',
      callId: call.callId,
      name: call.name,
      arguments: args,
      strict: this.strict.has(call.name),
    })
  }

  end(): ModelStreamEvent[] {
    if (!this.finished) throw incompleteStream('openai-responses', 'response.completed')
    return []
  }
}

export const openaiResponsesCodec: WireCodec = {
  provider: 'openai-responses',
  defaultBaseUrl: 'https://api.openai.com/v1',
  path: '/responses',
  headers: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  encodeRequest,
  decodeResponse,
  createStreamDecoder: (strict = new Set()) => new OpenAIResponsesStreamDecoder(strict),
}
