// The model-visible text of context management (README "Model experience" quotes these).

/** The request that asks the model to summarize the turns a compaction replaces. */
export const COMPACTION_PROMPT = [
  'Summarize the conversation so far for yourself: the summary replaces the earlier turns, which you will not see again.',
  'Keep what you need to continue the work: the user’s requests and constraints (quote them), decisions made and why,',
  'files read or changed (with paths) and what you learned from them, commands run and their outcomes, errors and how',
  'they were resolved, and what is left to do next. Be specific and complete, but concise. Plain text, no preamble.',
  'Do not call any tool.',
].join(' ')

/** The user message that stands for the summarized turns. */
export function summaryMessageText(summary: string, summarized: number, dropped: number): string {
  const lost =
    dropped > 0
      ? ` The ${dropped} oldest messages did not fit into the summary request and were dropped without a summary.`
      : ''
  return `<conversation-summary>\nThe ${summarized} earliest messages of this conversation were replaced by this summary, which you wrote when the context grew too large.${lost}\n\n${summary.trim()}\n</conversation-summary>`
}

/** Stands for the summarized turns when the summary request failed: honest about what is gone. */
export function lostTurnsText(count: number, reason: string): string {
  return `<conversation-summary>\nThe ${count} earliest messages of this conversation were removed to fit the context window. Summarizing them failed (${reason}), so what they said is not available; ask the user or look again at the files if you need it.\n</conversation-summary>`
}

/** The stub that replaces an old tool result's body. */
export function elidedStub(
  name: string,
  lines: number,
  tokens: number,
  saved: { path: string } | { error: string },
): string {
  const what = `[This ${name} result (${lines} ${lines === 1 ? 'line' : 'lines'}, ~${tokens} tokens) was removed from the conversation to save context.`
  if ('path' in saved)
    return `${what} It is saved at ${saved.path}; to see it again: read {"path": ${JSON.stringify(saved.path)}, "offset": 1, "limit": ${Math.min(lines, 2000)}}.]`
  return `${what} It could not be saved (${saved.error}); run the call again if you need it.]`
}
