// An agent session with terminal output, shared by `demo`, `run` and `chat`: the session (runtime,
// tools, policy, approvals, JSONL log), the event view, the approval answerer, interrupts, the
// summary. `openSession` sets it up; `drive` runs one task in it and closes it.

import { type AgentResult, contextWindowOf, runAgent, sessionTap } from '@toolgate/agent'
import type { ApprovalAnswerer, ApprovalOutcome, ApprovalRequest } from '@toolgate/core'
import { type JsonlSink, jsonlSink } from '@toolgate/core/node'
import type { Message, ModelClient } from '@toolgate/providers'
import { terminalAnswerer } from '../approval/prompt.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { colorEnabled, createStyle, type Style } from '../render/colors.js'
import { createScreen, type Screen } from '../render/progress.js'
import { createRunView, type RunStats, type RunView, renderSummary } from '../render/run-view.js'
import { terminalSafe } from '../render/terminal-text.js'
import { prepareLog } from '../session/log-file.js'
import { overlapProbe } from '../session/overlap.js'
import { type ApprovalMode, createSession, type Preset, type Session, type SessionSetup } from '../wiring.js'

/** How asks are answered when nobody is at a terminal (or --yes). */
export type AutoDecision = (
  request: ApprovalRequest,
  title: string,
) => { outcome: ApprovalOutcome; line: string }

/** Limits of each task (runAgent options). */
export interface TaskLimits {
  readonly maxTurns?: number
  /** Output tokens per reply. */
  readonly maxTokens?: number
  /** Input + output tokens per task. */
  readonly tokenBudget?: number
  /** The model's context window in tokens (context management keeps every request inside it). */
  readonly contextWindow?: number
  /** Prompt caching on every request (see ModelRequest.cache). */
  readonly promptCache?: { readonly key?: string }
}

export interface SessionOptions {
  readonly io: CliIO
  /** The model, made once the session exists (the demo script depends on whether run_code is there). */
  readonly model: (session: { readonly codeMode: boolean }) => ModelClient
  readonly root: string
  readonly preset: Preset
  readonly approvalPolicy: ApprovalMode
  readonly logPath: string
  readonly system?: string
  readonly limits?: TaskLimits
  readonly json: boolean
  readonly codeMode: boolean
  /** Passed to the permission engine (see SessionSetup). */
  readonly rules?: SessionSetup['rules']
  readonly isolated?: boolean
  readonly trustSandbox?: boolean
  /** Used instead of the terminal prompt: always (--yes), or when stdin/stdout is not a TTY. */
  readonly auto: AutoDecision
  readonly forceAuto: boolean
  /** Printed before the first task (card mode only). */
  readonly banner?: (style: Style, session: Session) => string
  /** Extra summary rows. */
  readonly summaryExtra?: (stats: RunStats, peak: number) => [string, string][]
}

export interface DriveOptions extends SessionOptions {
  readonly messages: readonly Message[]
}

export interface DriveResult {
  readonly code: ExitCode
  readonly stats: RunStats
}

/** A session that is set up: run tasks in it, then close it. */
export interface DriveSession {
  readonly session: Session
  readonly view: RunView
  readonly screen: Screen
  readonly style: Style
  readonly model: ModelClient
  /** Run one task (the whole conversation so far in `messages`); never rejects. */
  task(messages: readonly Message[], signal: AbortSignal): Promise<AgentResult>
  /** The exit code a finished task maps to. */
  exitCode(result: AgentResult, interrupted: boolean): ExitCode
  /** The closing summary (card mode) or the summary JSON line (--json). */
  summary(code: ExitCode): void
  close(): Promise<void>
}

export async function openSession(o: SessionOptions): Promise<DriveSession | ExitCode> {
  const { io } = o
  const out = o.json ? io.stderr : io.stdout
  const style = createStyle(colorEnabled(out, io.env))
  const interactive = io.stdin?.isTTY === true && out.isTTY === true
  const screen: Screen = createScreen(out, style, { progress: out.isTTY === true && !o.json })
  const width = Math.max(40, (out.isTTY ? out.columns : undefined) ?? 160)
  const fail = (message: string): ExitCode => {
    io.stderr.write(`toolgate: ${terminalSafe(message)}\n`)
    return EXIT.config
  }

  // Written, not kept: a long session must not hold every event in memory (issue 13 §4).
  const prepared = prepareLog(o.logPath)
  if (!prepared.ok) return fail(prepared.message)
  let sink: JsonlSink
  try {
    sink = jsonlSink(o.logPath)
  } catch (error) {
    return fail(`cannot open the session log ${o.logPath}: ${describe(error)}`)
  }
  const tap = sessionTap(sink)
  const probe = overlapProbe()
  const started = performance.now()
  let session: Session
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
      plugins: [probe.plugin],
    })
  } catch (error) {
    sink.close()
    return fail(`could not set up the session: ${describe(error)}`)
  }
  for (const gap of session.gaps) io.stderr.write(`toolgate: note: ${gap}\n`)
  const model = o.model(session)

  const view = createRunView({
    screen,
    style,
    width,
    streamText: out.isTTY === true && !o.json,
    modelName: model.model,
    ...(o.json ? { json: io.stdout } : {}),
    parallel: probe.overlapped,
  })
  const title = (request: ApprovalRequest) =>
    view.describe(request.callId) ?? terminalSafe(`${request.toolName} (${request.callId})`)

  // The pending card is printed by the event consumer; yield once so it is on screen before we ask.
  const settleScreen = () => new Promise<void>((resolve) => setImmediate(resolve))
  let onPromptInterrupt: () => void = () => {}
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
          offerSession: d.offerSession,
        }
      },
      ...(session.policy.grantSession ? { grantSession: session.policy.grantSession } : {}),
      onInterrupt: () => onPromptInterrupt(),
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
  // With run_code available the model also needs the SDK declaration of what it can call.
  const system = [o.system, session.codePrompt]
    .filter((part): part is string => part !== undefined && part !== '')
    .join('\n\n')
  const limits = o.limits ?? {}

  return {
    session,
    view,
    screen,
    style,
    model,
    async task(messages, signal) {
      // Ctrl-C at an approval prompt interrupts the task it belongs to.
      const controller = new AbortController()
      const abort = () => controller.abort(signal.reason ?? new Error('interrupted by the user'))
      if (signal.aborted) abort()
      signal.addEventListener('abort', abort, { once: true })
      onPromptInterrupt = () => controller.abort(new Error('interrupted at the approval prompt'))
      try {
        const run = runAgent({
          model,
          runtime: session.runtime,
          messages,
          ...(system ? { system } : {}),
          signal: controller.signal,
          sessionTap: tap,
          ...(limits.maxTurns !== undefined ? { maxTurns: limits.maxTurns } : {}),
          ...(limits.tokenBudget !== undefined ? { tokenBudget: limits.tokenBudget } : {}),
          ...(limits.maxTokens !== undefined ? { request: { maxTokens: limits.maxTokens } } : {}),
          ...(limits.promptCache ? { promptCache: limits.promptCache } : {}),
          context: {
            window: limits.contextWindow ?? contextWindowOf(model.model),
            spill: { dir: session.spill, root: o.root },
          },
          transcript: true,
        })
        for await (const event of run) view.onEvent(event)
        return await run.result
      } finally {
        signal.removeEventListener('abort', abort)
        onPromptInterrupt = () => {}
      }
    },
    exitCode(result, interrupted) {
      if (result.reason === 'completed') return EXIT.ok
      if (interrupted || result.reason === 'aborted') return EXIT.interrupted
      // The server does not speak the protocol asked for: the configuration is wrong, not the task.
      if (result.failure?.source === 'provider' && result.failure.kind === 'protocol') return EXIT.config
      return EXIT.failed
    },
    summary(code) {
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
    },
    async close() {
      screen.dispose()
      await session.runtime.dispose().catch(() => undefined)
      sink.close()
    },
  }
}

/** One task in a fresh session, with SIGINT (io.interrupt) aborting it, then the summary. */
export async function drive(o: DriveOptions): Promise<DriveResult> {
  const opened = await openSession(o)
  if (typeof opened === 'number') return { code: opened, stats: emptyStats() }
  const { io } = o
  const controller = new AbortController()
  let interrupted = false
  const interrupt = () => {
    interrupted = true
    controller.abort(new Error('interrupted by the user (SIGINT)'))
  }
  if (io.interrupt?.aborted) interrupt()
  io.interrupt?.addEventListener('abort', interrupt, { once: true })
  let code: ExitCode
  try {
    const result = await opened.task(o.messages, controller.signal)
    code = opened.exitCode(result, interrupted)
  } finally {
    io.interrupt?.removeEventListener('abort', interrupt)
    await opened.close()
  }
  opened.summary(code)
  return { code, stats: opened.view.stats }
}

function emptyStats(): RunStats {
  return { calls: 0, outcomes: new Map(), toolMs: 0, approvalsAsked: 0, approvals: new Map(), turns: 0 }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
