// OpenAI Chat Completions (POST /chat/completions), also spoken by llama.cpp server, vLLM, Ollama and
// most gateways. One `tool` message per result (seed 003 §2.6); arguments are a JSON string; in a
// stream, parallel calls interleave by `index`.
import { assertNever, type JsonValue } from '@toolgate/core'
import type { AssistantPart, ContentBlock, Message } from '../messages.js'
import type { ModelRequest, ModelStreamEvent, Usage } from '../model.js'
import { normalizeStopReason, OPENAI_CHAT_STOP_REASONS } from '../stop-reasons.js'
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
  // A plain string is what every compatible server accepts; parts only when there is an image.
  if (blocks.every((b) => b.type === 'text'))
    return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
  return blocks.map(
    (b): Wire =>
      b.type === 'text'
        ? { type: 'text', text: b.text }
        : { type: 'image_url', image_url: { url: `data:${b.mediaType};base64,${b.data}` } },
  )
}

function encodeMessages(messages: readonly Message[]): Wire[] {
  const out: Wire[] = []
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: m.content })
        break
      case 'user':
        out.push({ role: 'user', content: encodeUserContent(m.content) })
        break
      case 'assistant': {
        const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
        const calls = m.parts.flatMap((p) =>
          p.type === 'tool-call'
            ? [{ id: p.callId, type: 'function', function: { name: p.name, arguments: p.arguments } }]
            : [],
        )
        const wire: Wire = { role: 'assistant', content: text === '' ? null : text }
        if (calls.length > 0) wire.tool_calls = calls
        out.push(wire)
        break
      }
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.callId, content: blocksToText(m.content) })
        break
      default:
        assertNever(m, 'message')
    }
  }
  return out
}

function encodeRequest(request: ModelRequest, options: EncodeOptions): EncodedRequest {
  const body: Wire = { model: options.model, messages: encodeMessages(request.messages) }
  const maxTokens = request.maxTokens ?? options.maxTokens
  // `max_tokens` is what compatible servers understand; OpenAI still accepts it for chat models.
  body.max_tokens = maxTokens
  const { compiled, fallbacks, omissions } = compileTools(
    request.tools ?? [],
    'openai-strict',
    'openai',
    options.strictTools === true,
  )
  if (compiled.length > 0) {
    body.tools = compiled.map(({ tool, parameters, strict }) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters,
        ...(strict ? { strict: true } : {}),
      },
    }))
    const choice = request.toolChoice
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } }
  }
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.cache?.key !== undefined) body.prompt_cache_key = request.cache.key
  if (options.stream) {
    body.stream = true
    body.stream_options = { include_usage: true }
  }
  return encodedRequest(body, compiled, fallbacks, omissions)
}

function usageOf(u: unknown): Usage | undefined {
  const r = asRecord(u)
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {}
  if (num(r.prompt_tokens) !== undefined) usage.inputTokens = num(r.prompt_tokens)
  if (num(r.prompt_tokens) !== undefined) usage.promptTokens = num(r.prompt_tokens)
  if (num(r.completion_tokens) !== undefined) usage.outputTokens = num(r.completion_tokens)
  const cached = num(asRecord(r.prompt_tokens_details).cached_tokens)
  if (cached !== undefined) usage.cacheReadTokens = cached
  return Object.keys(usage).length > 0 ? usage : undefined
}

function decodeResponse(json: unknown): DecodedResponse {
  const r = asRecord(json)
  const choice = asRecord(Array.isArray(r.choices) ? r.choices[0] : undefined)
  const msg = asRecord(choice.message)
  const parts: AssistantPart[] = []
  const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning)
  if (reasoning) parts.push({ type: 'reasoning', text: reasoning })
  if (typeof msg.content === 'string' && msg.content !== '') parts.push({ type: 'text', text: msg.content })
  for (const [i, raw] of (Array.isArray(msg.tool_calls) ? msg.tool_calls : []).entries()) {
    const c = asRecord(raw)
    const fn = asRecord(c.function)
    parts.push({
      type: 'tool-call',
      callId: str(c.id) ?? `call_${i}`,
      name: str(fn.name) ?? '',
      arguments: str(fn.arguments) ?? '',
    })
  }
  const raw = str(choice.finish_reason) ?? null
  const usage = usageOf(r.usage)
  return {
    message: { role: 'assistant', parts },
    stopReason: normalizeStopReason(OPENAI_CHAT_STOP_REASONS, raw),
    rawStopReason: raw,
    ...(usage ? { usage } : {}),
  }
}

interface OpenCall {
  id?: string
  name?: string
  args: string
  started: boolean
}

/**
 * Chat streams never say "this call ended": a later index does not end an earlier one (servers may
 * interleave deltas of several calls). Every call therefore completes at `finish_reason`, in index
 * order, after the deltas of that same chunk.
 */
class OpenAIChatStreamDecoder implements StreamDecoder {
  finished = false
  private readonly calls = new Map<number, OpenCall>()
  private rawStop: string | null = null
  private sawFinish = false
  private usage: Usage | undefined
  constructor(private readonly strict: ReadonlySet<string>) {}

  push(message: SseMessage): ModelStreamEvent[] {
    if (this.finished) return []
    if (message.data.trim() === '[DONE]') return this.finish()
    const data = asRecord(parseJsonData(message.data, 'openai-chat'))
    if (data.error !== undefined) {
      const err = asRecord(data.error)
      throw new ProviderStreamError(
        `openai-chat stream error: ${str(err.message) ?? str(data.error) ?? 'unknown'}. The reply is incomplete; send the request again.`,
      )
    }
    const out: ModelStreamEvent[] = []
    const usage = usageOf(data.usage)
    if (usage) this.usage = usage
    const choice = asRecord(Array.isArray(data.choices) ? data.choices[0] : undefined)
    const delta = asRecord(choice.delta)
    const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning)
    if (reasoning) out.push({ type: 'reasoning-delta', text: reasoning })
    if (typeof delta.content === 'string' && delta.content !== '')
      out.push({ type: 'text-delta', text: delta.content })
    if (Array.isArray(delta.tool_calls)) {
      for (const [position, raw] of delta.tool_calls.entries()) {
        const c = asRecord(raw)
        const index = num(c.index) ?? position
        let call = this.calls.get(index)
        if (!call) {
          call = { args: '', started: false }
          this.calls.set(index, call)
        }
        const fn = asRecord(c.function)
        if (call.id === undefined && str(c.id)) call.id = str(c.id)
        if (call.name === undefined && str(fn.name)) call.name = str(fn.name)
        const piece = str(fn.arguments) ?? ''
        call.args += piece
        if (!call.started && call.name !== undefined) {
          call.started = true
          call.id ??= `call_${index}`
          out.push({ type: 'tool-call-start', callId: call.id, name: call.name })
          // Deltas that arrived before the name are replayed once the call is known.
          if (call.args !== '')
            out.push({ type: 'tool-call-delta', callId: call.id, argumentsDelta: call.args })
        } else if (call.started && piece !== '')
          out.push({ type: 'tool-call-delta', callId: call.id!, argumentsDelta: piece })
      }
    }
    if (typeof choice.finish_reason === 'string' && !this.sawFinish) {
      this.sawFinish = true
      this.rawStop = choice.finish_reason
      for (const index of [...this.calls.keys()].sort((a, b) => a - b)) {
        const call = this.calls.get(index)!
        if (!call.started) continue // a call without a name cannot be run; it is dropped
        out.push({
          type: 'tool-call-complete',
          callId: call.id!,
          name: call.name!,
          arguments: call.args,
          strict: this.strict.has(call.name!),
        })
      }
    }
    return out
  }

  private finish(): ModelStreamEvent[] {
    this.finished = true
    return [
      {
        type: 'finish',
        stopReason: normalizeStopReason(OPENAI_CHAT_STOP_REASONS, this.rawStop),
        rawStopReason: this.rawStop,
        ...(this.usage ? { usage: this.usage } : {}),
      },
    ]
  }

  end(): ModelStreamEvent[] {
    if (this.finished) return []
    // Some compatible servers close after finish_reason without [DONE]; the reply is whole then.
    if (this.sawFinish) return this.finish()
    throw incompleteStream('openai-chat', 'a finish_reason')
  }
}

export const openaiChatCodec: WireCodec = {
  provider: 'openai-chat',
  defaultBaseUrl: 'https://api.openai.com/v1',
  path: '/chat/completions',
  headers: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  encodeRequest,
  decodeResponse,
  createStreamDecoder: (strict = new Set()) => new OpenAIChatStreamDecoder(strict),
}
