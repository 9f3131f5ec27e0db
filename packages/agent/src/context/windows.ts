// Context windows of known models, in tokens (the vendors' published figures; a prefix matches a
// model family and its dated versions). Unknown models get DEFAULT_CONTEXT_WINDOW; callers (the
// CLI's --context-window) override it. Longest prefix wins.
export const DEFAULT_CONTEXT_WINDOW = 128_000

export const CONTEXT_WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  ['claude-opus-4', 200_000],
  ['claude-sonnet-4', 200_000],
  ['claude-haiku-4', 200_000],
  ['claude-3-7-sonnet', 200_000],
  ['claude-3-5', 200_000],
  ['claude-3', 200_000],
  ['claude', 200_000],
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['qwen2.5-coder', 32_768],
  ['qwen3-coder', 262_144],
  ['qwen3', 40_960],
  ['deepseek-chat', 65_536],
  ['deepseek-reasoner', 65_536],
  ['llama3.1', 131_072],
  ['llama3.2', 131_072],
  ['llama3.3', 131_072],
  ['mistral-large', 131_072],
  ['codestral', 262_144],
]

/** The context window of `model` by the table (case-insensitive prefix; a `vendor/` prefix is ignored). */
export function contextWindowOf(model: string): number {
  const name = model.toLowerCase().replace(/^.*\//, '')
  let best: readonly [string, number] | undefined
  for (const entry of CONTEXT_WINDOWS) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry
  }
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW
}
