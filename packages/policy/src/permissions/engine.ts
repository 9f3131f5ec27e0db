import { adjust } from './adjustments.js'
import { evaluate } from './chain.js'
import { type AskDecision, provenance } from './decision.js'
import { immune } from './immune.js'
import { callKey, grantKeysOf, stableJson } from './keys.js'
import { promptTextOf } from './prompt-text.js'
import { type PermissionOptions, resolveSetup } from './setup.js'
import { type Subjects, subjectsOf } from './subjects.js'
import type {
  ApprovalPolicy,
  AskDescription,
  CallLike,
  GrantResult,
  LoadedRule,
  PermissionDecision,
  Preset,
} from './types.js'

/**
 * The permission engine (issue 4 §2): a configuration resolved once (`setup.ts`), the precedence
 * chain that decides a call (`chain.ts`, one file per step), the adjustments that depend on the
 * session (`adjustments.ts`), and the session's memory: grants, refusal counts and the asks still
 * pending. This file only wires them together; the README's source map lists every stage.
 */

export interface PermissionEngine {
  readonly root: string
  readonly preset: Preset
  readonly approvalPolicy: ApprovalPolicy
  readonly projectSettingsPath: string | undefined
  readonly userSettingsPath: string | undefined
  readonly rules: readonly LoadedRule[]
  /**
   * Decide one call. Records an `ask` under its callId (for `describeAsk` / `grantSession`).
   * `interactive` defaults to `approvalPolicy === 'on-request'`.
   */
  decide(call: CallLike, options?: { readonly interactive?: boolean }): PermissionDecision
  /** The same decision, without recording anything, with a one-line summary of who decided. */
  explain(call: CallLike): PermissionDecision & { readonly summary: string }
  /** The bypass-immune part only (deny rules, protected paths): what the monotonic guard enforces. */
  bypassImmune(call: CallLike): { readonly kind: 'deny' | 'ask'; readonly reason: string } | undefined
  /** What an approval prompt for a pending ask should show. */
  describeAsk(callId: string): AskDescription | undefined
  /** "Allow for this session": remembers the exact call (each simple command for bash). */
  grantSession(callId: string): GrantResult
  /** Count a refusal of this exact call (denied, rejected, cancelled, unavailable). Returns the count. */
  recordRefusal(call: CallLike): number
  refusals(call: CallLike): number
  /** Forget the pending ask of a settled call. */
  settle(callId: string): void
  /** The grant keys remembered so far (stable order). */
  grants(): readonly string[]
  /** Stable deny rules and disabled tools, as system-prompt text (seed 003 §8.8); '' when none. */
  promptText(): string
}

/** An ask waiting for the person's answer, remembered so "allow for this session" grants its keys. */
interface PendingAsk {
  readonly toolName: string
  readonly subject: string
  readonly decision: AskDecision
  readonly grantKeys: readonly string[]
}

export function createPermissionEngine(options: PermissionOptions): PermissionEngine {
  // Resolve the configuration once: validate the preset and approval policy and load every rule
  // (code, project, user, defaults). A bad setting throws here, at creation, with every problem
  // listed, rather than surfacing as a surprising decision in the middle of a session.
  const setup = resolveSetup(options)

  // The session's memory. Grants are what the person allowed for the session; refusal counts
  // find a model repeating a refused call (seed 003 §8.7); pending asks let the approval prompt
  // describe a call and grant exactly the keys it was shown.
  const grantSet = new Set<string>()
  const refusalCounts = new Map<string, number>()
  const pending = new Map<string, PendingAsk>()

  // One decision: the precedence chain, then the session's adjustments. `decide` and `explain`
  // share it, so what `explain` reports is what `decide` would do.
  function decideOnce(
    call: CallLike,
    interactive: boolean,
  ): { decision: PermissionDecision; subj: Subjects } {
    const { decision: raw, subj } = evaluate(setup, grantSet, call)
    const refused = refusalCounts.get(callKey(call, subj)) ?? 0
    return { decision: adjust(setup, call, raw, subj, interactive, refused), subj }
  }

  const engine: PermissionEngine = {
    root: setup.root,
    preset: setup.preset,
    approvalPolicy: setup.approvalPolicy,
    projectSettingsPath: setup.projectSettingsPath,
    userSettingsPath: setup.userSettingsPath,
    rules: setup.rules,
    decide(call, opts) {
      const interactive = opts?.interactive ?? setup.approvalPolicy === 'on-request'
      const { decision, subj } = decideOnce(call, interactive)
      // Remember an ask under its call id: the prompt shows it, and a session grant adds exactly
      // these keys (none when the decision offers no session grant).
      if (decision.kind === 'ask' && call.callId !== undefined) {
        pending.set(call.callId, {
          toolName: call.name,
          subject: subj.bash !== undefined ? subj.bash.command : stableJson(call.arguments),
          decision,
          grantKeys: decision.offerSessionGrant ? grantKeysOf(call, subj) : [],
        })
      }
      return decision
    },
    explain(call) {
      const { decision } = decideOnce(call, setup.approvalPolicy === 'on-request')
      const by =
        decision.rule !== undefined
          ? `rule "${decision.rule.action} ${decision.rule.text}" from ${decision.rule.file ?? decision.rule.source}`
          : decision.protectedPattern !== undefined
            ? `protected path ${decision.protectedPattern}`
            : `step ${decision.step}`
      return { ...decision, summary: `${decision.kind} by ${by}: ${decision.why}` }
    },
    bypassImmune(call) {
      const d = immune(setup, call, subjectsOf(setup, call))
      if (d === undefined) return undefined
      return d.kind === 'deny' ? { kind: 'deny', reason: d.reason } : { kind: 'ask', reason: d.why }
    },
    describeAsk(callId) {
      const p = pending.get(callId)
      if (p === undefined) return undefined
      return Object.freeze({
        callId,
        toolName: p.toolName,
        subject: p.subject,
        displayReason: p.decision.displayReason,
        offerSessionGrant: p.decision.offerSessionGrant,
        looping: p.decision.looping,
        grantKeys: p.grantKeys,
        decidedBy: provenance(p.decision),
      })
    },
    grantSession(callId) {
      const p = pending.get(callId)
      if (p === undefined) return { granted: false, reason: `no approval is pending for call ${callId}` }
      if (!p.decision.offerSessionGrant) {
        return {
          granted: false,
          reason: `this call cannot be allowed for the whole session (${p.decision.why}); allow it once instead`,
        }
      }
      for (const k of p.grantKeys) grantSet.add(k)
      return { granted: true, keys: p.grantKeys }
    },
    recordRefusal(call) {
      const key = callKey(call, subjectsOf(setup, call))
      const n = (refusalCounts.get(key) ?? 0) + 1
      refusalCounts.set(key, n)
      return n
    },
    refusals(call) {
      return refusalCounts.get(callKey(call, subjectsOf(setup, call))) ?? 0
    },
    settle(callId) {
      pending.delete(callId)
    },
    grants() {
      return [...grantSet].sort()
    },
    promptText() {
      return promptTextOf(setup)
    },
  }
  return engine
}
