// Stop reasons are the loop's steering wheel (seed 003 §2.3). A whitelist decides "done": an unknown
// or missing value is an error, never a silent done (seed 003 §4.5 P0-2: whitelists fail closed).
import type { ToolCallPart, ToolResultMessage } from './messages.js'

export type StopReason =
  /** The model finished its answer. */
  | 'done'
  /** The model asks for tools. */
  | 'tool_use'
  /** Output cut by the token limit: tool calls in it may be truncated and are never run. */
  | 'max_tokens'
  /** The provider refused or filtered the output. */
  | 'refusal'
  /** A long server-side turn was paused; send the conversation again to let it continue. */
  | 'pause'
  /** Unknown, missing or failed: never treated as done. */
  | 'error'

/** Anthropic Messages `stop_reason`. */
export const ANTHROPIC_STOP_REASONS = {
  end_turn: 'done',
  stop_sequence: 'done',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
  pause_turn: 'pause',
} as const satisfies Record<string, StopReason>

/** OpenAI Chat Completions `finish_reason` (also llama.cpp, vLLM, Ollama). */
export const OPENAI_CHAT_STOP_REASONS = {
  stop: 'done',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
} as const satisfies Record<string, StopReason>

/**
 * OpenAI Responses: `completed`, or `incomplete_details.reason` of an incomplete response. A
 * completed response holding function calls is reported as `tool_use` by the codec.
 */
export const OPENAI_RESPONSES_STOP_REASONS = {
  completed: 'done',
  max_output_tokens: 'max_tokens',
  content_filter: 'refusal',
} as const satisfies Record<string, StopReason>

export function normalizeStopReason(
  table: Readonly<Record<string, StopReason>>,
  raw: string | null | undefined,
): StopReason {
  if (typeof raw !== 'string' || !Object.hasOwn(table, raw)) return 'error'
  return table[raw]!
}

export type StopDecision =
  /** Run the calls (also when the model said done but still holds calls: seed 003 §4.5 F2). */
  | { readonly kind: 'run-tools' }
  /** The conversation turn is over. */
  | { readonly kind: 'done' }
  /** Cut by the token limit: reply to each call with truncatedCallResults, never run them. */
  | { readonly kind: 'truncated'; readonly hasCalls: boolean }
  /** Send the conversation again unchanged (server-side pause). */
  | { readonly kind: 'continue' }
  | { readonly kind: 'refusal' }
  | { readonly kind: 'error'; readonly message: string }

/** What the agent loop does next, given the normalized stop reason and the complete calls. */
export function stopDecision(
  stopReason: StopReason,
  toolCallCount: number,
  rawStopReason?: string | null,
): StopDecision {
  switch (stopReason) {
    case 'tool_use':
      return toolCallCount > 0
        ? { kind: 'run-tools' }
        : { kind: 'error', message: 'the model stopped for tool use but sent no complete tool call' }
    case 'done':
      return toolCallCount > 0 ? { kind: 'run-tools' } : { kind: 'done' }
    case 'max_tokens':
      return { kind: 'truncated', hasCalls: toolCallCount > 0 }
    case 'pause':
      return { kind: 'continue' }
    case 'refusal':
      return { kind: 'refusal' }
    case 'error':
      return {
        kind: 'error',
        message:
          rawStopReason == null
            ? 'the provider sent no stop reason; the reply may be incomplete'
            : `unknown stop reason ${JSON.stringify(rawStopReason)}; not treated as done`,
      }
    default: {
      const never: never = stopReason
      return { kind: 'error', message: `unknown stop reason ${JSON.stringify(never)}` }
    }
  }
}

/** The model-visible text for a call that was not run because the reply hit the token limit. */
export function truncatedCallText(name: string): string {
  return (
    `This ${name} call was not run: your reply hit the output token limit before it ended, so its ` +
    'arguments may be cut off. Re-issue the call with its complete arguments; if they are long, ' +
    'split the work into several smaller calls.'
  )
}

/** One error result per call of a reply cut by the token limit (none of them is executed). */
export function truncatedCallResults(calls: readonly ToolCallPart[]): ToolResultMessage[] {
  return calls.map((c) => ({
    role: 'tool',
    callId: c.callId,
    name: c.name,
    content: [{ type: 'text', text: truncatedCallText(c.name) }],
    isError: true,
  }))
}
