// Token estimates, for when the provider has not said (before the first response, and for what was
// appended since). Tokenizers differ per model and loading one costs start-up time, so the estimate
// is a fixed rule that errs high: one token per 3.5 bytes of UTF-8 for ASCII-like text, one per
// character above U+07FF (CJK text runs near one token per character), plus a small overhead per
// message and block. Used only to decide when to budget, elide and compact; usage reported by the
// provider replaces it as soon as there is one.
import type { ToolSchema } from '@toolgate/core'
import type { ContentBlock, Message } from '@toolgate/providers'

/** Framing per message (role markers) and per content block. */
const MESSAGE_OVERHEAD = 4
const BLOCK_OVERHEAD = 3
/** An image costs a fixed amount on every provider we know of (about 1.5k tokens for a large one). */
const IMAGE_TOKENS = 1600

export function estimateTokens(text: string): number {
  let bytes = 0
  let wide = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes++
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff) {
      wide++ // a surrogate pair: one emoji or rare ideograph, one or two tokens
      i++
    } else wide++
  }
  return Math.ceil(bytes / 3.5) + wide
}

function blockTokens(block: ContentBlock): number {
  return BLOCK_OVERHEAD + (block.type === 'text' ? estimateTokens(block.text) : IMAGE_TOKENS)
}

const cache = new WeakMap<Message, number>()

/** A message's estimated tokens (memoized per message object: messages are immutable). */
export function messageTokens(message: Message): number {
  const known = cache.get(message)
  if (known !== undefined) return known
  let n = MESSAGE_OVERHEAD
  switch (message.role) {
    case 'system':
      n += estimateTokens(message.content)
      break
    case 'user':
    case 'tool':
      for (const b of message.content) n += blockTokens(b)
      if (message.role === 'tool') n += BLOCK_OVERHEAD + estimateTokens(message.callId)
      break
    case 'assistant':
      for (const p of message.parts) {
        n += BLOCK_OVERHEAD
        n +=
          p.type === 'tool-call'
            ? estimateTokens(p.name) + estimateTokens(p.arguments)
            : p.type === 'server-block'
              ? estimateTokens(JSON.stringify(p.block))
              : estimateTokens(p.text)
      }
      break
    default: {
      const never: never = message
      throw new Error(`unknown message ${JSON.stringify(never)}`)
    }
  }
  cache.set(message, n)
  return n
}

export function messagesTokens(messages: readonly Message[]): number {
  let n = 0
  for (const m of messages) n += messageTokens(m)
  return n
}

const toolCache = new WeakMap<readonly ToolSchema[], number>()

/** The tool declarations' estimated tokens (memoized per array). */
export function toolsTokens(tools: readonly ToolSchema[]): number {
  const known = toolCache.get(tools)
  if (known !== undefined) return known
  const n = estimateTokens(JSON.stringify(tools))
  toolCache.set(tools, n)
  return n
}
