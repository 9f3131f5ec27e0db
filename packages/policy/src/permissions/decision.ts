import type { DecidedBy, LoadedRule, PermissionDecision } from './types.js'

/**
 * Builders for the engine's decisions. Every step of the chain returns one of these, so each
 * decision carries the step that made it and the rule that decided (provenance, seed 003 §8.2):
 * the audit, `explain` and a headless denial all name who decided.
 */

export type AskDecision = Extract<PermissionDecision, { kind: 'ask' }>

export function deny(
  step: DecidedBy['step'],
  reason: string,
  why: string,
  rule?: LoadedRule,
): PermissionDecision {
  return { kind: 'deny', step, reason, why, ...ruleRef(rule) }
}

export function allowBy(step: DecidedBy['step'], why: string, rule?: LoadedRule): PermissionDecision {
  return { kind: 'allow', step, why, ...ruleRef(rule) }
}

export function ask(
  step: DecidedBy['step'],
  why: string,
  offerSessionGrant: boolean,
  rule?: LoadedRule,
): AskDecision {
  const sentence = why.charAt(0).toUpperCase() + why.slice(1)
  return {
    kind: 'ask',
    step,
    reason: `${step}: ${why}`,
    displayReason: `${sentence}.`,
    why,
    offerSessionGrant,
    looping: false,
    ...ruleRef(rule),
  }
}

/** Who decided: the step, and the rule or protected pattern when one did. */
export function provenance(d: PermissionDecision): DecidedBy {
  return {
    step: d.step,
    ...(d.rule === undefined ? {} : { rule: d.rule }),
    ...(d.protectedPattern === undefined ? {} : { protectedPattern: d.protectedPattern }),
  }
}

function ruleRef(rule: LoadedRule | undefined): Pick<DecidedBy, 'rule'> {
  if (rule === undefined) return {}
  return {
    rule: {
      action: rule.action,
      text: rule.text,
      source: rule.source,
      ...(rule.file === undefined ? {} : { file: rule.file }),
    },
  }
}
