// The canonical conversation model every codec translates to and from (seed 003 §2.6: one internal
// representation, one translation per wire family).
import type { ContentBlock, JsonObject, ToolSchema } from '@toolgate/core'

export type { ContentBlock, ToolSchema }

export interface SystemMessage {
  readonly role: 'system'
  readonly content: string
}

export interface UserMessage {
  readonly role: 'user'
  readonly content: readonly ContentBlock[]
}

export type AssistantPart =
  | { readonly type: 'text'; readonly text: string }
  /** Reasoning text; `signature` is the provider's opaque token needed to send it back (Anthropic). */
  | { readonly type: 'reasoning'; readonly text: string; readonly signature?: string }
  /** `arguments` is the raw JSON text as the model produced it; never parsed here (the runtime does). */
  | { readonly type: 'tool-call'; readonly callId: string; readonly name: string; readonly arguments: string }
  /**
   * A block the provider's own server produced and ran (Anthropic `server_tool_use` and its
   * `*_tool_result`, e.g. native tool search). Opaque: replayed verbatim to that provider, dropped
   * on any other wire (like unsigned reasoning). Never a call toolgate runs.
   */
  | { readonly type: 'server-block'; readonly provider: 'anthropic'; readonly block: JsonObject }

export interface AssistantMessage {
  readonly role: 'assistant'
  readonly parts: readonly AssistantPart[]
}

export interface ToolResultMessage {
  readonly role: 'tool'
  readonly callId: string
  readonly name: string
  readonly content: readonly ContentBlock[]
  readonly isError: boolean
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage

export type ToolCallPart = Extract<AssistantPart, { type: 'tool-call' }>

/** The tool calls of an assistant message, in model order. */
export function toolCallsOf(message: AssistantMessage): ToolCallPart[] {
  return message.parts.filter((p): p is ToolCallPart => p.type === 'tool-call')
}

/** Concatenated text parts of an assistant message. */
export function textOf(message: AssistantMessage): string {
  let out = ''
  for (const p of message.parts) if (p.type === 'text') out += p.text
  return out
}
