// `toolgate replay <session.jsonl>`: show a session from the log alone — the conversation (the
// user's messages, the model's text, context compactions, preset changes), the cards, and who
// approved each call (a person at the prompt, --yes, the demo policy, or the permission policy
// without asking). The cards are
// recomputed from the built-in tools' pure presentCall / presentResult with the logged arguments
// and result (seed 000: presenters are pure so a replay prints what the live run printed); a tool
// the CLI does not know gets the generic card. The log is read as a stream and rendered as it is
// read: memory holds the calls still waiting for their result, never the whole log. A line that is
// not a session event (a crash tore it) is skipped and reported on stderr with its number.
import { resolve } from 'node:path'
import type { JsonValue, ToolCallView, ToolResult } from '@toolgate/core'
import { readSessionEntries, SessionLogError, type SessionLogIssue } from '@toolgate/core/node'
import type { Usage } from '@toolgate/providers'
import type { ParsedArgs } from '../args.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { renderCallCard, renderResultCard } from '../render/cards.js'
import { colorEnabled, createStyle, type Style } from '../render/colors.js'
import { requestCost } from '../render/pricing.js'
import { emptyStats, formatTokens, type RunStats, renderSummary } from '../render/run-view.js'
import { terminalSafe } from '../render/terminal-text.js'
import { builtinCardSource } from '../wiring.js'

/** Skipped lines reported one by one; past this only their count (a damaged file stays readable). */
const NOTICES = 20

export async function replayCommand(parsed: ParsedArgs, io: CliIO): Promise<ExitCode> {
  const path = resolve(io.cwd, parsed.positionals[0]!)
  const style = createStyle(colorEnabled(io.stdout, io.env))
  const width = Math.max(40, (io.stdout.isTTY ? io.stdout.columns : undefined) ?? 160)
  const cards = await builtinCardSource(io.cwd)
  const calls = new Map<string, { name: string; args: JsonValue | { raw: string }; view?: ToolCallView }>()
  const stats: RunStats = emptyStats()
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)
  const out = (text: string) => io.stdout.write(text)
  const fail = (message: string) => {
    io.stderr.write(`toolgate replay: ${terminalSafe(message)}\n`)
    return EXIT.config
  }

  // Sub-calls of run_code programs are not model-level calls: the live view shows only their
  // run_code card, so the replay counts them apart and shows no card of their own.
  const subCalls = new Set<string>()
  let subCallCount = 0
  // Who decided about each pending call: the permission engine's step, and who answered an ask.
  const decided = new Map<string, { decision: string; step: string; detail?: string }>()
  const answered = new Map<string, { by: string; answer: string }>()
  let model = ''
  let events = 0
  const notices: SessionLogIssue[] = []
  let skipped = 0
  let started = false
  try {
    for await (const entry of readSessionEntries(path, io.interrupt ? { signal: io.interrupt } : {})) {
      if (entry.kind === 'issue') {
        skipped++
        if (notices.length < NOTICES) notices.push(entry.issue)
        continue
      }
      if (!started) {
        // The header waits for the first event, so a missing file or one that is not a session
        // log prints nothing on stdout.
        started = true
        out(`${style.bold('toolgate replay')} ${style.dim(terminalSafe(path))}\n\n`)
      }
      events++
      const event = entry.event
      const callId = String(event.callId)
      if (event.type === 'tool/call' || event.type === 'tool/result') {
        if (subCalls.has(callId)) {
          if (event.type === 'tool/result') subCalls.delete(callId)
          continue
        }
      }
      switch (event.type) {
        case 'tool/call': {
          if (typeof event.parentCallId === 'string') {
            subCalls.add(callId)
            subCallCount++
            continue
          }
          const name = typeof event.name === 'string' ? event.name : '?'
          const args: JsonValue | { raw: string } =
            'arguments' in event
              ? (event.arguments as JsonValue)
              : { raw: typeof event.argumentsText === 'string' ? event.argumentsText : '' }
          await cards.prepare(name)
          const view = isRaw(args) ? undefined : cards.call(name, args)
          calls.set(callId, { name, args, ...(view ? { view } : {}) })
          out(renderCallCard({ name, args, ...(view ? { view } : {}) }, style, { width }))
          break
        }
        case 'tool/result': {
          const result = event as unknown as ToolResult
          const call = calls.get(callId) ?? { name: String(event.name), args: { raw: '' } }
          calls.delete(callId) // settled: its card is printed, nothing refers to it again
          const resultView = isRaw(call.args) ? undefined : cards.result(call.name, call.args, result)
          out(renderResultCard({ ...call, result, ...(resultView ? { resultView } : {}) }, style, { width }))
          // Who let it run (or not), when the permission engine decided without asking.
          const policy = decided.get(callId)
          decided.delete(callId)
          if (policy && policy.decision !== 'ask')
            out(
              style.dim(
                `  · ${policy.decision === 'allow' ? 'allowed' : 'denied'} by policy: ${terminalSafe(STEP_TEXT[policy.step] ?? policy.step)}${policy.detail ? ` ${terminalSafe(policy.detail)}` : ''}\n`,
              ),
            )
          stats.calls++
          bump(stats.outcomes, result.isError ? (result.error?.kind ?? 'error') : 'ok')
          const ms = result.timing?.durationMs ?? 0
          stats.toolMs += ms
          if (!stats.slowest || ms > stats.slowest.ms) stats.slowest = { name: call.name, callId, ms }
          break
        }
        case 'approval/asked':
          stats.approvalsAsked++
          out(
            `  ${style.yellow('?')} ${style.bold('approval')} asked for ${terminalSafe(String(event.toolName))} (${terminalSafe(callId)})${typeof event.displayReason === 'string' ? `: ${terminalSafe(event.displayReason)}` : ''}\n`,
          )
          break
        case 'approval/decided': {
          bump(stats.approvals, String(event.outcome))
          const who = answered.get(callId)
          answered.delete(callId)
          out(
            `  ${event.outcome === 'allowed-once' ? style.green('✓') : style.red('✗')} ${style.bold('approval')} ${terminalSafe(String(event.outcome))}${who ? ` by ${terminalSafe(whoText(who))}` : ''} (${terminalSafe(callId)})\n`,
          )
          break
        }
        case 'permission/decided':
          if (typeof event.decision === 'string' && typeof event.step === 'string')
            decided.set(callId, {
              decision: event.decision,
              step: event.step,
              ...(typeof event.rule === 'string'
                ? { detail: event.rule }
                : typeof event.protectedPattern === 'string'
                  ? { detail: event.protectedPattern }
                  : {}),
            })
          break
        case 'cli/approval':
          answered.set(callId, { by: String(event.by), answer: String(event.answer) })
          break
        case 'session/start':
          model = typeof event.model === 'string' ? event.model : ''
          out(
            style.dim(
              `── ${terminalSafe([`toolgate ${String(event.version)}`, `${String(event.provider)} ${model}`, `preset ${String(event.preset)}`, String(event.root)].join(' · '))}${typeof event.resumedFrom === 'string' ? ` (continues ${terminalSafe(event.resumedFrom)})` : ''}\n`,
            ),
          )
          break
        case 'session/preset':
          out(style.dim(`· preset ${terminalSafe(String(event.preset))} from here on\n`))
          break
        case 'session/clear':
          out(style.dim('· conversation cleared\n'))
          break
        case 'agent/elided':
        case 'agent/compacted':
          out(
            style.dim(
              `· context ${event.type === 'agent/elided' ? 'elided old tool results' : 'compacted: older turns summarized'} (~${formatTokens(Number(event.before))} → ~${formatTokens(Number(event.after))} tokens)\n`,
            ),
          )
          break
        case 'agent/usage':
          countUsage(stats, model, event.usage)
          break
        case 'agent/message':
          out(conversationText(event.message, style))
          break
        default:
          break
      }
    }
  } catch (error) {
    if (io.interrupt?.aborted && error === io.interrupt.reason) return EXIT.interrupted
    return fail(error instanceof SessionLogError ? error.message : `cannot read ${path}: ${String(error)}`)
  }
  if (events === 0 && skipped > 0)
    return fail(
      `${path} has no session event (${skipped} ${skipped === 1 ? 'line is' : 'lines are'} not session events); it is not a session log.`,
    )
  if (!started) out(`${style.bold('toolgate replay')} ${style.dim(terminalSafe(path))}\n\n`)
  const extra: [string, string][] = [['events', String(events)]]
  if (subCallCount > 0) extra.push(['sub-calls', `${subCallCount} inside run_code programs`])
  out(`\n${renderSummary({ stats, extra }, style)}`)
  for (const issue of notices) io.stderr.write(`toolgate replay: notice: ${noticeText(issue)}\n`)
  if (skipped > notices.length)
    io.stderr.write(`toolgate replay: notice: ${skipped - notices.length} more lines were skipped.\n`)
  return EXIT.ok
}

/** The permission engine's decision steps, in words (policy README). */
const STEP_TEXT: Readonly<Record<string, string>> = {
  'deny-rule': 'a deny rule',
  'protected-path': 'a protected path',
  'workspace-boundary': 'the workspace boundary',
  'ask-rule': 'an ask rule',
  'session-grant': 'a grant for this session',
  'allow-rule': 'an allow rule',
  'mode-default': "the preset's defaults",
  fallback: 'the fallback for unknown tools',
}

function whoText(who: { by: string; answer: string }): string {
  return who.by === 'user' ? `the user at the prompt (${who.answer})` : who.by
}

/** A logged message as the conversation shows it: the user's words, the model's text. */
function conversationText(message: JsonValue | undefined, style: Style): string {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return ''
  const m = message as { role?: unknown; content?: unknown; parts?: unknown }
  const texts = (blocks: unknown) =>
    (Array.isArray(blocks) ? blocks : [])
      .map((b) =>
        typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text'
          ? String((b as { text?: unknown }).text ?? '')
          : '',
      )
      .join('\n')
  if (m.role === 'user') {
    const text = texts(m.content)
    if (text.startsWith('<system-reminder'))
      return style.dim(
        `· reminder: ${terminalSafe(firstLine(text.replace(/^<system-reminder[^>]*>\n?/, '')))}\n`,
      )
    if (text.startsWith('<conversation-summary>'))
      return style.dim('· the earlier turns were replaced by a summary\n')
    return `${style.bold('›')} ${terminalSafe(text)}\n`
  }
  if (m.role === 'assistant') {
    const parts = Array.isArray(m.parts) ? (m.parts as { type?: unknown; text?: unknown }[]) : []
    const out: string[] = []
    for (const p of parts) {
      if (p.type === 'text' && typeof p.text === 'string' && p.text.trim() !== '')
        out.push(terminalSafe(p.text.trim()))
      if (p.type === 'reasoning' && typeof p.text === 'string' && p.text.trim() !== '')
        out.push(style.dim(terminalSafe(p.text.trim())))
    }
    return out.length === 0 ? '' : `${out.join('\n')}\n`
  }
  return ''
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? ''
  return line.length > 160 ? `${line.slice(0, 159)}…` : line
}

function countUsage(stats: RunStats, model: string, usage: JsonValue | undefined): void {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return
  const u = usage as Usage
  const prompt = u.promptTokens ?? u.inputTokens ?? 0
  stats.tokens ??= { prompt: 0, cached: 0, output: 0 }
  stats.tokens.prompt += prompt
  stats.tokens.cached += u.cacheReadTokens ?? 0
  stats.tokens.output += u.outputTokens ?? 0
  const cost = requestCost(model, u)
  if (cost !== undefined) stats.cost = (stats.cost ?? 0) + cost
}

function noticeText(issue: SessionLogIssue): string {
  // The last line torn by a crash is the common case: say it in the words people know.
  return issue.kind === 'torn-tail'
    ? `the last line (${issue.line}) is incomplete — the session was cut off while writing; it was skipped.`
    : issue.message
}

function isRaw(args: JsonValue | { raw: string }): args is { raw: string } {
  return (
    typeof args === 'object' &&
    args !== null &&
    !Array.isArray(args) &&
    'raw' in args &&
    Object.keys(args).length === 1 &&
    typeof args.raw === 'string'
  )
}
