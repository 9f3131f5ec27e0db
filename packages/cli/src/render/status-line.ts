// The interactive session's status line, printed after each turn (issue 15 §1): the model, the
// tokens used of its context window, the cost when the price is known, the preset, MCP servers that
// are configured but not usable yet (still starting, or reconnecting), and how the turn ended when
// it did not complete. Pure: (input, style, width) -> one line that never exceeds the width.
import type { Style } from './colors.js'
import { formatCost } from './pricing.js'
import { formatTokens } from './run-view.js'
import { terminalSafe } from './terminal-text.js'
import { clipToWidth } from './text-width.js'

export interface StatusLineInput {
  readonly model: string
  /** Tokens in the context at the last request; undefined before the first response. */
  readonly contextTokens: number | undefined
  readonly contextWindow: number
  /** USD so far, when the model's price is known. */
  readonly cost?: number
  readonly preset: string
  /** Configured MCP servers whose tools the model cannot call yet. */
  readonly mcp?: McpPending
  /** Why the turn stopped, when it did not complete (`max_turns`, `aborted`, ...). */
  readonly ended?: string
}

export interface McpPending {
  /** Starting, or connected with tools that reach the model at the next turn. */
  readonly starting: number
  readonly reconnecting: number
}

export function renderStatusLine(input: StatusLineInput, style: Style, width: number): string {
  const parts = [
    input.model,
    `${input.contextTokens === undefined ? '?' : formatTokens(input.contextTokens)}/${formatTokens(input.contextWindow)} tokens`,
    ...(input.cost === undefined ? [] : [formatCost(input.cost)]),
    input.preset,
    ...mcpPart(input.mcp),
    ...(input.ended ? [input.ended] : []),
  ]
  return style.dim(clipToWidth(`── ${parts.map((p) => terminalSafe(p)).join(' · ')}`, width))
}

function mcpPart(mcp: McpPending | undefined): string[] {
  if (!mcp) return []
  const counts = [
    ...(mcp.starting > 0 ? [`${mcp.starting} starting`] : []),
    ...(mcp.reconnecting > 0 ? [`${mcp.reconnecting} reconnecting`] : []),
  ]
  return counts.length === 0 ? [] : [`mcp: ${counts.join(', ')}`]
}
