// Turns an agent run's event stream into terminal output (cards, the model's text) or, with --json,
// into one JSON event per line; and keeps the numbers the closing summary prints.

import type { AgentEvent } from '@toolgate/agent'
import { assertNever, type JsonValue } from '@toolgate/core'
import type { OutStream } from '../io.js'
import { callDetail, formatDuration, renderCallCard, renderResultCard } from './cards.js'
import type { Style } from './colors.js'
import { formatCost, requestCost } from './pricing.js'
import type { Screen } from './progress.js'
import { jsonLine, terminalSafe } from './terminal-text.js'

export interface RunStats {
  calls: number
  /** 'ok' or a failure kind -> count. */
  readonly outcomes: Map<string, number>
  toolMs: number
  slowest?: { name: string; callId: string; ms: number }
  approvalsAsked: number
  /** Approval outcome -> count. */
  readonly approvals: Map<string, number>
  turns: number
  done?: Extract<AgentEvent, { type: 'done' }>
  /** Tokens over every task of the session, as the provider reported them. */
  tokens?: { prompt: number; cached: number; output: number }
  /** How full the context was at the last request (its prompt + output tokens). */
  context?: number
  /** USD so far, when the model's price is known (render/pricing.ts). */
  cost?: number
}

export interface RunViewOptions {
  readonly screen: Screen
  readonly style: Style
  readonly width: number
  /** --json: events go here, one per line, instead of cards. */
  readonly json?: OutStream
  /** Whether a call overlapped another one (from the concurrency probe). */
  readonly parallel?: (callId: string) => boolean
  /** Print the model's text as it streams (a terminal), instead of a paragraph at a time. */
  readonly streamText?: boolean
  /** Shown in the progress line while the model has not answered yet. */
  readonly modelName?: string
}

export interface RunView {
  onEvent(event: AgentEvent): void
  /** One line naming a call, for the approval prompt. */
  describe(callId: string): string | undefined
  readonly stats: RunStats
}

/** Fresh counters for a run's summary (live or replayed). */
export function emptyStats(): RunStats {
  return { calls: 0, outcomes: new Map(), toolMs: 0, approvalsAsked: 0, approvals: new Map(), turns: 0 }
}

export function createRunView(options: RunViewOptions): RunView {
  const { screen, style, width } = options
  const stats = emptyStats()
  const calls = new Map<
    string,
    {
      name: string
      args: JsonValue | { raw: string }
      view?: Extract<AgentEvent, { type: 'tool-call' }>['view']
    }
  >()
  let text = ''
  let textKind: 'text' | 'reasoning' = 'text'
  /** Streamed text left the cursor mid-line. */
  let midLine = false
  /** The progress key of the model request being waited for, if any. */
  let waiting: string | undefined

  const stopWaiting = () => {
    if (waiting === undefined) return
    screen.end(waiting)
    waiting = undefined
  }
  const flush = () => {
    if (options.streamText) {
      if (midLine) screen.print('\n')
      midLine = false
      text = ''
      return
    }
    if (text.trim() === '') {
      text = ''
      return
    }
    // The model's text is untrusted: its control sequences are shown, never interpreted.
    const body = terminalSafe(text.replace(/\s+$/, ''))
    screen.print(`${textKind === 'reasoning' ? style.dim(body) : body}\n`)
    text = ''
  }
  const stream = (kind: 'text' | 'reasoning', delta: string) => {
    // Leading blank lines of a reply are noise on a terminal.
    const shown = midLine || text !== '' ? delta : delta.replace(/^\s+/, '')
    text += delta
    if (shown === '') return
    const safe = terminalSafe(shown)
    screen.print(kind === 'reasoning' ? style.dim(safe) : safe)
    midLine = !shown.endsWith('\n')
  }
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

  const record = (event: AgentEvent) => {
    switch (event.type) {
      case 'turn-start':
        stats.turns++
        return
      case 'tool-result': {
        const r = event.result
        stats.calls++
        bump(stats.outcomes, r.isError ? (r.error?.kind ?? 'error') : 'ok')
        stats.toolMs += r.timing.durationMs
        if (!stats.slowest || r.timing.durationMs > stats.slowest.ms) {
          stats.slowest = { name: r.name, callId: r.callId, ms: r.timing.durationMs }
        }
        return
      }
      case 'approval':
        if (event.phase === 'asked') stats.approvalsAsked++
        else bump(stats.approvals, event.outcome ?? 'unknown')
        return
      case 'turn-end': {
        const u = event.usage
        if (u === undefined) return
        stats.context = (u.promptTokens ?? u.inputTokens ?? 0) + (u.outputTokens ?? 0)
        const cost = options.modelName === undefined ? undefined : requestCost(options.modelName, u)
        if (cost !== undefined) stats.cost = (stats.cost ?? 0) + cost
        return
      }
      case 'done': {
        stats.done = event
        const u = event.usage
        const prompt = u.promptTokens ?? u.inputTokens
        if (prompt + u.outputTokens > 0) {
          stats.tokens ??= { prompt: 0, cached: 0, output: 0 }
          const t = stats.tokens
          t.prompt += prompt
          t.cached += u.cacheReadTokens ?? 0
          t.output += u.outputTokens
        }
        return
      }
      default:
        return
    }
  }

  return {
    stats,
    describe(callId) {
      const call = calls.get(callId)
      return call ? `${terminalSafe(call.name)} ${callDetail(call)}` : undefined
    },
    onEvent(event) {
      record(event)
      if (event.type === 'tool-call') {
        calls.set(event.callId, {
          name: event.name,
          args: parseCallArguments(event.arguments),
          ...(event.view ? { view: event.view } : {}),
        })
      }
      if (options.json) {
        options.json.write(jsonLine(event))
        if (event.type === 'tool-result') calls.delete(event.callId)
        return
      }
      switch (event.type) {
        case 'turn-start':
          flush()
          // A spinner with the elapsed time until the model's first output (terminals only).
          waiting = `model:${event.turn}`
          screen.begin(waiting, `waiting for ${terminalSafe(options.modelName ?? 'the model')}`)
          return
        case 'turn-end':
        case 'reminder':
          stopWaiting()
          flush()
          return
        case 'text-delta':
        case 'reasoning-delta': {
          stopWaiting()
          const kind = event.type === 'text-delta' ? 'text' : 'reasoning'
          if (kind !== textKind) flush()
          textKind = kind
          if (options.streamText) stream(kind, event.text)
          else text += event.text
          return
        }
        case 'tool-call': {
          stopWaiting()
          flush()
          const call = calls.get(event.callId)!
          screen.print(renderCallCard(call, style, { width }))
          screen.begin(event.callId, `${terminalSafe(event.name)} ${callDetail(call)}`)
          return
        }
        case 'tool-result': {
          flush()
          screen.end(event.callId)
          const call = calls.get(event.callId) ?? { name: event.name, args: { raw: '' } }
          calls.delete(event.callId) // settled: nothing asks about it again
          screen.print(
            renderResultCard(
              {
                ...call,
                result: event.result,
                resultView: event.view,
                parallel: options.parallel?.(event.callId) === true,
              },
              style,
              { width },
            ),
          )
          return
        }
        case 'approval':
          return
        case 'context':
          stopWaiting()
          flush()
          screen.print(
            style.dim(
              `· context ${event.action === 'elided' ? 'elided old tool results' : 'compacted: older turns summarized'} (~${formatTokens(event.before)} → ~${formatTokens(event.after)} tokens)\n`,
            ),
          )
          return
        case 'done':
          stopWaiting()
          flush()
          if (event.reason !== 'completed') {
            screen.print(
              `${style.red('■')} run ended: ${event.reason}${event.message ? ` — ${terminalSafe(event.message)}` : ''}\n`,
            )
          }
          return
        default:
          return assertNever(event)
      }
    },
  }
}

export interface SummaryInput {
  readonly stats: RunStats
  /** Wall time of the run; absent in a replay (only the logged tool times are known). */
  readonly wallMs?: number
  readonly logPath?: string
  readonly extra?: readonly [string, string][]
}

/** The closing summary: calls by outcome, durations, approvals, the log. Stable order. */
export function renderSummary(input: SummaryInput, style: Style): string {
  const { stats } = input
  const outcomes = [...stats.outcomes.entries()].sort(([a], [b]) =>
    a === 'ok' ? -1 : b === 'ok' ? 1 : a.localeCompare(b),
  )
  const rows: [string, string][] = [
    [
      'calls',
      `${stats.calls}${outcomes.length ? `: ${outcomes.map(([k, n]) => `${n} ${k}`).join(', ')}` : ''}`,
    ],
    [
      'time',
      `${input.wallMs === undefined ? '' : `${formatDuration(input.wallMs)} wall, ${stats.turns} ${stats.turns === 1 ? 'turn' : 'turns'}; `}tools ${formatDuration(stats.toolMs)} in total${
        stats.slowest ? `, slowest ${stats.slowest.name} ${formatDuration(stats.slowest.ms)}` : ''
      }`,
    ],
    [
      'approvals',
      stats.approvalsAsked === 0
        ? 'none asked'
        : `${stats.approvalsAsked} asked: ${
            [...stats.approvals.entries()]
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, n]) => `${n} ${k}`)
              .join(', ') || 'none answered'
          }`,
    ],
    ...(stats.tokens
      ? ([
          [
            'tokens',
            `${formatTokens(stats.tokens.prompt)} in${stats.tokens.cached > 0 ? ` (${formatTokens(stats.tokens.cached)} from cache)` : ''}, ${formatTokens(stats.tokens.output)} out${stats.cost === undefined ? '' : `, ${formatCost(stats.cost)}`}`,
          ],
        ] as [string, string][])
      : []),
    ...(input.extra ?? []),
    ...(input.logPath ? ([['log', input.logPath]] as [string, string][]) : []),
  ]
  // Tool names and outcomes come from the model or a log file: terminal-safe like everything else.
  const lines = [
    style.bold('Summary'),
    ...rows.map(([k, v]) => `  ${style.dim(terminalSafe(k).padEnd(10))}${terminalSafe(v)}`),
  ]
  return `${lines.join('\n')}\n`
}

function parseCallArguments(text: string): JsonValue | { raw: string } {
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return { raw: text }
  }
}

/** 12.3k, 1.2M: token counts for people. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n))
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}
