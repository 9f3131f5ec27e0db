// The one place the CLI assembles a session: runtime, approvals, the built-in tools, the
// permission engine (with its prompt helpers) and, optionally, Code Mode. Commands talk to this
// file, not to those packages.

import { codeMode as codeModePlugin } from '@toolgate/codemode'
import {
  type ApprovalRequest,
  type ApprovalService,
  createApprovalService,
  createRuntime,
  type JsonValue,
  type Plugin,
  type Runtime,
  type SessionSink,
  type ToolCallView,
  type ToolResult,
  type ToolResultView,
} from '@toolgate/core'
import { initShellParser, permissions, probeSandbox } from '@toolgate/policy'
import { builtinTools } from '@toolgate/tools'

export type Preset = 'read-only' | 'workspace-write' | 'danger-full-access'
export type ApprovalMode = 'on-request' | 'never'

/** What the permission engine offers the approval prompt. */
export interface PolicyHandle {
  describe(request: ApprovalRequest): { reason?: string; subject?: string; offerSession: boolean }
  grantSession(request: ApprovalRequest): { ok: true; note: string } | { ok: false; reason: string }
}

export interface SessionSetup {
  readonly root: string
  readonly preset: Preset
  readonly approvalPolicy: ApprovalMode
  readonly sink: SessionSink
  readonly codeMode?: boolean
  /** Extra permission rules, e.g. `{ action: 'ask', rule: 'bash(node scripts/lint.mjs:*)' }`. */
  readonly rules?: readonly { readonly action: 'allow' | 'ask' | 'deny'; readonly rule: string }[]
  /** Ignore the user's and the project's settings files (the demo must behave the same everywhere). */
  readonly isolated?: boolean
  /**
   * Tell the permission engine that bash runs confined when bubblewrap works here (default true):
   * then workspace-write runs non-destructive commands without asking. The demo sets false so its
   * step 10 prompt appears on every machine.
   */
  readonly trustSandbox?: boolean
  /** Extra plugins installed after the tools (e.g. the demo's concurrency probe). */
  readonly plugins?: readonly Plugin[]
}

export interface Session {
  readonly runtime: Runtime
  readonly approval: ApprovalService
  readonly policy: PolicyHandle
  /** Whether run_code is registered. */
  readonly codeMode: boolean
  /** Notes for the user, one line each (none today; kept for degraded setups). */
  readonly gaps: readonly string[]
}

export async function createSession(setup: SessionSetup): Promise<Session> {
  const approval = createApprovalService({ policy: setup.approvalPolicy })
  const runtime = createRuntime({ approval, session: setup.sink })
  runtime.use(builtinTools({ root: setup.root }))
  if (setup.codeMode) runtime.use(codeModePlugin({ mode: 'both' }))
  const policy = await installPolicy(runtime, setup)
  for (const plugin of setup.plugins ?? []) runtime.use(plugin)
  return { runtime, approval, policy, codeMode: setup.codeMode === true, gaps: [] }
}

async function installPolicy(runtime: Runtime, setup: SessionSetup): Promise<PolicyHandle> {
  await initShellParser()
  // Only a sandbox that was seen to work counts (fail closed): the bash tool confines with it.
  const sandboxed =
    setup.trustSandbox !== false && setup.preset === 'workspace-write' && (await probeSandbox()).available
  const plugin = permissions({
    root: setup.root,
    preset: setup.preset,
    approvalPolicy: setup.approvalPolicy,
    sandboxed,
    ...(setup.rules ? { rules: setup.rules } : {}),
    ...(setup.isolated ? { userSettingsPath: null, projectSettingsPath: null } : {}),
  })
  runtime.use(plugin)
  const engine = plugin.engine
  return {
    describe(request) {
      const described = engine.describeAsk(request.callId)
      const reason = described?.displayReason ?? request.displayReason ?? request.reason
      return {
        ...(reason ? { reason } : {}),
        ...(described !== undefined ? { subject: described.subject } : {}),
        offerSession: described?.offerSessionGrant === true,
      }
    },
    grantSession(request) {
      const result = engine.grantSession(request.callId)
      return result.granted
        ? { ok: true, note: result.keys.join(', ') || 'remembered' }
        : { ok: false, reason: result.reason }
    },
  }
}

/** Pure card lookups over the built-in tools' presentCall / presentResult (replay). */
export interface CardSource {
  call(name: string, args: JsonValue): ToolCallView | undefined
  result(name: string, args: JsonValue, result: ToolResult): ToolResultView | undefined
}

/** The built-in tools' presenters, without running anything (a runtime that never executes). */
export async function builtinCardSource(root: string): Promise<CardSource> {
  const runtime = createRuntime()
  runtime.use(builtinTools({ root }))
  runtime.use(codeModePlugin({ mode: 'both' }))
  const presenters = (name: string) =>
    runtime.tool(name) as
      | {
          presentCall?: (a: JsonValue) => ToolCallView | undefined
          presentResult?: (a: JsonValue, r: ToolResult) => ToolResultView | undefined
        }
      | undefined
  return {
    call(name, args) {
      try {
        return presenters(name)?.presentCall?.(args) ?? undefined
      } catch {
        return undefined
      }
    },
    result(name, args, result) {
      try {
        return presenters(name)?.presentResult?.(args, result) ?? undefined
      } catch {
        return undefined
      }
    },
  }
}
