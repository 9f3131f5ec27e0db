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
import { initShellParser, permissions, probeSandbox, type SandboxProbe } from '@toolgate/policy'
import { builtinTools } from '@toolgate/tools'
import { type McpSession, startMcp } from './commands/mcp-session.js'

export type Preset = 'read-only' | 'workspace-write' | 'danger-full-access'
export type ApprovalMode = 'on-request' | 'never'

/** What the permission engine offers the approval prompt. */
export interface PolicyHandle {
  describe(request: ApprovalRequest): { reason?: string; subject?: string; offerSession: boolean }
  grantSession(request: ApprovalRequest): { ok: true; note: string } | { ok: false; reason: string }
  /** The deny rules and protected paths in force, for the system prompt ('' when none). */
  promptText(): string
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
  /** The bubblewrap binary (default `bwrap` on PATH). */
  readonly bwrapPath?: string
  /** Extra plugins installed after the tools (e.g. the demo's concurrency probe). */
  readonly plugins?: readonly Plugin[]
  /** Start the configured MCP servers (`.mcp.json`, settings); never with `isolated`. */
  readonly mcp?: boolean
  /** The model's context window in tokens: MCP tools are deferred past 10% of it. */
  readonly contextWindowTokens?: number
  /** Deferred tools are found by the provider's own tool search (Anthropic). */
  readonly nativeToolSearch?: boolean
}

export interface Session {
  readonly runtime: Runtime
  readonly approval: ApprovalService
  readonly policy: PolicyHandle
  /** Whether run_code is registered. */
  readonly codeMode: boolean
  /** Which sandbox bash runs in, one line for the banner (`sandboxLine`). */
  readonly sandbox: string
  /** Notes for the user, one line each: what is degraded here and how to fix it. */
  readonly gaps: readonly string[]
  /** The MCP servers of this session, when any are configured. */
  readonly mcp?: McpSession
}

/**
 * What the profile of each preset does, in one line (README of @toolgate/policy, "Sandbox", has
 * the table with the reason for each mount).
 */
const PROFILE_SUMMARY = {
  'read-only': 'workspace read-only; credential stores, .env files and host sockets hidden; no network',
  'workspace-write':
    "workspace writable except .git, hooks and toolgate's settings; credential stores, .env files and host sockets hidden; no network",
  'danger-full-access':
    "everything writable except .git, hooks, toolgate's settings and the home directory's top level; credential stores, .env files and host sockets hidden; network on",
} as const satisfies Record<Preset, string>

/** The banner line: exactly which sandbox is in force for bash, or why none is. */
export function sandboxLine(preset: Preset, probe: SandboxProbe): string {
  switch (probe.status) {
    case 'enforced':
      return `bubblewrap, ${preset} profile: ${PROFILE_SUMMARY[preset]}`
    case 'partial':
      return `bubblewrap, partly enforced (treated as no sandbox: commands that are not read-only ask): ${probe.missing.join('; ')}`
    case 'unavailable':
      return 'none: bash runs unconfined, so commands that are not read-only ask (the "toolgate: note" line says why and how to fix it)'
  }
}

export async function createSession(setup: SessionSetup): Promise<Session> {
  const approval = createApprovalService({ policy: setup.approvalPolicy })
  const runtime = createRuntime({ approval, session: setup.sink })
  // bash runs under the profile of the session's preset (issue 11 §5).
  runtime.use(
    builtinTools({
      root: setup.root,
      sandbox: setup.preset,
      ...(setup.bwrapPath === undefined ? {} : { bwrapPath: setup.bwrapPath }),
    }),
  )
  if (setup.codeMode) runtime.use(codeModePlugin({ mode: 'both' }))
  const probe = await probeSandbox(setup.bwrapPath)
  const policy = await installPolicy(runtime, setup, probe)
  for (const plugin of setup.plugins ?? []) runtime.use(plugin)
  const mcp =
    setup.mcp && !setup.isolated
      ? startMcp(runtime, setup.root, {
          ...(setup.contextWindowTokens !== undefined
            ? { contextWindowTokens: setup.contextWindowTokens }
            : {}),
          ...(setup.nativeToolSearch ? { nativeToolSearch: true } : {}),
        })
      : undefined
  return {
    runtime,
    approval,
    policy,
    codeMode: setup.codeMode === true,
    sandbox: sandboxLine(setup.preset, probe),
    gaps: probe.status === 'enforced' ? [] : [probe.diagnostic],
    ...(mcp ? { mcp } : {}),
  }
}

async function installPolicy(
  runtime: Runtime,
  setup: SessionSetup,
  probe: SandboxProbe,
): Promise<PolicyHandle> {
  await initShellParser()
  // Only a sandbox that was seen to hold counts (fail closed): partly enforced is no sandbox.
  const sandboxed =
    setup.trustSandbox !== false && setup.preset === 'workspace-write' && probe.status === 'enforced'
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
    promptText: () => engine.promptText(),
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
