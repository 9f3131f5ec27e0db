import { PROMPT_HEADER, PROTECTED_HEADER, protectedPathsPrompt } from './messages.js'
import type { EngineSetup } from './setup.js'
import type { LoadedRule } from './types.js'

/**
 * The system-prompt text of an engine: its deny rules and disabled tools, then the protected paths
 * in force, so the model does not waste calls on what will be refused. Only what is stable for
 * the whole session (seed 003 §8.8), in a stable order: a prompt that changes breaks the cache.
 */
export function promptTextOf(setup: EngineSetup): string {
  const rules = renderPromptText(setup.denyRules)
  const guarded = protectedPathsPrompt(setup.table, setup.root, setup.home)
  if (guarded.length === 0) return rules
  return [rules, [PROTECTED_HEADER, ...guarded].join('\n')].filter((part) => part !== '').join('\n')
}

/** Seed 003 §8.8: only the configured, session-stable part (deny rules, disabled tools). */
export function renderPromptText(denyRules: readonly LoadedRule[]): string {
  const tools = [...new Set(denyRules.filter((r) => r.matcher.kind === 'tool').map((r) => r.text))].sort()
  const args = [...new Set(denyRules.filter((r) => r.matcher.kind !== 'tool').map((r) => r.text))].sort()
  if (tools.length === 0 && args.length === 0) return ''
  const lines = [PROMPT_HEADER]
  if (tools.length > 0) lines.push(`- Disabled tools: ${tools.join(', ')}`)
  if (args.length > 0) lines.push(`- Denied: ${args.join(', ')}`)
  return lines.join('\n')
}
