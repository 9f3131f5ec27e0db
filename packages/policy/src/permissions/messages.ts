import { assertNever } from '@toolgate/core'
import type { ProtectedPath } from './protected.js'
import type { LoadedRule, RuleSource } from './types.js'

/**
 * Model- and person-facing text. Stable (no timestamps, no counters beyond the loop threshold),
 * written for the reader: what happened, then what to do next.
 */

export const LOOP_THRESHOLD = 3

function sourceText(source: RuleSource, file?: string): string {
  switch (source) {
    case 'project':
    case 'user':
      return file ?? `the ${source} settings`
    case 'defaults':
      return "toolgate's default rules"
    case 'options':
      return 'the permissions() options'
    default:
      return assertNever(source)
  }
}

export function ruleText(rule: LoadedRule): string {
  return `"${rule.action} ${rule.text}" (${sourceText(rule.source, rule.file)})`
}

export const messages = {
  denyRule: (tool: string, rule: LoadedRule, subject: string | undefined) =>
    `Permission denied: the rule ${ruleText(rule)} forbids this ${tool} call${subject === undefined ? '' : ` (${subject})`}. It did not run. Do not retry it; use a different approach or ask the user.`,
  protectedDeny: (tool: string, subject: string, why: string) =>
    `Permission denied: this ${tool} call touches ${subject}, a protected path (${why}). Protected paths are enforced in every mode and no rule can allow them. It did not run. Do not retry it; if the change is really needed, ask the user to make it themselves.`,
  boundary: (tool: string, subject: string, preset: string) =>
    `Permission denied: this ${tool} call writes ${subject}, outside the workspace; the ${preset} preset only writes inside the workspace. It did not run. Write inside the workspace instead, or ask the user to allow it.`,
  unresolvable: (tool: string, subject: string) =>
    `Permission denied: this ${tool} call names ${subject}, whose symbolic links could not be resolved (a loop or too many links). It did not run. Use a plain path inside the workspace.`,
  badArguments: (tool: string, problem: string) =>
    `Permission denied: the permission policy cannot tell what this ${tool} call touches (${problem}). It did not run. Call it with the documented arguments.`,
  headless: (tool: string, why: string, tail: string, looping: boolean) =>
    `This ${tool} call needs approval (${why}), but no one can approve it in this session (approval policy 'never'), so it did not run. ${tail}${looping ? ` This exact call has been refused ${LOOP_THRESHOLD} or more times in this session; stop retrying it.` : ''}`,
  /**
   * The rule to add and where, in one sentence (issue 17). `file` is the project settings file
   * relative to the workspace, or undefined when it is outside it or disabled: a host path
   * outside the workspace never reaches the model. A destructive command is said to be one, so
   * the model knows a rule (never a session grant) is the only way to allow it.
   */
  headlessAddRule: (rules: readonly string[], file: string | undefined, destructive: boolean) =>
    `To allow it${destructive ? ' (it is destructive, so only a rule can)' : ''}, the user can add ${rules.map((r) => JSON.stringify(r)).join(' and ')} to "permissions.allow" in ${file ?? 'their toolgate settings'}; until then, use a different approach.`,
  headlessNoRule:
    'No allow rule can cover it; use a different approach, or ask the user to run it in an interactive session.',
  headlessAskRule: (rule: LoadedRule) =>
    `The rule ${ruleText(rule)} requires a person's approval every time; use a different approach, or ask the user to run it in an interactive session.`,
  bypassAsk: (tool: string, why: string) =>
    `Permission denied: this ${tool} call needs a person's approval (${why}), and it was not approved through the permission policy. It did not run. Ask the user to allow it.`,
  loopingPrefix: (n: number) =>
    `The model has requested this exact call ${n} times and it was refused each time; it may be looping. `,
} as const

/**
 * Seed 003 §8.8, §9.5 (issue 17): the protected paths in force, for the system prompt, so the
 * model does not spend calls discovering them. Grouped by what is refused; a pattern anchored at
 * an absolute path is shown relative to the workspace or `~`, and one elsewhere on the host is
 * only counted (no host path outside the workspace in model text). Empty for an empty table.
 */
export function protectedPathsPrompt(table: readonly ProtectedPath[], root: string, home: string): string[] {
  const groups = { never: [] as string[], neverWritten: [] as string[], approval: [] as string[] }
  let elsewhere = 0
  const shown = (pattern: string): string | undefined => {
    if (!pattern.startsWith('/')) return pattern
    if (pattern.startsWith(`${root}/`)) return pattern.slice(root.length + 1)
    if (pattern.startsWith(`${home}/`)) return `~/${pattern.slice(home.length + 1)}`
    return undefined
  }
  for (const entry of table) {
    if (entry.action === 'exempt') continue
    const text = shown(entry.pattern)
    if (text === undefined) {
      elsewhere++
      continue
    }
    if (entry.action === 'ask')
      groups.approval.push(
        `${entry.access === 'any' ? 'using' : entry.access === 'read' ? 'reading' : 'writing'} ${text}`,
      )
    else if (entry.access === 'write') groups.neverWritten.push(text)
    else groups.never.push(entry.access === 'read' ? `${text} (read)` : text)
  }
  // Brief (seed 003 §8.8): the first few of each group, then a count; the refusal names the rest.
  const unique = (list: string[]) => {
    const all = [...new Set(list)]
    const more = all.length - PROMPT_LIST_MAX
    return more > 0 ? `${all.slice(0, PROMPT_LIST_MAX).join(', ')} and ${more} more` : all.join(', ')
  }
  const lines: string[] = []
  if (groups.never.length > 0) lines.push(`- Never read or written (secrets): ${unique(groups.never)}`)
  if (groups.neverWritten.length > 0)
    lines.push(`- Never written (they run as code or decide permissions): ${unique(groups.neverWritten)}`)
  if (groups.approval.length > 0)
    lines.push(`- Only with a person's approval, never by a rule: ${unique(groups.approval)}`)
  if (elsewhere > 0)
    lines.push(`- ${elsewhere} more protected location${elsewhere === 1 ? '' : 's'} outside the workspace`)
  return lines
}

const PROMPT_LIST_MAX = 8

export const PROMPT_HEADER =
  'Permission rules for this session (calls that break them are refused; do not attempt them):'
export const PROTECTED_HEADER =
  'Protected paths (enforced in every mode, whatever the rules say; a call that touches one is refused):'
