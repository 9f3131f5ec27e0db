// Anthropic Messages API (POST /v1/messages). Tool results of a turn go into ONE user message
// (seed 003 §2.4); tool calls arrive as tool_use blocks whose input streams as partial JSON.
import { assertNever, type JsonObject, type JsonValue } from '@toolgate/core'
import type { AssistantPart, ContentBlock, Message } from '../messages.js'
import type { ModelRequest, ModelStreamEvent, Usage } from '../model.js'
import { ANTHROPIC_STOP_REASONS, normalizeStopReason } from '../stop-reasons.js'
import { ProviderStreamError } from '../transport/errors.js'
import type { SseMessage } from '../transport/sse.js'
import {
  asRecord,
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

type WireBlock = { [key: string]: JsonValue }
type WireMessage = { role: 'user' | 'assistant'; content: WireBlock[] }

/**
 * Anthropic's tool search tool (docs: "Tool search tool"; types `tool_search_tool_bm25_20251119`
 * and `tool_search_tool_regex_20251119`, beta header `advanced-tool-use-2025-11-20`). Checked
 * against the published documentation only: no request has been sent to the real API from here.
 */
const NATIVE_TOOL_SEARCH = {
  bm25: { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
  regex: { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
} as const satisfies Record<string, { type: string; name: string }>
const TOOL_SEARCH_BETA = 'advanced-tool-use-2025-11-20'

/** Blocks the API's own server produced: its tool use and every `*_tool_result`. */
function isServerBlock(type: unknown): boolean {
  return type === 'server_tool_use' || (typeof type === 'string' && type.endsWith('_tool_result'))
}

/** The block as it must be replayed: a server tool use gets its streamed input as an object. */
function serverBlock(open: { block: JsonObject; input: string }): JsonObject {
  if (open.block.type !== 'server_tool_use') return open.block
  let input: JsonValue = open.block.input ?? {}
  if (open.input !== '') {
    try {
      input = JSON.parse(open.input) as JsonValue
    } catch {
      input = {}
    }
  }
  return { ...open.block, input }
}

function encodeContent(blocks: readonly ContentBlock[]): WireBlock[] {
  return blocks.map(
    (b): WireBlock =>
      b.type === 'text'
        ? { type: 'text', text: b.text }
        : { type: 'image', source: { type: 'base64', media_type: b.mediaType, data: b.data } },
  )
}

/** Arguments are raw text; the wire wants an object. Malformed text (already answered with
 * INVALID_ARGS by the runtime) is sent as {} so the history stays valid. */
function argumentsObject(raw: string): JsonObject {
  try {
    const v: unknown = JSON.parse(raw === '' ? '{}' : raw)
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {}
  } catch {
    return {}
  }
}

function encodeMessages(messages: readonly Message[]): { system: string[]; wire: WireMessage[] } {
  const system: string[] = []
  const wire: WireMessage[] = []
  const push = (role: WireMessage['role'], content: WireBlock[]) => {
    const last = wire[wire.length - 1]
    // Consecutive same-role turns are merged: results first, then any user text (wire order rule).
    if (last && last.role === role) last.content.push(...content)
    else wire.push({ role, content })
  }
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        system.push(m.content)
        break
      case 'user':
        push('user', encodeContent(m.content))
        break
      case 'assistant': {
        const content: WireBlock[] = []
        // A server tool use is replayed only with its result (a reply cut between the two would
        // otherwise make every later request invalid).
        const answered = new Set(
          m.parts.flatMap((p) =>
            p.type === 'server-block' && p.block.type !== 'server_tool_use' ? [p.block.tool_use_id] : [],
          ),
        )
        for (const p of m.parts) {
          if (p.type === 'text') {
            if (p.text !== '') content.push({ type: 'text', text: p.text })
          } else if (p.type === 'reasoning') {
            // Thinking can only be replayed with its signature; unsigned reasoning (other wires) is dropped.
            if (p.signature !== undefined)
              content.push({ type: 'thinking', thinking: p.text, signature: p.signature })
          } else if (p.type === 'server-block') {
            // The server's own tool use and its result go back exactly as they came (tool search:
            // the API expands the tool references again from them).
            if (p.block.type !== 'server_tool_use' || answered.has(p.block.id)) content.push({ ...p.block })
          } else if (p.type === 'tool-call')
            content.push({
              type: 'tool_use',
              id: p.callId,
              name: p.name,
              input: argumentsObject(p.arguments),
            })
          else assertNever(p, 'assistant part')
        }
        push('assistant', content)
        break
      }
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: m.callId,
            content: encodeContent(m.content),
            is_error: m.isError,
          },
        ])
        break
      default:
        assertNever(m, 'message')
    }
  }
  return { system, wire }
}

const EPHEMERAL = { type: 'ephemeral' } as const satisfies JsonObject

/**
 * The moving breakpoint: the last block of the last message, so the next request reads everything
 * up to here from the cache. Anthropic allows 4 breakpoints; tools, system and this use 3.
 */
function markLastBlock(wire: WireMessage[]): void {
  const last = wire[wire.length - 1]
  const block = last?.content[last.content.length - 1]
  if (last === undefined || block === undefined) return
  // Thinking blocks cannot carry cache_control; the breakpoint then goes on no block (a miss, not an error).
  if (block.type === 'thinking') return
  last.content[last.content.length - 1] = { ...block, cache_control: EPHEMERAL }
}

function encodeRequest(request: ModelRequest, options: EncodeOptions): EncodedRequest {
  const { system, wire } = encodeMessages(request.messages)
  const body: { [key: string]: JsonValue } = {
    model: options.model,
    max_tokens: request.maxTokens ?? options.maxTokens,
  }
  const cache = request.cache !== undefined
  if (system.length > 0) {
    const text = system.join('\n\n')
    // A breakpoint needs the block form; without caching the plain string stays (same bytes as before).
    body.system = cache ? [{ type: 'text', text, cache_control: EPHEMERAL }] : text
  }
  if (cache) markLastBlock(wire)
  body.messages = wire
  const { compiled, fallbacks, omissions } = compileTools(
    request.tools ?? [],
    'anthropic-strict',
    'anthropic',
    options.strictTools === true,
  )
  // Native deferred loading (tool search tool): only when asked for, and only when at least one
  // tool is deferred and one is not (the API refuses a request whose every tool is deferred).
  // Otherwise `deferLoading` is ignored here and the tool is sent like any other.
  const search = options.nativeToolSearch
  const deferred = compiled.filter((c) => c.tool.deferLoading === true).length
  const native = search !== undefined && deferred > 0 && deferred < compiled.length
  if (compiled.length > 0) {
    const lastInPrefix = compiled.findLastIndex((c) => !(native && c.tool.deferLoading === true))
    const tools: JsonValue[] = compiled.map(({ tool, parameters, strict }, i) => ({
      name: tool.name,
      description: tool.description,
      input_schema: parameters,
      ...(strict ? { strict: true } : {}),
      ...(native && tool.deferLoading === true ? { defer_loading: true } : {}),
      // The tools come first in the cached prefix: one breakpoint after the last declaration that
      // is sent in full covers them all (a deferred one is not in the prefix; tool search, when
      // native, is appended after and covered by the system prompt's breakpoint).
      ...(cache && i === lastInPrefix ? { cache_control: EPHEMERAL } : {}),
    }))
    // Last, so the declarations before it keep their place (prompt cache).
    if (native) tools.push({ ...NATIVE_TOOL_SEARCH[search] })
    body.tools = tools
  }
  const choice = request.toolChoice
  if (choice !== undefined && compiled.length > 0) {
    body.tool_choice =
      choice === 'auto'
        ? { type: 'auto' }
        : choice === 'none'
          ? { type: 'none' }
          : choice === 'required'
            ? { type: 'any' }
            : { type: 'tool', name: choice.name }
  }
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (options.stream) body.stream = true
  return {
    ...encodedRequest(body, compiled, fallbacks, omissions),
    ...(native ? { headers: { 'anthropic-beta': TOOL_SEARCH_BETA } } : {}),
  }
}

function usageOf(u: unknown): Usage | undefined {
  const r = asRecord(u)
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {}
  if (num(r.input_tokens) !== undefined) usage.inputTokens = num(r.input_tokens)
  if (num(r.output_tokens) !== undefined) usage.outputTokens = num(r.output_tokens)
  if (num(r.cache_read_input_tokens) !== undefined) usage.cacheReadTokens = num(r.cache_read_input_tokens)
  if (num(r.cache_creation_input_tokens) !== undefined)
    usage.cacheWriteTokens = num(r.cache_creation_input_tokens)
  return Object.keys(usage).length > 0 ? usage : undefined
}

/** Anthropic bills cached input apart from `input_tokens`; the window holds all of it. */
function withPromptTokens(usage: Usage): Usage {
  if (
    usage.inputTokens === undefined &&
    usage.cacheReadTokens === undefined &&
    usage.cacheWriteTokens === undefined
  )
    return usage
  return {
    ...usage,
    promptTokens: (usage.inputTokens ?? 0) + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
  }
}

function decodeResponse(json: unknown): DecodedResponse {
  const r = asRecord(json)
  const parts: AssistantPart[] = []
  for (const raw of Array.isArray(r.content) ? r.content : []) {
    const b = asRecord(raw)
    if (b.type === 'text' && typeof b.text === 'string') parts.push({ type: 'text', text: b.text })
    else if (b.type === 'thinking' && typeof b.thinking === 'string')
      parts.push({
        type: 'reasoning',
        text: b.thinking,
        ...(typeof b.signature === 'string' ? { signature: b.signature } : {}),
      })
    else if (b.type === 'tool_use')
      parts.push({
        type: 'tool-call',
        callId: str(b.id) ?? '',
        name: str(b.name) ?? '',
        arguments: JSON.stringify(b.input ?? {}),
      })
    else if (isServerBlock(b.type))
      parts.push({ type: 'server-block', provider: 'anthropic', block: b as JsonObject })
  }
  const raw = str(r.stop_reason) ?? null
  const decoded = usageOf(r.usage)
  const usage = decoded ? withPromptTokens(decoded) : undefined
  return {
    message: { role: 'assistant', parts },
    stopReason: normalizeStopReason(ANTHROPIC_STOP_REASONS, raw),
    rawStopReason: raw,
    ...(usage ? { usage } : {}),
  }
}

type OpenBlock =
  | { kind: 'text' }
  | { kind: 'thinking' }
  | { kind: 'tool'; callId: string; name: string; args: string }
  /** A server tool's use (its input streams as JSON deltas) or result (complete at its start). */
  | { kind: 'server'; block: JsonObject; input: string }
  | { kind: 'other' }

class AnthropicStreamDecoder implements StreamDecoder {
  finished = false
  private readonly blocks = new Map<number, OpenBlock>()
  private rawStop: string | null = null
  private usage: { -readonly [K in keyof Usage]: Usage[K] } = {}
  constructor(private readonly strict: ReadonlySet<string>) {}

  push(message: SseMessage): ModelStreamEvent[] {
    if (this.finished) return []
    const data = asRecord(parseJsonData(message.data, 'anthropic'))
    const type = str(data.type) ?? message.event
    const out: ModelStreamEvent[] = []
    switch (type) {
      case 'message_start':
        Object.assign(this.usage, usageOf(asRecord(data.message).usage))
        break
      case 'content_block_start': {
        const index = num(data.index) ?? -1
        const block = asRecord(data.content_block)
        if (block.type === 'tool_use') {
          const callId = str(block.id) ?? `toolu_${index}`
          const name = str(block.name) ?? ''
          this.blocks.set(index, { kind: 'tool', callId, name, args: '' })
          out.push({ type: 'tool-call-start', callId, name })
        } else if (block.type === 'text') {
          this.blocks.set(index, { kind: 'text' })
          if (typeof block.text === 'string' && block.text !== '')
            out.push({ type: 'text-delta', text: block.text })
        } else if (block.type === 'thinking') this.blocks.set(index, { kind: 'thinking' })
        else if (isServerBlock(block.type))
          this.blocks.set(index, { kind: 'server', block: block as JsonObject, input: '' })
        else this.blocks.set(index, { kind: 'other' })
        break
      }
      case 'content_block_delta': {
        const block = this.blocks.get(num(data.index) ?? -1)
        const delta = asRecord(data.delta)
        if (delta.type === 'text_delta' && typeof delta.text === 'string')
          out.push({ type: 'text-delta', text: delta.text })
        else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string')
          out.push({ type: 'reasoning-delta', text: delta.thinking })
        else if (delta.type === 'signature_delta' && typeof delta.signature === 'string')
          out.push({ type: 'reasoning-signature', signature: delta.signature })
        else if (
          delta.type === 'input_json_delta' &&
          block?.kind === 'server' &&
          typeof delta.partial_json === 'string'
        )
          block.input += delta.partial_json
        else if (
          delta.type === 'input_json_delta' &&
          block?.kind === 'tool' &&
          typeof delta.partial_json === 'string'
        ) {
          block.args += delta.partial_json
          if (delta.partial_json !== '')
            out.push({ type: 'tool-call-delta', callId: block.callId, argumentsDelta: delta.partial_json })
        }
        break
      }
      case 'content_block_stop': {
        const index = num(data.index) ?? -1
        const block = this.blocks.get(index)
        this.blocks.delete(index)
        if (block?.kind === 'server')
          out.push({ type: 'server-block', provider: 'anthropic', block: serverBlock(block) })
        else if (block?.kind === 'tool')
          out.push({
            type: 'tool-call-complete',
            callId: block.callId,
            name: block.name,
            // No input deltas means an empty input object.
            arguments: block.args === '' ? '{}' : block.args,
            strict: this.strict.has(block.name),
          })
        break
      }
      case 'message_delta': {
        const delta = asRecord(data.delta)
        if ('stop_reason' in delta) this.rawStop = str(delta.stop_reason) ?? null
        Object.assign(this.usage, usageOf(data.usage))
        break
      }
      case 'message_stop': {
        this.finished = true
        const usage = Object.keys(this.usage).length > 0 ? { usage: withPromptTokens({ ...this.usage }) } : {}
        out.push({
          type: 'finish',
          stopReason: normalizeStopReason(ANTHROPIC_STOP_REASONS, this.rawStop),
          rawStopReason: this.rawStop,
          ...usage,
        })
        break
      }
      case 'error': {
        const err = asRecord(data.error)
        throw new ProviderStreamError(
          `anthropic stream error ${str(err.type) ?? ''}: ${str(err.message) ?? 'unknown'}. The reply is incomplete; send the request again.`,
        )
      }
      default:
        // ping and future event types carry nothing we need.
        break
    }
    return out
  }

  end(): ModelStreamEvent[] {
    if (!this.finished) throw incompleteStream('anthropic', 'message_stop')
    return []
  }
}

export const anthropicCodec: WireCodec = {
  provider: 'anthropic',
  // The host root, as in Anthropic's own SDK (ANTHROPIC_BASE_URL): a proxy URL that works with other
  // Anthropic clients works here.
  defaultBaseUrl: 'https://api.anthropic.com',
  path: '/v1/messages',
  headers: (apiKey) => ({ 'anthropic-version': '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}) }),
  encodeRequest,
  decodeResponse,
  createStreamDecoder: (strict = new Set()) => new AnthropicStreamDecoder(strict),
}
