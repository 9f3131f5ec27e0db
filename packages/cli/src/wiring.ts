// The ONE adapter between the CLI and the packages that were still landing while it was written
// (@toolgate/tools builtinTools, @toolgate/policy permissions, @toolgate/codemode codeMode). Each is
// looked up by name on the package namespace, so the CLI builds and says plainly what is missing
// instead of failing to compile. Everything else in the CLI talks to this file, not to those APIs.
import {
  type AnyToolDefinition,
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
import * as policyPkg from '@toolgate/policy'
import * as toolsPkg from '@toolgate/tools'

export type Preset = 'read-only' | 'workspace-write' | 'danger-full-access'
export type ApprovalMode = 'on-request' | 'never'

type Loose = Record<string, unknown>

// Code Mode is optional: imported by a computed specifier so the CLI builds and runs without it.
const CODEMODE = '@toolgate/codemode'
let codemodePkg: unknown
async function loadCodemode(): Promise<unknown> {
  if (codemodePkg === undefined) {
    try {
      codemodePkg = await import(CODEMODE)
    } catch {
      codemodePkg = {}
    }
  }
  return codemodePkg
}
const fn = (pkg: unknown, name: string): ((...args: unknown[]) => unknown) | undefined => {
  const value = (pkg as Loose)[name]
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown) : undefined
}

/** What the permission engine offers the prompt, when it exposes it (see README "API gaps"). */
export interface PolicyHandle {
  describe(request: ApprovalRequest): { reason?: string; offerSession: boolean }
  grantSession?(request: ApprovalRequest): { ok: true; note: string } | { ok: false; reason: string }
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
  /** Extra plugins installed after the tools (e.g. the demo's concurrency probe). */
  readonly plugins?: readonly Plugin[]
}

export interface Session {
  readonly runtime: Runtime
  readonly approval: ApprovalService
  readonly policy: PolicyHandle
  /** Whether run_code is registered. */
  readonly codeMode: boolean
  /** Missing pieces, one line each, printed by the commands (empty once every package has landed). */
  readonly gaps: readonly string[]
}

export async function createSession(setup: SessionSetup): Promise<Session> {
  const gaps: string[] = []
  const approval = createApprovalService({ policy: setup.approvalPolicy })
  const runtime = createRuntime({ approval, session: setup.sink })

  const builtinTools = fn(toolsPkg, 'builtinTools')
  if (!builtinTools)
    throw new Error('@toolgate/tools does not export builtinTools yet; the CLI cannot run without its tools')
  runtime.use(builtinTools({ root: setup.root }) as Plugin)

  let codeMode = false
  const codeModeFn = setup.codeMode ? fn(await loadCodemode(), 'codeMode') : undefined
  if (setup.codeMode) {
    if (codeModeFn) {
      runtime.use(codeModeFn({ mode: 'both' }) as Plugin)
      codeMode = true
    } else gaps.push('@toolgate/codemode does not export codeMode yet: run_code is not available')
  }

  const policy = await installPolicy(runtime, setup, gaps)
  for (const plugin of setup.plugins ?? []) runtime.use(plugin)
  return { runtime, approval, policy, codeMode, gaps }
}

async function installPolicy(runtime: Runtime, setup: SessionSetup, gaps: string[]): Promise<PolicyHandle> {
  const init = fn(policyPkg, 'initShellParser')
  if (init) await (init() as Promise<void>)
  const permissions = fn(policyPkg, 'permissions')
  if (!permissions) {
    gaps.push(
      "@toolgate/policy does not export permissions yet: using the CLI's minimal stand-in policy (wiring.ts)",
    )
    runtime.use(standInPolicy(setup.root))
    return {
      describe: (r) => ({ ...(r.displayReason ? { reason: r.displayReason } : {}), offerSession: false }),
    }
  }
  const plugin = permissions({
    root: setup.root,
    preset: setup.preset,
    approvalPolicy: setup.approvalPolicy,
  }) as Plugin & Loose
  runtime.use(plugin)
  // The engine may hang off the plugin (plugin.engine) or be the plugin itself.
  const engine = (
    typeof plugin.engine === 'object' && plugin.engine !== null ? plugin.engine : plugin
  ) as Loose
  const describeAsk = fn(engine, 'describeAsk')?.bind(engine)
  const grant = (fn(engine, 'grantSession') ?? fn(engine, 'grant'))?.bind(engine)
  if (!describeAsk)
    gaps.push("the permission engine has no describeAsk(callId): the prompt shows the request's reason only")
  if (!grant)
    gaps.push('the permission engine has no session-grant API: "a" (allow for session) is not offered')
  return {
    describe(request) {
      const described = describeAsk?.(request.callId) as
        | { displayReason?: string; offerSessionGrant?: boolean }
        | undefined
      const reason = described?.displayReason ?? request.displayReason ?? request.reason
      return {
        ...(reason ? { reason } : {}),
        offerSession: grant !== undefined && described?.offerSessionGrant === true,
      }
    },
    ...(grant
      ? {
          grantSession(request: ApprovalRequest) {
            const result = grant(request.callId) as
              | { granted?: boolean; keys?: readonly string[]; reason?: string }
              | undefined
            return result?.granted
              ? { ok: true as const, note: (result.keys ?? []).join(', ') || 'remembered' }
              : { ok: false as const, reason: result?.reason ?? 'the policy did not grant it' }
          },
        }
      : {}),
  }
}

/**
 * Stand-in for the permission engine while it lands: protected paths deny (bypass-immune), bash
 * commands that are not read-only ask, everything else is allowed. Fail closed on doubt.
 */
function standInPolicy(root: string): Plugin {
  const classify = fn(policyPkg, 'classifyCommand')
  const PROTECTED = [
    /(^|\/)\.git\/hooks(\/|$)/,
    /(^|\/)\.ssh(\/|$)/,
    /(^|\/)\.(bashrc|zshrc|profile|bash_profile)$/,
    /(^|\/)\.toolgate(\/|$)/,
  ]
  return (ctx) => {
    ctx.on('tools/pre-execute', (exec, next) => {
      const args = exec.arguments as Loose
      const path = typeof args?.path === 'string' ? args.path : undefined
      if (path !== undefined && (exec.name === 'write' || exec.name === 'edit')) {
        const abs = path.startsWith('/') ? path : `${root}/${path}`
        if (PROTECTED.some((p) => p.test(abs))) {
          return {
            kind: 'deny',
            reason: `Writing ${path} is not allowed: it is a protected path (git hooks, shell startup files, SSH keys and toolgate's own config can never be changed by the agent). Do not retry; tell the user what you wanted to change.`,
          }
        }
      }
      if (exec.name === 'bash' && typeof args?.command === 'string') {
        const verdict = classify?.(args.command) as { readOnly?: boolean; reason?: string } | undefined
        if (verdict?.readOnly !== true) {
          return {
            kind: 'ask',
            reason: verdict?.reason ?? 'unclassified command',
            displayReason: `runs a command that is not read-only (${verdict?.reason ?? 'could not classify it'})`,
          }
        }
      }
      return next()
    })
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
  const builtinTools = fn(toolsPkg, 'builtinTools')
  if (builtinTools) runtime.use(builtinTools({ root }) as Plugin)
  const codeModeFn = fn(await loadCodemode(), 'codeMode')
  if (codeModeFn) {
    try {
      runtime.use(codeModeFn({ mode: 'both' }) as Plugin)
    } catch {
      // Cards of run_code fall back to the generic card.
    }
  }
  let lookup: (name: string) => AnyToolDefinition | undefined = () => undefined
  runtime
    .use((ctx) => {
      lookup = (name) => ctx.toolOf({ name })
    })
    .dispose()
  const presenters = (name: string) =>
    lookup(name) as
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
