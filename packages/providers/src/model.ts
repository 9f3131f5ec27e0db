// The interface the agent loop consumes: one request in, a stream of normalized events out.
import type { JsonObject, ToolSchema } from '@toolgate/core'
import type { Message } from './messages.js'
import type { StopReason } from './stop-reasons.js'

export type Provider = 'anthropic' | 'openai-chat' | 'openai-responses'

export interface ModelRequest {
  /** The whole conversation (models are stateless: seed 003 §2.2). System messages may appear first. */
  readonly messages: readonly Message[]
  /** Tool declarations, in a stable order (prompt cache: seed 003 §3.5). */
  readonly tools?: readonly ToolSchema[]
  readonly maxTokens?: number
  readonly toolChoice?: 'auto' | 'none' | 'required' | { readonly name: string }
  readonly temperature?: number
  /**
   * Prompt caching (seed 003 §3.5). Anthropic: `cache_control` breakpoints on the last tool, the
   * system prompt and the last message (the moving end of the conversation). OpenAI wires:
   * `prompt_cache_key` when `key` is given (route requests of one session to the same cache).
   * Absent: no caching fields are sent.
   */
  readonly cache?: { readonly key?: string }
}

export interface Usage {
  /** Input tokens as the provider bills them (Anthropic: the uncached part only). */
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  /**
   * Every input token of the request, cached or not: how full the context window is. Anthropic:
   * input + cache read + cache write; OpenAI wires: prompt / input tokens (they include cached ones).
   */
  readonly promptTokens?: number
}

export type ModelStreamEvent =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  /** Opaque signature of the reasoning so far (Anthropic thinking), needed to send it back. */
  | { readonly type: 'reasoning-signature'; readonly signature: string }
  | { readonly type: 'tool-call-start'; readonly callId: string; readonly name: string }
  /** A complete provider-side block (server tool use or its result), kept for replay. */
  | { readonly type: 'server-block'; readonly provider: 'anthropic'; readonly block: JsonObject }
  | { readonly type: 'tool-call-delta'; readonly callId: string; readonly argumentsDelta: string }
  /**
   * The call's block has ended. `arguments` is the raw JSON text, possibly malformed: the codec never
   * parses it (the runtime reports INVALID_ARGS). `strict`: the tool was sent with a strict schema,
   * so optional fields may arrive as null (use normalizeArgs before validation).
   */
  | {
      readonly type: 'tool-call-complete'
      readonly callId: string
      readonly name: string
      readonly arguments: string
      readonly strict: boolean
    }
  | {
      readonly type: 'finish'
      readonly stopReason: StopReason
      /** The provider's own value; null when it sent none (which is never treated as done). */
      readonly rawStopReason: string | null
      readonly usage?: Usage
    }

export interface ModelClient {
  readonly provider: Provider | 'scripted'
  readonly model: string
  /**
   * Stream one model turn. Ends with exactly one `finish` event, or throws a ProviderError
   * (connection cut, HTTP error after retries, abort, timeout). A call that was still open when the
   * stream broke is never reported complete.
   */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent>
}
