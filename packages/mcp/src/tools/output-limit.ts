// Seed 003 §12.3 (3): MCP output is limited by tokens, not characters — English, CJK, base64 and
// JSON have very different tokens per character, and an image costs ~1,600 tokens whatever its
// size in the text. Over the budget the model gets a prefix of the content and a placeholder that
// says what was dropped and where the full result is; the full result is written to a file the
// read tool can open. The cut is never silent.
import type { ContentBlock } from '@toolgate/core'
import type { SpillSink } from './spill-sink.js'

export const DEFAULT_MAX_OUTPUT_TOKENS = 25_000
/** Tokens one image is counted as (seed 003 §12.3). */
export const IMAGE_TOKENS = 1_600

/**
 * An upper-leaning estimate: ~4 characters per token for ASCII, 1 token per character otherwise
 * (CJK and symbols; a surrogate pair counts once per half, which only over-counts).
 */
export function estimateTokens(text: string): number {
  let ascii = 0
  let other = 0
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++
    else other++
  }
  return Math.ceil(ascii / 4) + other
}

export function contentTokens(blocks: readonly ContentBlock[]): number {
  let total = 0
  for (const b of blocks) total += b.type === 'text' ? estimateTokens(b.text) : IMAGE_TOKENS
  return total
}

export interface LimitOptions {
  readonly maxTokens: number
  /** Where the full result goes. */
  readonly spill: SpillSink
  /** File stem (the tool's name). */
  readonly stem: string
}

/** Content within the budget, unchanged when it fits. Synchronous (it runs in finalizeContent). */
export function limitContent(
  blocks: readonly ContentBlock[],
  options: LimitOptions,
): readonly ContentBlock[] {
  const total = contentTokens(blocks)
  if (total <= options.maxTokens) return blocks
  // Keep room for the placeholder itself.
  let budget = options.maxTokens - 200
  const kept: ContentBlock[] = []
  let droppedChars = 0
  let droppedImages = 0
  for (const b of blocks) {
    if (b.type === 'image') {
      if (budget >= IMAGE_TOKENS) {
        kept.push(b)
        budget -= IMAGE_TOKENS
      } else droppedImages++
      continue
    }
    const cost = estimateTokens(b.text)
    if (cost <= budget) {
      kept.push(b)
      budget -= cost
      continue
    }
    const cut = prefixWithin(b.text, Math.max(0, budget))
    if (cut.length > 0) kept.push({ type: 'text', text: cut })
    droppedChars += b.text.length - cut.length
    budget = 0
  }
  const file = spill(blocks, options)
  const dropped = [
    droppedChars > 0 ? `${droppedChars.toLocaleString('en-US')} characters of text` : '',
    droppedImages > 0 ? `${droppedImages} image${droppedImages === 1 ? '' : 's'}` : '',
  ]
    .filter((s) => s !== '')
    .join(' and ')
  const where = file.ok
    ? `The full result is saved to ${file.path}; read it with the read tool (offset/limit) if you need the rest.`
    : `The full result could not be saved (${file.reason}); call the tool again with narrower arguments if you need the rest.`
  kept.push({
    type: 'text',
    text: `[Output truncated: this result is about ${total.toLocaleString('en-US')} tokens, over the ${options.maxTokens.toLocaleString('en-US')}-token limit for MCP tool output. Left out: ${dropped}. ${where}]`,
  })
  return kept
}

/** The longest prefix whose estimate fits `tokens`, never splitting a surrogate pair. */
function prefixWithin(text: string, tokens: number): string {
  let ascii = 0
  let other = 0
  let i = 0
  for (; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++
    else other++
    if (Math.ceil(ascii / 4) + other > tokens) break
  }
  let end = i
  if (end > 0 && end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--
  return text.slice(0, end)
}

function spill(
  blocks: readonly ContentBlock[],
  options: LimitOptions,
): { ok: true; path: string } | { ok: false; reason: string } {
  try {
    const parts: string[] = []
    let images = 0
    for (const b of blocks) {
      if (b.type === 'text') parts.push(b.text)
      else {
        images++
        const extension = b.mediaType.split('/')[1] ?? 'bin'
        const imagePath = options.spill.save(
          `${options.stem}-image-${images}`,
          extension,
          Buffer.from(b.data, 'base64'),
        )
        parts.push(`[image ${images}: ${b.mediaType}, saved to ${imagePath}]`)
      }
    }
    return { ok: true, path: options.spill.save(options.stem, 'txt', parts.join('\n')) }
  } catch (error) {
    return { ok: false, reason: (error as Error).message }
  }
}
