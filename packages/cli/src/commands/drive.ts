// One agent run with terminal output, shared by `demo` and `run`: the session (runtime, tools,
// policy, approvals, JSONL log), the event view, the approval answerer, SIGINT, and the summary.

import { runAgent, sessionTap } from '@toolgate/agent'
import { codeModePrompt } from '@toolgate/codemode'
import type { ApprovalAnswerer, ApprovalOutcome, ApprovalRequest, JsonValue } from '@toolgate/core'
import { jsonlSink } from '@toolgate/core/node'
import type { Message, ModelClient } from '@toolgate/providers'
import { terminalAnswerer } from '../approval/prompt.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { colorEnabled, createStyle, type Style } from '../render/colors.js'
import { createScreen, type Screen } from '../render/progress.js'
import { createRunView, type RunStats, renderSummary } from '../render/run-view.js'
import { terminalSafe } from '../render/terminal-text.js'
import { overlapProbe } from '../session/overlap.js'
import { type ApprovalMode, createSession, type Preset, type SessionSetup } from '../wiring.js'

/** How asks are answered when nobody is at a terminal (or --yes). */
export type AutoDecision = (
  request: ApprovalRequest,
  title: string,
) => { outcome: ApprovalOutcome; line: string }

export interface DriveOptions {
  readonly io: CliIO
  /**
   * The model, made once the session exists (the demo script depends on whether run_code is
   * there); `log` appends to the session log (e.g. tools a request had to leave out).
   */
  readonly model: (session: {
    readonly codeMode: boolean
    readonly log: (type: string, payload: Record<string, JsonValue>) => void
  }) => ModelClient
  readonly root: string
  readonly preset: Preset
  readonly approvalPolicy: ApprovalMode
  readonly logPath: string
  readonly messages: readonly Message[]
  readonly system?: string
  readonly maxTurns?: number
  readonly json: boolean
  readonly codeMode: boolean
  /** Passed to the permission engine (see SessionSetup). */
  readonly rules?: SessionSetup['rules']
  readonly isolated?: boolean
  readonly trustSandbox?: boolean
  /** Start the configured MCP servers. */
  readonly mcp?: boolean
  /** The model's context window in tokens (deferred loading's threshold). */
  readonly contextWindowTokens?: number
  /** Deferred tools are found by the provider's own tool search (the model client uses it too). */
  readonly nativeToolSearch?: boolean
  /** Used instead of the terminal prompt: always (--yes), or when stdin/stdout is not a TTY. */
  readonly auto: AutoDecision
  readonly forceAuto: boolean
  /** Printed before the run (card mode only); `sandbox` is the session's sandbox line. */
  readonly banner?: (style: Style, session: { readonly sandbox: string }) => string
  /** Extra summary rows. */
  readonly summaryExtra?: (stats: RunStats, peak: number) => [string, string][]
}

export interface DriveResult {
  readonly code: ExitCode
  readonly stats: RunStats
}

export async function drive(o: DriveOptions): Promise<DriveResult> {
  const { io } = o
  const out = o.json ? io.stderr : io.stdout
  const style = createStyle(colorEnabled(out, io.env))
  const interactive = io.stdin?.isTTY === true && out.isTTY === true
  const screen: Screen = createScreen(out, style, { progress: out.isTTY === true && !o.json })
  const width = Math.max(40, (out.isTTY ? out.columns : undefined) ?? 160)

  const controller = new AbortController()
  let interrupted = false
  const interrupt = () => {
    interrupted = true
    controller.abort(new Error('interrupted by the user (SIGINT)'))
  }
  if (io.interrupt?.aborted) interrupt()
  io.interrupt?.addEventListener('abort', interrupt, { once: true })

  // Written, not kept: a long session must not hold every event in memory (issue 13 §4).
  const sink = jsonlSink(o.logPath)
  const tap = sessionTap(sink)
  const probe = overlapProbe()
  const started = performance.now()
  let session: Awaited<ReturnType<typeof createSession>>
  try {
    session = await createSession({
      root: o.root,
      preset: o.preset,
      approvalPolicy: o.approvalPolicy,
      sink: tap,
      codeMode: o.codeMode,
      ...(o.rules ? { rules: o.rules } : {}),
      ...(o.isolated ? { isolated: true } : {}),
      ...(o.trustSandbox === false ? { trustSandbox: false } : {}),
      ...(o.mcp ? { mcp: true } : {}),
      ...(o.contextWindowTokens !== undefined ? { contextWindowTokens: o.contextWindowTokens } : {}),
      ...(o.nativeToolSearch ? { nativeToolSearch: true } : {}),
      plugins: [probe.plugin],
    })
  } catch (error) {
    sink.close()
    io.stderr.write(
      `toolgate: could not set up the session: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    return { code: EXIT.config, stats: emptyStats() }
  }
  for (const gap of session.gaps) io.stderr.write(`toolgate: note: ${gap}\n`)

  const view = createRunView({
    screen,
    style,
    width,
    ...(o.json ? { json: io.stdout } : {}),
    parallel: probe.overlapped,
  })
  const title = (request: ApprovalRequest) =>
    view.describe(request.callId) ?? terminalSafe(`${request.toolName} (${request.callId})`)

  // The pending card is printed by the event consumer; yield once so it is on screen before we ask.
  const settleScreen = () => new Promise<void>((resolve) => setImmediate(resolve))
  let answerer: ApprovalAnswerer
  if (interactive && !o.forceAuto) {
    const prompt = terminalAnswerer({
      stdin: io.stdin!,
      screen,
      style,
      describe: (request) => {
        const d = session.policy.describe(request)
        return {
          title: title(request),
          // The reason quotes the model's command: terminal-safe before the prompt prints it.
          ...(d.reason ? { reason: terminalSafe(d.reason) } : {}),
          ...(d.subject !== undefined ? { subject: d.subject } : {}),
          offerSession: d.offerSession,
        }
      },
      ...(session.policy.grantSession ? { grantSession: session.policy.grantSession } : {}),
      onInterrupt: interrupt,
    })
    answerer = async (request) => {
      await settleScreen()
      return prompt(request)
    }
  } else {
    answerer = async (request) => {
      await settleScreen()
      const decided = o.auto(request, title(request))
      const mark = decided.outcome === 'allowed-once' ? style.green('✓') : style.red('✗')
      screen.print(`  ${mark} ${style.bold('approval')} ${title(request)}: ${decided.line}\n`)
      return decided.outcome
    }
  }
  session.approval.answer(answerer)

  if (!o.json && o.banner) screen.print(o.banner(style, session))
  // MCP servers: every state at start, then a line whenever one changes between turns (a server
  // that dies mid-session is reported, and logged as mcp/server by the manager).
  const mcp = session.mcp
  const note = (lines: readonly string[]) => {
    // In --json mode the screen writes to stderr (stdout is for events).
    if (lines.length > 0) screen.print(`${lines.join('\n')}\n`)
  }
  if (mcp) note(mcp.banner())
  let code: ExitCode = EXIT.failed
  try {
    // With run_code available the model also needs the SDK declaration of what it can call.
    // The rules in force come first, so the model does not spend calls discovering them (issue 17).
    const system = [
      o.system,
      session.policy.promptText(),
      session.codeMode ? codeModePrompt(session.runtime) : undefined,
    ]
      .filter((part): part is string => part !== undefined && part !== '')
      .join('\n\n')
    const run = runAgent({
      model: o.model({
        codeMode: session.codeMode,
        log: (type, payload) => {
          try {
            session.runtime.session.append(type, payload)
          } catch {
            // The log is telemetry: it never stops a run.
          }
        },
      }),
      runtime: session.runtime,
      messages: o.messages,
      ...(system ? { system } : {}),
      signal: controller.signal,
      sessionTap: tap,
      ...(o.maxTurns !== undefined ? { maxTurns: o.maxTurns } : {}),
      ...(mcp ? { beforeTurn: () => note(mcp.sync()), deferredTools: mcp.deferred } : {}),
    })
    for await (const event of run) view.onEvent(event)
    const result = await run.result
    code =
      result.reason === 'completed'
        ? EXIT.ok
        : interrupted || result.reason === 'aborted'
          ? EXIT.interrupted
          : EXIT.failed
  } catch (error) {
    screen.print(
      `${style.red('■')} the run failed: ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`,
    )
    code = interrupted ? EXIT.interrupted : EXIT.failed
  } finally {
    io.interrupt?.removeEventListener('abort', interrupt)
    screen.dispose()
    await session.mcp?.dispose().catch(() => undefined)
    await session.runtime.dispose().catch(() => undefined)
    sink.close()
  }
  const wallMs = performance.now() - started
  const extra = o.summaryExtra?.(view.stats, probe.peak()) ?? []
  if (o.json) {
    io.stdout.write(
      `${JSON.stringify({
        type: 'summary',
        exitCode: code,
        calls: view.stats.calls,
        outcomes: Object.fromEntries(view.stats.outcomes),
        toolMs: Math.round(view.stats.toolMs),
        wallMs: Math.round(wallMs),
        approvalsAsked: view.stats.approvalsAsked,
        approvals: Object.fromEntries(view.stats.approvals),
        log: o.logPath,
      })}\n`,
    )
  } else {
    screen.print(`\n${renderSummary({ stats: view.stats, wallMs, logPath: o.logPath, extra }, style)}`)
  }
  return { code, stats: view.stats }
}

function emptyStats(): RunStats {
  return { calls: 0, outcomes: new Map(), toolMs: 0, approvalsAsked: 0, approvals: new Map(), turns: 0 }
}
