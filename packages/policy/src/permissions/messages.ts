import type { LoadedRule, RuleSource } from './types.js'

/**
 * Model- and person-facing text. Stable (no timestamps, no counters beyond the loop threshold),
 * written for the reader: what happened, then what to do next.
 */

export const LOOP_THRESHOLD = 3

export function sourceText(source: RuleSource, file?: string): string {
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
  boundary: (tool: string, subject: string, root: string, preset: string) =>
    `Permission denied: this ${tool} call writes ${subject}, outside the workspace (${root}); the ${preset} preset only writes inside the workspace. It did not run. Write inside the workspace instead, or ask the user to allow it.`,
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

function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`)
}
