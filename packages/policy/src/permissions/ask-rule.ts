import { ask } from './decision.js'
import { ruleText } from './messages.js'
import { firstRule } from './rule-match.js'
import type { EngineSetup } from './setup.js'
import type { Subjects } from './subjects.js'
import type { CallLike, PermissionDecision } from './types.js'
import { shownRule } from './workspace.js'

/**
 * Step 4, ask rules: a person confirms this call even when a grant or an allow rule would let it
 * through (`ask bash(git push:*)` holds against `allow bash(git:*)`). That is why ask rules come
 * before step 5. The prompt never offers "allow for this session": the rule asks every time.
 */
export function askRule(setup: EngineSetup, call: CallLike, subj: Subjects): PermissionDecision | undefined {
  const a = firstRule(setup, setup.askRules, call, subj)
  if (a === undefined) return undefined
  return ask(
    'ask-rule',
    `the rule ${ruleText(shownRule(setup, a.rule))} requires approval${a.subject ? ` for ${a.subject}` : ''}`,
    false,
    a.rule,
  )
}
