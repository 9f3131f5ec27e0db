import { assertNever, type Plugin, type PreToolDecision, type ToolExecution } from '@toolgate/core'
import { createPermissionEngine, type PermissionEngine } from './engine.js'
import { messages } from './messages.js'
import type { PermissionOptions } from './setup.js'
import type { CallLike, PermissionDecision } from './types.js'

/** `permissions(...)` is a core plugin that also exposes its engine (for the approval prompt). */
export type PermissionsPlugin = Plugin & { readonly engine: PermissionEngine }

const REFUSALS = new Set([
  'PERMISSION_DENIED',
  'APPROVAL_REJECTED',
  'APPROVAL_CANCELLED',
  'APPROVAL_UNAVAILABLE',
  'APPROVAL_UNSUPPORTED',
])

/**
 * `runtime.use(permissions({ root, preset, approvalPolicy, rules? }))` (DESIGN.md §4):
 *
 * - a `tools/pre-execute` listener: allow -> `next()` (later policies may still restrict),
 *   deny -> `{ kind: 'deny', reason }`, ask -> `{ kind: 'ask', reason, displayReason }`;
 * - a monotonic guard re-checking the bypass-immune part (deny rules, protected paths), so no
 *   listener — before or after this one — can turn it into an allow (seed 001 §6.5). A protected
 *   `ask` passes the guard only when this listener asked for that very execution (the core runs an
 *   ask only after 'allowed-once');
 * - a `tools/result` observer: the single point where refusals are counted (seed 003 §8.7: count
 *   outcomes, not evaluations) and pending asks are forgotten.
 *
 * Throws PermissionSettingsError when a settings file is broken (fail closed, with the file and
 * field of every problem).
 */
export function permissions(options: PermissionOptions): PermissionsPlugin {
  const engine = createPermissionEngine(options)
  const plugin: Plugin = (ctx) => {
    const asked = new Map<symbol, true>()
    const decided = new Map<string, CallLike>()
    const interactive = () => {
      const approval = ctx.runtime.approval
      return (
        engine.approvalPolicy === 'on-request' && approval !== undefined && approval.policy === 'on-request'
      )
    }
    ctx.on('tools/pre-execute', (exec, next) => {
      const call = callOf(exec)
      const decision = engine.decide(call, { interactive: interactive() })
      ctx.runtime.session.append('permission/decided', auditOf(exec, decision))
      if (decision.kind === 'allow') return next()
      decided.set(exec.callId, call)
      if (decision.kind === 'ask') asked.set(exec.token, true)
      return toPre(decision)
    })
    ctx.guard((exec) => {
      const verdict = engine.bypassImmune(callOf(exec))
      if (verdict === undefined) return undefined
      // The policy's messages carry their own next step: they are the whole message.
      if (verdict.kind === 'deny') return { message: verdict.reason }
      if (asked.has(exec.token)) return undefined
      return { message: messages.bypassAsk(exec.name, verdict.reason) }
    })
    ctx.on('tools/result', (exec, result) => {
      asked.delete(exec.token)
      engine.settle(exec.callId)
      const call = decided.get(exec.callId)
      decided.delete(exec.callId)
      const code = result.error?.code
      if (code !== undefined && REFUSALS.has(code)) engine.recordRefusal(call ?? callOf(exec))
    })
  }
  return Object.assign(plugin, { engine })
}

function callOf(exec: ToolExecution): CallLike {
  return { callId: exec.callId, name: exec.name, arguments: exec.arguments }
}

function toPre(decision: Exclude<PermissionDecision, { kind: 'allow' }>): PreToolDecision {
  switch (decision.kind) {
    case 'deny':
      return {
        kind: 'deny',
        reason: decision.reason,
        info: {
          step: decision.step,
          ...(decision.rule === undefined
            ? {}
            : {
                rule: `${decision.rule.action} ${decision.rule.text}`,
                source: decision.rule.file ?? decision.rule.source,
              }),
          ...(decision.protectedPattern === undefined ? {} : { protectedPattern: decision.protectedPattern }),
        },
      }
    case 'ask':
      return { kind: 'ask', reason: decision.reason, displayReason: decision.displayReason }
    default:
      return assertNever(decision)
  }
}

function auditOf(exec: ToolExecution, d: PermissionDecision) {
  return {
    callId: exec.callId,
    tool: exec.name,
    decision: d.kind,
    step: d.step,
    ...(d.rule === undefined
      ? {}
      : { rule: `${d.rule.action} ${d.rule.text}`, source: d.rule.file ?? d.rule.source }),
    ...(d.protectedPattern === undefined ? {} : { protectedPattern: d.protectedPattern }),
    ...(d.kind === 'ask' ? { offerSessionGrant: d.offerSessionGrant, looping: d.looping } : {}),
  }
}

/** `explainDecision(engine, call)`: which rule or step decided, and why (provenance). */
export function explainDecision(
  engine: PermissionEngine | PermissionsPlugin,
  call: CallLike,
): PermissionDecision & { readonly summary: string } {
  const e = 'engine' in engine ? engine.engine : engine
  return e.explain(call)
}
