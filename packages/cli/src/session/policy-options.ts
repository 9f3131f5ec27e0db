// The permission engine's options for a session, in one place: wiring.ts installs the engine with
// them, and the early first request (early-request.ts) asks an engine made from the same options
// for the system prompt's rules text, so both paths send the same prompt.
import type { PermissionOptions } from '@toolgate/policy'

export type Preset = 'read-only' | 'workspace-write' | 'danger-full-access'
export type ApprovalMode = 'on-request' | 'never'

/** Tools the CLI adds beyond the built-ins, for the permission engine: they act on nothing outside the session. */
const CLI_TOOLS = { ask_user: { category: 'internal' }, task: { category: 'internal' } } as const

/** What of a session the engine depends on. */
export interface PolicySetup {
  readonly root: string
  readonly approvalPolicy: ApprovalMode
  /** Extra permission rules, e.g. `{ action: 'ask', rule: 'bash(node scripts/lint.mjs:*)' }`. */
  readonly rules?: readonly { readonly action: 'allow' | 'ask' | 'deny'; readonly rule: string }[]
  /** Ignore the user's and the project's settings files. */
  readonly isolated?: boolean
}

export function engineOptions(setup: PolicySetup, preset: Preset, sandboxed: boolean): PermissionOptions {
  return {
    root: setup.root,
    preset,
    approvalPolicy: setup.approvalPolicy,
    sandboxed,
    tools: CLI_TOOLS,
    ...(setup.rules ? { rules: setup.rules } : {}),
    ...(setup.isolated ? { userSettingsPath: null, projectSettingsPath: null } : {}),
  }
}

/**
 * The system prompt a session sends: the command's own paragraph, the rules in force (so the model
 * does not spend calls discovering them, issue 17), then the run_code SDK declaration.
 */
export function composeSystem(parts: readonly (string | undefined)[]): string {
  return parts.filter((part): part is string => part !== undefined && part !== '').join('\n\n')
}
