import type { BashAnalysis } from './bash.js'
import { type BashProtectedHit, bashProtectedHits, decidingHit, hitWhy } from './bash-paths.js'
import { ask, deny } from './decision.js'
import { messages, ruleText } from './messages.js'
import { checkProtected } from './protected.js'
import { firstRule } from './rule-match.js'
import type { EngineSetup } from './setup.js'
import type { Subjects } from './subjects.js'
import type { CallLike, PermissionDecision } from './types.js'
import { shownRule } from './workspace.js'

/**
 * Steps 1 and 2 of the chain, the bypass-immune part: arguments that cannot be read, deny rules,
 * paths whose symbolic links cannot be resolved, and the protected-path table. Nothing overrides
 * these, in any preset (danger-full-access included) and with any grant or allow rule (seed 003
 * §8.2, §8.3): this is also exactly what the monotonic guard re-checks after every listener
 * (`PermissionEngine.bypassImmune`), so a later plugin cannot allow what they refuse.
 */
export function immune(setup: EngineSetup, call: CallLike, subj: Subjects): PermissionDecision | undefined {
  if (subj.problem !== undefined) {
    return deny('fallback', messages.badArguments(call.name, subj.problem), subj.problem)
  }
  const d = firstRule(setup, setup.denyRules, call, subj)
  if (d !== undefined) {
    return deny(
      'deny-rule',
      messages.denyRule(call.name, shownRule(setup, d.rule), d.subject),
      `denied by the rule ${ruleText(d.rule)}`,
      d.rule,
    )
  }
  for (const p of subj.paths ?? []) {
    if (p.resolved.real === undefined) {
      return deny(
        'protected-path',
        messages.unresolvable(call.name, p.written),
        `${p.written} has unresolvable symbolic links`,
      )
    }
  }
  const prot = protectedHit(setup, subj)
  if (prot !== undefined) {
    const why = hitWhy(prot)
    if (prot.action === 'deny') {
      return {
        ...deny('protected-path', messages.protectedDeny(call.name, prot.subject, prot.reason), why),
        protectedPattern: prot.pattern,
      }
    }
    return { ...ask('protected-path', why, false), protectedPattern: prot.pattern }
  }
  return undefined
}

/** The protected paths a bash call may touch (computed once per analysis). */
export function bashHits(setup: EngineSetup, b: BashAnalysis): BashProtectedHit[] {
  let hits = setup.bashHitsCache.get(b)
  if (hits === undefined) {
    hits = bashProtectedHits(b, {
      table: setup.table,
      root: setup.rootLexical,
      home: setup.home,
      homes: setup.homes,
    })
    setup.bashHitsCache.set(b, hits)
  }
  return hits
}

/** The first protected path the call touches (a deny before any ask). */
function protectedHit(
  setup: EngineSetup,
  subj: Subjects,
): { action: 'deny' | 'ask'; reason: string; pattern: string; subject: string; why?: string } | undefined {
  if (subj.bash !== undefined) return decidingHit(bashHits(setup, subj.bash))
  let ask: { action: 'deny' | 'ask'; reason: string; pattern: string; subject: string } | undefined
  const access = subj.spec?.category === 'write' ? 'write' : 'read'
  for (const p of subj.paths ?? []) {
    const hit = checkProtected(setup.table, p.resolved, access, setup.homes)
    if (hit === undefined) continue
    const subject =
      p.resolved.real !== undefined && p.resolved.real !== p.resolved.lexical && hit.path === p.resolved.real
        ? `${p.written} (a symbolic link to ${p.resolved.real})`
        : p.written
    const found = {
      action: hit.entry.action === 'deny' ? ('deny' as const) : ('ask' as const),
      reason: hit.entry.reason,
      pattern: hit.entry.pattern,
      subject,
    }
    if (found.action === 'deny') return found
    ask ??= found
  }
  return ask
}
