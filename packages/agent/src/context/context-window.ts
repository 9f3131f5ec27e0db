// The context window of a model, in tokens: for decisions that scale with it (context pressure,
// seed 003 §9; deferred loading's threshold, §10.2: defer MCP tools once their declarations would
// take 10% of the window). The vendors' published figures; a prefix matches a model family and its
// dated versions, the longest prefix wins, a `vendor/` prefix is ignored. Anything else is unknown
// and the caller decides (the CLI takes --context-window, else assumes a small window: tools are
// deferred and the context compacted sooner rather than overflowing a small model).

export const CONTEXT_WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  // Anthropic: every current Claude model has a 200K standard window (1M is a separate beta).
  ['claude', 200_000],
  // OpenAI model pages.
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  // Open-weight models as their model cards give them.
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

/** Assumed when the model is not in the table and nobody said (a typical small local model). */
export const UNKNOWN_CONTEXT_WINDOW = 32_768

/** The context window of `model` in tokens, when it is one of the known families. */
export function knownContextWindow(model: string): number | undefined {
  const id = model.toLowerCase().replace(/^.*\//, '')
  let best: readonly [string, number] | undefined
  for (const entry of CONTEXT_WINDOWS) {
    if (id.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry
  }
  return best?.[1]
}

/** The window to plan for: the table's, else UNKNOWN_CONTEXT_WINDOW. */
export function contextWindowOf(model: string): number {
  return knownContextWindow(model) ?? UNKNOWN_CONTEXT_WINDOW
}
