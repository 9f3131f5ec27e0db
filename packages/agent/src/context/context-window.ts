// The context window of a model, for decisions that scale with it (deferred loading's threshold,
// seed 003 §10.2: defer MCP tools once their declarations would take 10% of the window).
// Deliberately minimal: a few families whose vendors publish one window for every model id with
// that prefix. Anything else is unknown and the caller decides (the CLI takes --context-window,
// else assumes a small window, so tools are deferred sooner rather than crowding a small model).

const KNOWN: readonly (readonly [prefix: string, tokens: number])[] = [
  // Anthropic: every current Claude model has a 200K standard window (1M is a separate beta).
  ['claude-', 200_000],
  // OpenAI model pages.
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-5', 400_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
]

/** Assumed when the model is not in the table and nobody said (a typical small local model). */
export const UNKNOWN_CONTEXT_WINDOW = 32_768

/** The context window of `model` in tokens, when it is one of the known families. */
export function knownContextWindow(model: string): number | undefined {
  const id = model.toLowerCase().replace(/^.*\//, '')
  return KNOWN.find(([prefix]) => id.startsWith(prefix))?.[1]
}
