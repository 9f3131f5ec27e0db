import { allowBy } from './decision.js'
import { bashKey, grantKeysOf } from './keys.js'
import { ruleText } from './messages.js'
import { allowRuleMatches, appliesTo, pathRuleMatches, toolRuleMatches } from './rule-match.js'
import type { EngineSetup } from './setup.js'
import type { Subjects } from './subjects.js'
import type { CallLike, LoadedRule, PermissionDecision } from './types.js'

/**
 * Step 5, session grants and allow rules: what the person or the configuration has already said
 * yes to. A bash call is covered only when every simple command is (a grant, an allow rule, or
 * itself read-only without writes) and no write belongs to no command (a redirect on a whole
 * list): `git status && rm -rf x` is not covered by a grant of `git status`. An allow rule holds
 * for the real target of a path, so a symbolic link cannot borrow an allowed name. A call that is
 * merely read-only is left to the mode default (step 6), which says so in its reason.
 */
export function coverage(
  setup: EngineSetup,
  grants: ReadonlySet<string>,
  call: CallLike,
  subj: Subjects,
): PermissionDecision | undefined {
  const { allowRules } = setup
  const key = grantKeysOf(call, subj)
  if (subj.bash !== undefined) {
    const b = subj.bash
    if (!b.complete) return undefined
    const allowTool = allowRules.find((r) => toolRuleMatches(r, 'bash'))
    if (allowTool !== undefined)
      return allowBy('allow-rule', `allowed by the rule ${ruleText(allowTool)}`, allowTool)
    let firstRuleUsed: LoadedRule | undefined
    let usedGrant = false
    let ruleOrGrantWrites = 0
    for (const c of b.commands) {
      if (grants.has(bashKey(c.canonical))) {
        usedGrant = true
        ruleOrGrantWrites += c.writes.length
        continue
      }
      const r = allowRules.find((rule) => allowRuleMatches(rule, c))
      if (r !== undefined) {
        firstRuleUsed ??= r
        ruleOrGrantWrites += c.writes.length
        continue
      }
      if (c.readOnly && c.writes.length === 0) continue
      return undefined
    }
    if (firstRuleUsed === undefined && !usedGrant) return undefined // plain read-only: the mode decides
    // Writes outside the simple commands (a redirect on a whole list) are nobody's: not covered.
    if (b.writes.length > ruleOrGrantWrites) return undefined
    return firstRuleUsed !== undefined
      ? allowBy(
          'allow-rule',
          `every simple command is allowed (first by the rule ${ruleText(firstRuleUsed)})`,
          firstRuleUsed,
        )
      : allowBy('session-grant', 'every simple command was allowed for this session')
  }
  if (key.length === 1 && grants.has(key[0]!))
    return allowBy('session-grant', 'this exact call was allowed for this session')
  const tool = allowRules.find((r) => toolRuleMatches(r, call.name))
  if (tool !== undefined) return allowBy('allow-rule', `allowed by the rule ${ruleText(tool)}`, tool)
  if (subj.paths !== undefined && subj.paths.length > 0) {
    let used: LoadedRule | undefined
    for (const p of subj.paths) {
      // Allow rules must hold for the real target: a symlink cannot borrow an allowed name.
      const r = allowRules.find(
        (rule) => appliesTo(rule, subj.spec) && pathRuleMatches(setup, rule, p.resolved, 'real'),
      )
      if (r === undefined) return undefined
      used ??= r
    }
    if (used !== undefined) return allowBy('allow-rule', `allowed by the rule ${ruleText(used)}`, used)
  }
  return undefined
}
