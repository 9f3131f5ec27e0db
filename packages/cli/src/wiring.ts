// The one place the CLI assembles a session: runtime, approvals, the built-in tools, the
// permission engine (with its prompt helpers) and, optionally, Code Mode. Commands talk to this
// file, not to those packages.
//
// Code Mode is imported only when a session offers run_code (or a replay meets a run_code call):
// @toolgate/codemode loads the TypeScript compiler for type stripping, the heaviest module of the
// CLI by far (issue 15 §3).
import { join } from 'node:path'
import { askUserTool, resultBudget, SpillDirectory, taskTool } from '@toolgate/agent'
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
import { scriptedModel } from '@toolgate/providers'
import { builtinTools } from '@toolgate/tools'

export type Preset = 'read-only' | 'workspace-write' | 'danger-full-access'
export type ApprovalMode = 'on-request' | 'never'

/** What the permission engine offers the approval prompt. */
export interface PolicyHandle {
  describe(request: ApprovalRequest): { reason?: string; offerSession: boolean }
  grantSession(request: ApprovalRequest): { ok: true; note: string } | { ok: false; reason: string }
  /** Replace the engine with one for another preset (between turns). */
  setPreset(preset: Preset): void
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

/** Where the full text of cut or elided outputs goes: in the workspace, where `read` can open it. */
export const SPILL_DIR = join('.toolgate', 'spill')

export interface Session {
  readonly runtime: Runtime
  readonly approval: ApprovalService
  readonly policy: PolicyHandle
  /** Whether run_code is registered. */
  readonly codeMode: boolean
  /** Notes for the user, one line each (none today; kept for degraded setups). */
  readonly gaps: readonly string[]
  /** How bash is confined in this session, for the banner. */
  readonly sandbox: SandboxState
  /** The system prompt's Code Mode part (the SDK declaration of the callable tools), when run_code is offered. */
  readonly codePrompt?: string
  /** `<root>/.toolgate/spill`: cut results (the result budget) and elided ones (context pressure). */
  readonly spill: SpillDirectory
}

/** Which sandbox is in force: bash's own confinement, and whether the policy counts on it. */
export type SandboxState =
  | { readonly kind: 'bubblewrap'; readonly trusted: boolean }
  | { readonly kind: 'none'; readonly diagnostic: string }

export async function createSession(setup: SessionSetup): Promise<Session> {
  const approval = createApprovalService({ policy: setup.approvalPolicy })
  const runtime = createRuntime({ approval, session: setup.sink })
  // The bash tool confines with bubblewrap when it works (its default, fail closed); the probe says
  // whether it does, for the policy and the banner. Parser, probe and Code Mode load side by side.
  const [probe, , codemode] = await Promise.all([
    probeSandbox(),
    initShellParser(),
    setup.codeMode ? import('@toolgate/codemode') : undefined,
  ])
  runtime.use(builtinTools({ root: setup.root }))
  if (codemode) runtime.use(codemode.codeMode({ mode: 'both' }))
  // Every result is bounded in tokens (head and tail, whole lines), the rest spilled where `read` can
  // open it; registered before any other post-execute listener, so it budgets what they return.
  const spillDir = join(setup.root, SPILL_DIR)
  runtime.use(resultBudget({ spillDir, root: setup.root }))
  const policy = installPolicy(runtime, setup, probe)
  for (const plugin of setup.plugins ?? []) runtime.use(plugin)
  return {
    runtime,
    approval,
    policy,
    codeMode: codemode !== undefined,
    gaps: [],
    sandbox: probe.available
      ? { kind: 'bubblewrap', trusted: sandboxTrusted(setup, probe) }
      : { kind: 'none', diagnostic: probe.diagnostic },
    ...(codemode ? { codePrompt: codemode.codeModePrompt(runtime) } : {}),
    spill: new SpillDirectory(spillDir, setup.root),
  }
}

/** Only a sandbox that was seen to work counts (fail closed), and the demo never counts on it. */
function sandboxTrusted(setup: SessionSetup, probe: SandboxProbe): boolean {
  return setup.trustSandbox !== false && setup.preset === 'workspace-write' && probe.available
}

/** Tools the CLI adds beyond the built-ins, for the permission engine: they act on nothing outside the session. */
const CLI_TOOLS = { ask_user: { category: 'internal' }, task: { category: 'internal' } } as const

/**
 * The permission engine for a preset. `/preset` replaces it between turns (the previous plugin is
 * disposed; its session grants go with it, the new preset's defaults apply from the next call).
 */
function installPolicy(runtime: Runtime, setup: SessionSetup, probe: SandboxProbe): PolicyHandle {
  let engine: ReturnType<typeof permissions>['engine']
  let installed: { dispose(): void } | undefined
  const install = (preset: Preset) => {
    const plugin = permissions({
      root: setup.root,
      preset,
      approvalPolicy: setup.approvalPolicy,
      sandboxed: sandboxTrusted({ ...setup, preset }, probe),
      tools: CLI_TOOLS,
      ...(setup.rules ? { rules: setup.rules } : {}),
      ...(setup.isolated ? { userSettingsPath: null, projectSettingsPath: null } : {}),
    })
    installed?.dispose()
    installed = runtime.use(plugin)
    engine = plugin.engine
  }
  install(setup.preset)
  return {
    describe(request) {
      const described = engine.describeAsk(request.callId)
      const reason = described?.displayReason ?? request.displayReason ?? request.reason
      return { ...(reason ? { reason } : {}), offerSession: described?.offerSessionGrant === true }
    },
    grantSession(request) {
      const result = engine.grantSession(request.callId)
      return result.granted
        ? { ok: true, note: result.keys.join(', ') || 'remembered' }
        : { ok: false, reason: result.reason }
    },
    setPreset: install,
  }
}

/** Pure card lookups over the built-in tools' presentCall / presentResult (replay). */
export interface CardSource {
  /** Load the presenters of a tool whose package is not loaded yet (run_code); call before `call`. */
  prepare(name: string): Promise<void>
  call(name: string, args: JsonValue): ToolCallView | undefined
  result(name: string, args: JsonValue, result: ToolResult): ToolResultView | undefined
}

/** The built-in tools' presenters, without running anything (a runtime that never executes). */
export async function builtinCardSource(root: string): Promise<CardSource> {
  const runtime = createRuntime()
  runtime.use(builtinTools({ root }))
  // The CLI's own tools' presenters (their bodies never run here: the model is never asked).
  runtime.use(askUserTool())
  runtime.use(taskTool({ model: scriptedModel([]) }))
  let codeModeLoaded: Promise<void> | undefined
  const presenters = (name: string) =>
    runtime.tool(name) as
      | {
          presentCall?: (a: JsonValue) => ToolCallView | undefined
          presentResult?: (a: JsonValue, r: ToolResult) => ToolResultView | undefined
        }
      | undefined
  return {
    prepare(name) {
      if (name !== 'run_code') return Promise.resolve()
      codeModeLoaded ??= import('@toolgate/codemode').then(
        (m) => void runtime.use(m.codeMode({ mode: 'both' })),
        () => undefined, // without its presenters run_code gets the generic card
      )
      return codeModeLoaded
    },
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
