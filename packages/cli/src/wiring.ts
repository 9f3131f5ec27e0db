// The one place the CLI assembles a session: runtime, approvals, the built-in tools, the
// permission engine (with its prompt helpers) and, optionally, Code Mode. Commands talk to this
// file, not to those packages.
//
// Code Mode is imported only when a session offers run_code (or a replay meets a run_code call):
// @toolgate/codemode loads the TypeScript compiler for type stripping, the heaviest module of the
// CLI by far (issue 15 §3). @toolgate/mcp and the MCP SDK are imported only when a configuration
// file may name servers (`mcpConfigured`): a session without MCP never loads them.
import { basename, join } from 'node:path'
import { askUserTool, displayPath, resultBudget, SpillDirectory, taskTool } from '@toolgate/agent'
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
import type { McpSession } from './commands/mcp-session.js'
import { mcpConfigured } from './session/mcp-configured.js'
import { type ApprovalMode, engineOptions, type Preset } from './session/policy-options.js'

export type { ApprovalMode, Preset } from './session/policy-options.js'

/** What the permission engine offers the approval prompt. */
interface PolicyHandle {
  describe(request: ApprovalRequest): { reason?: string; subject?: string; offerSession: boolean }
  grantSession(request: ApprovalRequest): { ok: true; note: string } | { ok: false; reason: string }
  /** Replace the engine with one for another preset (between turns). */
  setPreset(preset: Preset): void
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

/** Where the full text of cut or elided outputs goes: in the workspace, where `read` can open it. */
const SPILL_DIR = join('.toolgate', 'spill')

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
  /** The system prompt's Code Mode part (the SDK declaration of the callable tools), when run_code is offered. */
  readonly codePrompt?: string
  /** `<root>/.toolgate/spill`: cut results (the result budget) and elided ones (context pressure). */
  readonly spill: SpillDirectory
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
  // Parser, probe, Code Mode and MCP load side by side.
  const [probe, , codemode, mcpModule] = await Promise.all([
    probeSandbox(setup.bwrapPath),
    initShellParser(),
    setup.codeMode ? import('@toolgate/codemode') : undefined,
    setup.mcp && !setup.isolated && mcpConfigured(setup.root)
      ? import('./commands/mcp-session.js')
      : undefined,
  ])
  // bash runs under the profile of the session's preset (issue 11 §5); the profile is read per
  // call, so `/preset` changes it together with the permission engine.
  const profile = { mode: setup.preset }
  const spillDir = join(setup.root, SPILL_DIR)
  const spill = new SpillDirectory(spillDir, setup.root)
  runtime.use(
    builtinTools({
      root: setup.root,
      sandbox: profile,
      // bash's own spill files (output over its in-memory cap) go where `read` can open them.
      publishSpill: (file) => spill.copy(basename(file, '.log'), file),
      ...(setup.bwrapPath === undefined ? {} : { bwrapPath: setup.bwrapPath }),
    }),
  )
  if (codemode) runtime.use(codemode.codeMode({ mode: 'both' }))
  // Every result is bounded in tokens (head and tail, whole lines), the rest spilled where `read` can
  // open it; registered before any other post-execute listener, so it budgets what they return.
  runtime.use(resultBudget({ spillDir, root: setup.root }))
  const policy = installPolicy(runtime, setup, probe, (preset) => {
    profile.mode = preset
  })
  for (const plugin of setup.plugins ?? []) runtime.use(plugin)
  const mcp = mcpModule
    ? mcpModule.startMcp(runtime, setup.root, {
        ...(setup.contextWindowTokens !== undefined
          ? { contextWindowTokens: setup.contextWindowTokens }
          : {}),
        ...(setup.nativeToolSearch ? { nativeToolSearch: true } : {}),
        spill: {
          save: (stem, extension, data) => displayPath(spill.saveSync(stem, extension, data), setup.root),
        },
      })
    : undefined
  return {
    runtime,
    approval,
    policy,
    codeMode: codemode !== undefined,
    sandbox: sandboxLine(setup.preset, probe),
    gaps: probe.status === 'enforced' ? [] : [probe.diagnostic],
    ...(codemode ? { codePrompt: codemode.codeModePrompt(runtime) } : {}),
    spill,
    ...(mcp ? { mcp } : {}),
  }
}

/** Only a sandbox that was seen to hold counts (fail closed: partly enforced is no sandbox). */
function sandboxTrusted(setup: SessionSetup, preset: Preset, probe: SandboxProbe): boolean {
  return setup.trustSandbox !== false && preset === 'workspace-write' && probe.status === 'enforced'
}

/**
 * The permission engine for a preset. `/preset` replaces it between turns (the previous plugin is
 * disposed; its session grants go with it, the new preset's defaults apply from the next call).
 */
function installPolicy(
  runtime: Runtime,
  setup: SessionSetup,
  probe: SandboxProbe,
  onPreset: (preset: Preset) => void,
): PolicyHandle {
  let engine: ReturnType<typeof permissions>['engine']
  let installed: { dispose(): void } | undefined
  const install = (preset: Preset) => {
    const plugin = permissions(engineOptions(setup, preset, sandboxTrusted(setup, preset, probe)))
    installed?.dispose()
    installed = runtime.use(plugin)
    engine = plugin.engine
    onPreset(preset)
  }
  install(setup.preset)
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
