// What a request costs, when the model's list price is known (USD per million tokens; the vendors'
// published prices, longest prefix wins). Unknown models show no cost rather than a wrong one.
import type { Usage } from '@toolgate/providers'

interface Price {
  readonly input: number
  readonly output: number
  /** Reading cached input. */
  readonly cacheRead: number
  /** Writing the cache (Anthropic bills it above the input price). */
  readonly cacheWrite?: number
}

const PRICES: readonly (readonly [prefix: string, price: Price])[] = [
  ['claude-opus-4', { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
  ['claude-sonnet-4', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
  ['claude-3-7-sonnet', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
  ['claude-3-5-haiku', { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }],
  ['claude-haiku-4', { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
  ['gpt-4.1-nano', { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  ['gpt-4.1-mini', { input: 0.4, output: 1.6, cacheRead: 0.1 }],
  ['gpt-4.1', { input: 2, output: 8, cacheRead: 0.5 }],
  ['gpt-4o-mini', { input: 0.15, output: 0.6, cacheRead: 0.075 }],
  ['gpt-4o', { input: 2.5, output: 10, cacheRead: 1.25 }],
  ['gpt-5-mini', { input: 0.25, output: 2, cacheRead: 0.025 }],
  ['gpt-5-nano', { input: 0.05, output: 0.4, cacheRead: 0.005 }],
  ['gpt-5', { input: 1.25, output: 10, cacheRead: 0.125 }],
]

function priceOf(model: string): Price | undefined {
  const name = model.toLowerCase().replace(/^.*\//, '')
  let best: readonly [string, Price] | undefined
  for (const entry of PRICES)
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry
  return best?.[1]
}

/** USD for one request, or undefined when the model's price is not known. */
export function requestCost(model: string, usage: Usage): number | undefined {
  const price = priceOf(model)
  if (price === undefined) return undefined
  const prompt = usage.promptTokens ?? usage.inputTokens ?? 0
  const read = usage.cacheReadTokens ?? 0
  const write = usage.cacheWriteTokens ?? 0
  const uncached = Math.max(0, prompt - read - write)
  return (
    (uncached * price.input +
      read * price.cacheRead +
      write * (price.cacheWrite ?? price.input) +
      (usage.outputTokens ?? 0) * price.output) /
    1_000_000
  )
}

export function formatCost(usd: number): string {
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`
}
