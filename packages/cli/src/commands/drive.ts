// An agent session with terminal output, shared by `demo`, `run` and `chat`: the session (runtime,
// tools, policy, approvals, JSONL log), the event view, the answerers (approvals, ask_user), the
// conversation across tasks, and the summary. `openSession` sets it up; `drive` runs one task in
// it and closes it; `chat` runs many.
//
// The session log is the whole transcript (issue 15 §1): a `session/start` header (version,
// provider, model, preset, root), every user message (logged here) and everything the runs append
// (`transcript: true`), usage per request, elisions and compactions, `/preset` and `/clear`, and
// who answered each approval (`cli/approval`). `--resume`/`--continue` rebuild the history from it.

import {
  type AgentResult,
  actionPayload,
  askUserTool,
  ContextManager,
  type ContextOptions,
  contextWindowOf,
  DEFAULT_OUTPUT_RESERVE,
  HistoryBuilder,
  READ_ONLY_TOOLS,
  runAgent,
  sessionTap,
  taskTool,
} from '@toolgate/agent'
import type { ApprovalAnswerer, ApprovalOutcome, ApprovalRequest, JsonValue } from '@toolgate/core'
import { type JsonlSink, jsonlSink, readSessionEntries, SessionLogError } from '@toolgate/core/node'
import type { Message, ModelClient } from '@toolgate/providers'
import { terminalAskUser } from '../approval/ask-user-prompt.js'
import { type PromptAnswer, terminalAnswerer } from '../approval/prompt.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { colorEnabled, createStyle, type Style } from '../render/colors.js'
import { createScreen, type Screen } from '../render/progress.js'
import { createRunView, type RunStats, type RunView, renderSummary } from '../render/run-view.js'
import { terminalSafe } from '../render/terminal-text.js'
import { withDeadline } from '../session/deadline.js'
import { prepareLog } from '../session/log-file.js'
import { overlapProbe } from '../session/overlap.js'
import { composeSystem } from '../session/policy-options.js'
import { version } from '../version.js'
import { type ApprovalMode, createSession, type Preset, type Session, type SessionSetup } from '../wiring.js'

/** How asks are answered when nobody is at a terminal (or --yes); `by` names who decided, for the log. */
type AutoDecision = (
  request: ApprovalRequest,
  title: string,
) => { outcome: ApprovalOutcome; line: string; by: string }

/** Limits of each task (runAgent options). */
interface TaskLimits {
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
  /**
   * The model, made once the session exists (the demo script depends on whether run_code is
   * there); `log` appends to the session log (e.g. tools a request had to leave out).
   */
  readonly model: (session: {
    readonly codeMode: boolean
    readonly log: (type: string, payload: Record<string, JsonValue>) => void
  }) => ModelClient
  /** For the log's header: the provider name (one name per provider everywhere). */
  readonly provider: string
  readonly root: string
  readonly preset: Preset
  readonly approvalPolicy: ApprovalMode
  readonly logPath: string
  /** Continue the conversation of this log (its history is rebuilt; the log may be `logPath`). */
  readonly resumeFrom?: string
  readonly system?: string
  readonly limits?: TaskLimits
  readonly json: boolean
  readonly codeMode: boolean
  /** Offer the task tool (a sub-agent). Default true. */
  readonly taskTool?: boolean
  /** Passed to the permission engine (see SessionSetup). */
  readonly rules?: SessionSetup['rules']
  readonly isolated?: boolean
  readonly trustSandbox?: boolean
  /** Start the configured MCP servers. */
  readonly mcp?: boolean
  /** Deferred tools are found by the provider's own tool search (the model client uses it too). */
  readonly nativeToolSearch?: boolean
  /** Used instead of the terminal prompt: always (--yes), or when stdin/stdout is not a TTY. */
  readonly auto: AutoDecision
  readonly forceAuto: boolean
  /** Printed before the first task (card mode only); `sandbox` is the session's sandbox line. */
  readonly banner?: (style: Style, session: { readonly sandbox: string }) => string
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
  readonly logPath: string
  /** The conversation so far (what the next task continues). */
  readonly history: readonly Message[]
  readonly preset: Preset
  readonly contextWindow: number
  /** The terminal's width now, in columns (at least 40; 160 off a terminal). */
  width(): number
  /** An approval or ask_user prompt owns the keyboard right now. */
  readonly prompting: boolean
  /** Run one task: `messages` are appended to the conversation (and logged); never rejects. */
  task(messages: readonly Message[], signal: AbortSignal): Promise<AgentResult>
  /** Summarize the older turns now (`/compact`); says what happened. */
  compact(signal: AbortSignal): Promise<string>
  /** Forget the conversation (`/clear`). */
  clear(): void
  /** Another permission preset from the next call on (`/preset`). */
  setPreset(preset: Preset): void
  /** The exit code a finished task maps to. */
  exitCode(result: AgentResult, interrupted: boolean): ExitCode
  /** The closing summary (card mode) or the summary JSON line (--json). */
  summary(code: ExitCode): void
  close(): Promise<void>
}

/**
 * How long building a session may take: the tools, policy, shell parser, sandbox probe and Code Mode
 * are loaded here, in `run` while the early first request is already with the model (README
 * "Start-up"). Minutes would mean something hangs; the run stops with a config error instead.
 */
const SETUP_DEADLINE_MS = 60_000
const SETUP_WHAT = 'loading the tools, policy, shell parser, sandbox probe and Code Mode'

export async function openSession(o: SessionOptions): Promise<DriveSession | ExitCode> {
  const { io } = o
  const out = o.json ? io.stderr : io.stdout
  const style = createStyle(colorEnabled(out, io.env))
  const interactive = io.stdin?.isTTY === true && out.isTTY === true
  const screen: Screen = createScreen(out, style, { progress: out.isTTY === true && !o.json })
  const widthNow = () => Math.max(40, (out.isTTY ? out.columns : undefined) ?? 160)
  const width = widthNow()
  const fail = (message: string): ExitCode => {
    io.stderr.write(`toolgate: ${terminalSafe(message)}\n`)
    return EXIT.config
  }

  // The conversation to continue, read before the log is opened for writing (it may be the same file).
  let history: Message[] = []
  let completed: Message[] = []
  if (o.resumeFrom !== undefined) {
    try {
      const builder = new HistoryBuilder()
      let events = 0
      for await (const entry of readSessionEntries(o.resumeFrom)) {
        if (entry.kind !== 'event') continue
        events++
        builder.push(entry.event)
      }
      if (events === 0) return fail(`${o.resumeFrom} has no session event; it is not a session log.`)
      const rebuilt = builder.finish()
      history = [...rebuilt.messages]
      completed = [...rebuilt.completed]
    } catch (error) {
      return fail(
        error instanceof SessionLogError ? error.message : `cannot read ${o.resumeFrom}: ${describe(error)}`,
      )
    }
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
    session = await withDeadline(
      SETUP_DEADLINE_MS,
      SETUP_WHAT,
      createSession({
        root: o.root,
        preset: o.preset,
        approvalPolicy: o.approvalPolicy,
        sink: tap,
        codeMode: o.codeMode,
        ...(o.rules ? { rules: o.rules } : {}),
        ...(o.isolated ? { isolated: true } : {}),
        ...(o.trustSandbox === false ? { trustSandbox: false } : {}),
        ...(o.mcp ? { mcp: true } : {}),
        // MCP tools are deferred past 10% of the window (the same window context management uses).
        ...(o.limits?.contextWindow !== undefined ? { contextWindowTokens: o.limits.contextWindow } : {}),
        ...(o.nativeToolSearch ? { nativeToolSearch: true } : {}),
        plugins: [probe.plugin],
      }),
    )
  } catch (error) {
    sink.close()
    return fail(`could not set up the session: ${describe(error)}`)
  }
  for (const gap of session.gaps) io.stderr.write(`toolgate: note: ${terminalSafe(gap)}\n`)
  const log = (type: string, payload: { readonly [k: string]: JsonValue }) => {
    try {
      session.runtime.session.append(type, payload)
    } catch {
      // The log is a record; a failing write never stops the session.
    }
  }
  const model = o.model({ codeMode: session.codeMode, log })
  let preset = o.preset
  log('session/start', {
    version: version(),
    provider: o.provider,
    model: model.model,
    preset,
    root: o.root,
    ...(o.resumeFrom === undefined ? {} : { resumedFrom: o.resumeFrom, messages: history.length }),
  })
  // Calls that never got a result (the process died while they ran) get one now, in the log too.
  for (const m of completed) log('agent/message', { message: m as unknown as JsonValue })

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
  let prompting = 0
  const owning = async <T>(fn: () => Promise<T>): Promise<T> => {
    prompting++
    try {
      return await fn()
    } finally {
      prompting--
    }
  }
  let answerer: ApprovalAnswerer
  const terminal = interactive && !o.forceAuto
  if (terminal) {
    const prompt = terminalAnswerer({
      stdin: io.stdin!,
      screen,
      style,
      describe: (request) => {
        const d = session.policy.describe(request)
        return {
          title: title(request),
          // The reason quotes the model's command: the prompt shows it with `visible`, like the subject.
          ...(d.reason ? { reason: d.reason } : {}),
          ...(d.subject !== undefined ? { subject: d.subject } : {}),
          offerSession: d.offerSession,
        }
      },
      grantSession: (request) => session.policy.grantSession(request),
      onInterrupt: () => onPromptInterrupt(),
      onAnswer: (request, answer) =>
        log('cli/approval', { callId: request.callId, by: 'user', answer: ANSWER_TEXT[answer] }),
    })
    answerer = async (request) => {
      await settleScreen()
      return owning(async () => prompt(request))
    }
  } else {
    answerer = async (request) => {
      await settleScreen()
      const decided = o.auto(request, title(request))
      const mark = decided.outcome === 'allowed-once' ? style.green('✓') : style.red('✗')
      screen.print(`  ${mark} ${style.bold('approval')} ${title(request)}: ${decided.line}\n`)
      log('cli/approval', { callId: request.callId, by: decided.by, answer: decided.outcome })
      return decided.outcome
    }
  }
  session.approval.answer(answerer)

  // ask_user: a person answers at a terminal; headless, the model is told to decide itself.
  const ask =
    terminal && io.terminalOutput
      ? terminalAskUser({ stdin: io.stdin!, output: io.terminalOutput, screen, style })
      : undefined
  session.runtime.use(askUserTool(ask ? { ask: (q, signal) => owning(() => ask(q, signal)) } : {}))

  const limits = o.limits ?? {}
  const contextWindow = limits.contextWindow ?? contextWindowOf(model.model)
  const context: ContextOptions = { window: contextWindow, spill: { dir: session.spill, root: o.root } }
  const request = limits.maxTokens !== undefined ? { request: { maxTokens: limits.maxTokens } } : {}
  if (o.taskTool !== false) {
    session.runtime.use(
      taskTool({
        model,
        allowTools: [...READ_ONLY_TOOLS, 'bash', 'edit', 'write'],
        defaultTools: READ_ONLY_TOOLS,
        resultBudget: { spillDir: session.spill.dir, root: o.root },
        context,
        ...request,
      }),
    )
  }

  if (!o.json && o.banner) screen.print(o.banner(style, session))
  // MCP servers: every state at start, then a line whenever one changes between turns (a server
  // that dies mid-session is reported, and logged as mcp/server by the manager).
  const mcp = session.mcp
  const note = (lines: readonly string[]) => {
    // In --json mode the screen writes to stderr (stdout is for events).
    if (lines.length > 0) screen.print(`${lines.join('\n')}\n`)
  }
  if (mcp) note(mcp.banner())
  // With run_code available the model also needs the SDK declaration of what it can call.
  // The rules in force come first, so the model does not spend calls discovering them (issue 17).
  const system = composeSystem([o.system, session.policy.promptText(), session.codePrompt])

  return {
    session,
    view,
    screen,
    style,
    model,
    logPath: o.logPath,
    get history() {
      return history
    },
    get preset() {
      return preset
    },
    contextWindow,
    width: widthNow,
    get prompting() {
      return prompting > 0
    },
    async task(messages, signal) {
      // Ctrl-C at an approval prompt interrupts the task it belongs to.
      const controller = new AbortController()
      const abort = () => controller.abort(signal.reason ?? new Error('interrupted by the user'))
      if (signal.aborted) abort()
      signal.addEventListener('abort', abort, { once: true })
      onPromptInterrupt = () => controller.abort(new Error('interrupted at the approval prompt'))
      for (const m of messages) log('agent/message', { message: m as unknown as JsonValue })
      try {
        const run = runAgent({
          model,
          runtime: session.runtime,
          messages: [...history, ...messages],
          ...(system ? { system } : {}),
          signal: controller.signal,
          sessionTap: tap,
          ...(limits.maxTurns !== undefined ? { maxTurns: limits.maxTurns } : {}),
          ...(limits.tokenBudget !== undefined ? { tokenBudget: limits.tokenBudget } : {}),
          ...request,
          ...(limits.promptCache ? { promptCache: limits.promptCache } : {}),
          context,
          transcript: true,
          ...(mcp ? { beforeTurn: () => note(mcp.sync()), deferredTools: mcp.deferred } : {}),
        })
        for await (const event of run) view.onEvent(event)
        const result = await run.result
        history = [...result.messages]
        return result
      } finally {
        signal.removeEventListener('abort', abort)
        onPromptInterrupt = () => {}
      }
    },
    async compact(signal) {
      const manager = new ContextManager(context)
      const work = [...history]
      const actions = await manager.relieve(
        {
          history: work,
          system: system || undefined,
          tools: session.runtime.schemas(),
          maxOutput: limits.maxTokens ?? DEFAULT_OUTPUT_RESERVE,
          model,
          signal,
          ...(limits.promptCache ? { cache: limits.promptCache } : {}),
        },
        true,
      )
      for (const action of actions) log(`agent/${action.kind}`, actionPayload(0, action))
      history = work
      const compacted = actions.find((a) => a.kind === 'compacted')
      if (!compacted) return 'nothing to compact: the conversation is a single turn'
      return compacted.kind === 'compacted' && compacted.failed !== undefined
        ? `the summary failed (${compacted.failed}); the older turns were removed`
        : `~${compacted.before} → ~${compacted.after} tokens (${compacted.kind === 'compacted' ? compacted.summarized : 0} messages summarized)`
    },
    clear() {
      history = []
      log('session/clear', {})
    },
    setPreset(next) {
      session.policy.setPreset(next)
      preset = next
      log('session/preset', { preset: next })
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
      await session.mcp?.dispose().catch(() => undefined)
      await session.runtime.dispose().catch(() => undefined)
      sink.close()
    },
  }
}

const ANSWER_TEXT = {
  once: 'allowed once',
  session: 'allowed for this session',
  reject: 'rejected',
  cancel: 'cancelled',
} as const satisfies Record<PromptAnswer, string>

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
