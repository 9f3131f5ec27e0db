// `toolgate replay <session.jsonl>`: re-render a session's cards from the log alone. The cards are
// recomputed from the built-in tools' pure presentCall / presentResult with the logged arguments
// and result (seed 000: presenters are pure so a replay prints what the live run printed); a tool
// the CLI does not know gets the generic card.
import { resolve } from 'node:path'
import type { JsonValue, ToolCallView, ToolResult } from '@toolgate/core'
import { readSessionLog, SessionLogError } from '@toolgate/core/node'
import type { CommandSpec, ParsedArgs } from '../args.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { renderCallCard, renderResultCard } from '../render/cards.js'
import { colorEnabled, createStyle } from '../render/colors.js'
import { emptyStats, type RunStats, renderSummary } from '../render/run-view.js'
import { builtinCardSource } from '../wiring.js'

export const replaySpec: CommandSpec = {
  name: 'replay',
  summary: "re-render a session's cards from its JSONL log",
  positionals: [
    { name: 'log', description: 'the session log (a .jsonl file written by demo or run)', required: true },
  ],
  options: [],
  epilog:
    'Exit codes: 0 replayed (a torn last line is reported and skipped), 3 the log is missing or corrupt.',
}

export async function replayCommand(parsed: ParsedArgs, io: CliIO): Promise<ExitCode> {
  const path = resolve(io.cwd, parsed.positionals[0]!)
  let log: ReturnType<typeof readSessionLog>
  try {
    log = readSessionLog(path)
  } catch (error) {
    const message = error instanceof SessionLogError ? error.message : `cannot read ${path}: ${String(error)}`
    io.stderr.write(`toolgate replay: ${message}\n`)
    return EXIT.config
  }
  const style = createStyle(colorEnabled(io.stdout, io.env))
  const width = Math.max(40, (io.stdout.isTTY ? io.stdout.columns : undefined) ?? 160)
  const cards = await builtinCardSource(io.cwd)
  const calls = new Map<string, { name: string; args: JsonValue | { raw: string }; view?: ToolCallView }>()
  const stats: RunStats = emptyStats()
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)
  const out = (text: string) => io.stdout.write(text)

  out(`${style.bold('toolgate replay')} ${style.dim(path)}\n\n`)
  // Sub-calls of run_code programs are not model-level calls: the live view shows only their
  // run_code card, so the replay counts them apart and shows no card of their own.
  const subCalls = new Set<string>()
  for (const event of log.events) {
    if ((event.type === 'tool/call' || event.type === 'tool/result') && subCalls.has(String(event.callId)))
      continue
    switch (event.type) {
      case 'tool/call': {
        if (typeof event.parentCallId === 'string') {
          subCalls.add(String(event.callId))
          continue
        }
        const name = typeof event.name === 'string' ? event.name : '?'
        const callId = String(event.callId)
        const args: JsonValue | { raw: string } =
          'arguments' in event
            ? (event.arguments as JsonValue)
            : { raw: typeof event.argumentsText === 'string' ? event.argumentsText : '' }
        const view = isRaw(args) ? undefined : cards.call(name, args)
        calls.set(callId, { name, args, ...(view ? { view } : {}) })
        out(renderCallCard({ name, args, ...(view ? { view } : {}) }, style, { width }))
        break
      }
      case 'tool/result': {
        const result = event as unknown as ToolResult
        const callId = String(event.callId)
        const call = calls.get(callId) ?? { name: String(event.name), args: { raw: '' } }
        const resultView = isRaw(call.args) ? undefined : cards.result(call.name, call.args, result)
        out(renderResultCard({ ...call, result, ...(resultView ? { resultView } : {}) }, style, { width }))
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
          `  ${style.yellow('?')} ${style.bold('approval')} asked for ${String(event.toolName)} (${String(event.callId)})${typeof event.displayReason === 'string' ? `: ${event.displayReason}` : ''}\n`,
        )
        break
      case 'approval/decided':
        bump(stats.approvals, String(event.outcome))
        out(
          `  ${event.outcome === 'allowed-once' ? style.green('✓') : style.red('✗')} ${style.bold('approval')} ${String(event.outcome)} (${String(event.callId)})\n`,
        )
        break
      default:
        break
    }
  }
  const extra: [string, string][] = [['events', String(log.events.length)]]
  if (subCalls.size > 0) extra.push(['sub-calls', `${subCalls.size} inside run_code programs`])
  out(`\n${renderSummary({ stats, extra }, style)}`)
  if (log.tornTail) {
    io.stderr.write(
      `toolgate replay: notice: the last line (${log.tornTail.line}) is incomplete — the session was cut off while writing; it was skipped.\n`,
    )
  }
  return EXIT.ok
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
