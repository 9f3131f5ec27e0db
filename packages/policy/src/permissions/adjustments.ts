import type { BashAnalysis } from './bash.js'
import { hitWhy } from './bash-paths.js'
import { type AskDecision, ask, deny, provenance } from './decision.js'
import { bashHits } from './immune.js'
import { LOOP_THRESHOLD, messages } from './messages.js'
import { parseRule } from './rule-syntax.js'
import type { EngineSetup } from './setup.js'
import type { Subjects } from './subjects.js'
import type { CallLike, PermissionDecision } from './types.js'
import { relativeToRoot, shownRule } from './workspace.js'

/**
 * The adjustments after the chain, which depend on the session rather than the call: a call
 * refused LOOP_THRESHOLD times is flagged as looping (seed 003 §8.7: surface the loop, keep the
 * human override), an ask lists every concern a person approves (not only the one that decided),
 * and in a non-interactive session an ask becomes a denial that names the rule to add, because
 * nobody is there to answer it.
 *
 * `refused` is how many times this exact call was refused before.
 */
export function adjust(
  setup: EngineSetup,
  call: CallLike,
  raw: PermissionDecision,
  subj: Subjects,
  interactive: boolean,
  refused: number,
): PermissionDecision {
  const looping = refused >= LOOP_THRESHOLD
  let d = raw
  // A boundary refusal is the preset's default, not a rule: after repeated refusals a person is
  // shown the loop and may allow it once (seed 003 §8.7: surface the loop, keep human override).
  if (d.kind === 'deny' && d.step === 'workspace-boundary' && looping && interactive) {
    d = ask('workspace-boundary', d.why, false)
  }
  if (d.kind !== 'ask') return d
  // Every reason, not only the one that decided (issue 12 §7): what else the person approves.
  const also = subj.bash === undefined ? [] : concerns(setup, subj.bash).filter((c) => !d.why.includes(c))
  const full = also.length === 0 ? d.displayReason : `${d.displayReason} Also: ${also.join('; ')}.`
  const displayReason = looping ? `${messages.loopingPrefix(refused)}${full}` : full
  d = { ...d, displayReason, looping, offerSessionGrant: d.offerSessionGrant && !looping }
  if (interactive) return d
  return {
    ...deny(d.step, messages.headless(call.name, d.why, headlessTail(setup, call, d, subj), looping), d.why),
    ...provenance(d),
  }
}

/** Everything about a bash call a person approves: protected paths, destructive parts, writes. */
function concerns(setup: EngineSetup, b: BashAnalysis): string[] {
  const out = bashHits(setup, b).map(hitWhy)
  for (const d of b.destructives) out.push(`"${d.text}" is destructive (${d.why})`)
  if (!b.classification.readOnly) for (const r of b.classification.reasons) out.push(r)
  return [...new Set(out)]
}

/** What a headless denial tells the model to do: which rule asked, or the allow rule to add. */
function headlessTail(setup: EngineSetup, call: CallLike, d: AskDecision, subj: Subjects): string {
  if (d.step === 'ask-rule') {
    const rule = setup.rules.find(
      (r) => r.text === d.rule?.text && r.source === d.rule?.source && r.action === 'ask',
    )
    if (rule !== undefined) return messages.headlessAskRule(shownRule(setup, rule))
  }
  if (d.step === 'protected-path' || d.step === 'workspace-boundary') return messages.headlessNoRule
  const suggested = suggestRules(setup, call, subj)
  if (suggested === undefined) return messages.headlessNoRule
  const file =
    setup.projectSettingsPath === undefined ? undefined : relativeToRoot(setup, setup.projectSettingsPath)
  return messages.headlessAddRule(suggested, file || undefined, subj.bash?.destructive !== undefined)
}

/** The narrowest allow rules that would let this exact call through, or undefined if none can. */
function suggestRules(setup: EngineSetup, call: CallLike, subj: Subjects): readonly string[] | undefined {
  if (subj.bash !== undefined) {
    const b = subj.bash
    if (!b.complete) return undefined
    const needed = b.commands
      .filter((c) => !(c.readOnly && c.writes.length === 0))
      .map((c) => `bash(${c.canonical})`)
    const out = [...new Set(needed)]
    return out.length > 0 && out.every((r) => parseRule(r).ok) ? out : undefined
  }
  if (subj.spec === undefined) return [call.name]
  if (subj.paths !== undefined) {
    const tool = subj.spec.category === 'write' ? 'edit' : 'read'
    const out = subj.paths.map((p) => {
      const target = p.resolved.real ?? p.resolved.lexical
      return `${tool}(${relativeToRoot(setup, target) || target})`
    })
    const unique = [...new Set(out)]
    return unique.every((r) => parseRule(r).ok) ? unique : undefined
  }
  return [call.name]
}
