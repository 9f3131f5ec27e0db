// Terminal cards (seed 001 §6.12): a pending card when a call is complete in the stream, a settled
// card when its result is final. Cards are built only from the tool's pure presentCall /
// presentResult views (or a generic fallback), so a live run and a replay of its log print the
// same text. Pure functions: (input, style) -> text; the caller decides where it goes. Every field
// of the input is untrusted (the model names the tool and writes the arguments; tools echo what
// they read): each exported function makes its input terminal-safe first (terminal-text.ts).
import {
  assertNever,
  type ContentBlock,
  type JsonValue,
  type ToolCallView,
  type ToolResultView,
} from '@toolgate/core'
import type { Style } from './colors.js'
import { terminalSafe, terminalSafeDeep } from './terminal-text.js'
import { clipToWidth, wrapToWidth } from './text-width.js'

/** The parts of a ToolResult a card needs (a live result or one read back from a session log). */
export interface ResultLike {
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
  readonly error?: { readonly kind: string; readonly code: string; readonly message: string }
  readonly timing?: { readonly durationMs: number }
}

export interface CallCardInput {
  readonly name: string
  /** The arguments: the parsed JSON value, or the raw text when it did not parse. */
  readonly args: JsonValue | { readonly raw: string }
  readonly view?: ToolCallView | undefined
}

export interface ResultCardInput extends CallCardInput {
  readonly result: ResultLike
  readonly resultView?: ToolResultView | undefined
  /** The call overlapped another call of its batch (it ran in parallel). */
  readonly parallel?: boolean
}

export interface CardOptions {
  /** Longest line; longer lines are cut with "…". Default 160. */
  readonly width?: number
  /** Body lines shown per card before "… n more lines". Default 8 (diffs: 24). */
  readonly maxLines?: number
}

const BAR = '│'

export function renderCallCard(untrusted: CallCardInput, style: Style, options: CardOptions = {}): string {
  const input = safeCall(untrusted)
  const width = options.width ?? 160
  const head = `${style.cyan('▸')} ${style.bold(input.name)} ${callDetail(input)}`
  const lines = [clipToWidth(head, width)]
  if (input.view?.card === 'terminal' && input.view.description) {
    lines.push(clipToWidth(`  ${style.dim(input.view.description)}`, width))
  }
  return `${lines.join('\n')}\n`
}

export function renderResultCard(
  untrusted: ResultCardInput,
  style: Style,
  options: CardOptions = {},
): string {
  const input = safeResult(untrusted)
  const width = options.width ?? 160
  const maxLines = options.maxLines ?? 8
  const { result } = input
  const badges = `${input.parallel ? style.magenta(' ‖ parallel') : ''}${
    result.timing ? style.dim(`  ${formatDuration(result.timing.durationMs)}`) : ''
  }`
  if (result.isError) {
    const code = result.error?.code ?? 'ERROR'
    const message = result.error?.message ?? textOf(result.content)
    const head = `${style.red('✗')} ${style.bold(input.name)} ${callDetail(input)} · ${style.red(code)}${badges}`
    // The reason is the point of an error card: wrap it, never cut it mid-sentence.
    // Wrapped only as far as the card shows (and one line more, so it can say there is more).
    return card(
      head,
      message === '' ? [] : wrapToWidth(message, width - 4, maxLines + 1),
      maxLines,
      width,
      style,
    )
  }
  const view = input.resultView
  const mark = style.green('✓')
  const name = style.bold(input.name)
  if (!view) {
    const text = textOf(result.content)
    return card(
      `${mark} ${name} ${callDetail(input)}${badges}`,
      text === '' ? [] : text.split('\n'),
      4,
      width,
      style,
    )
  }
  switch (view.card) {
    case 'read': {
      const end = view.startLine + view.lines.length - 1
      const range =
        view.lines.length === 0
          ? 'empty'
          : view.lines.length === 1
            ? `line ${view.startLine} of ${view.totalLines}`
            : `lines ${view.startLine}-${end} of ${view.totalLines}`
      const digits = String(Math.max(end, 1)).length
      const body = view.lines.map(
        (line, i) => `${style.dim(String(view.startLine + i).padStart(digits))}  ${line}`,
      )
      return card(`${mark} ${name} ${view.path} · ${range}${badges}`, body, maxLines, width, style)
    }
    case 'search': {
      const matches = view.files.reduce((n, f) => n + (f.count ?? f.matches?.length ?? 0), 0)
      const files = `${view.files.length} ${view.files.length === 1 ? 'file' : 'files'}`
      const detail =
        view.mode === 'paths' ? files : `${files}, ${matches} ${matches === 1 ? 'match' : 'matches'}`
      const body: string[] = []
      for (const f of view.files) {
        body.push(view.mode === 'count' && f.count !== undefined ? `${f.path}: ${f.count}` : f.path)
        for (const m of f.matches ?? []) body.push(`  ${style.dim(`${m.line}:`)} ${m.text}`)
      }
      return card(`${mark} ${name} "${view.query}" · ${detail}${badges}`, body, maxLines, width, style)
    }
    case 'terminal': {
      const exit =
        view.exitCode === null
          ? style.red(`killed${view.signal ? ` by ${view.signal}` : ''}`)
          : view.exitCode === 0
            ? style.green('exit 0')
            : style.yellow(`exit ${view.exitCode}`)
      const output = view.output.replace(/\n$/, '')
      const lines = output === '' ? [style.dim('(no output)')] : output.split('\n')
      // A terminal shows the end of the output: keep the tail.
      const tail =
        lines.length > maxLines
          ? [style.dim(`… ${lines.length - maxLines} earlier lines`), ...lines.slice(-maxLines)]
          : lines
      return card(
        `${mark} ${name} $ ${oneLine(view.command)} · ${exit}${badges}`,
        tail,
        Number.POSITIVE_INFINITY,
        width,
        style,
      )
    }
    case 'diff': {
      const body = view.diff
        .replace(/\n$/, '')
        .split('\n')
        .filter((l) => !l.startsWith('--- ') && !l.startsWith('+++ '))
        .map((l) =>
          l.startsWith('@@')
            ? style.cyan(l)
            : l.startsWith('+')
              ? style.green(l)
              : l.startsWith('-')
                ? style.red(l)
                : l,
        )
      const counts = `${style.green(`+${view.added}`)} ${style.red(`-${view.removed}`)}`
      return card(
        `${mark} ${name} ${view.path} · ${counts}${badges}`,
        body,
        options.maxLines ?? 24,
        width,
        style,
      )
    }
    case 'generic': {
      const summary = view.summary ?? ''
      const [first = '', ...rest] = summary === '' ? [] : summary.split('\n')
      const where = locations(view.locations, view.title)
      return card(
        `${mark} ${name} ${view.title}${first ? ` · ${first}` : ''}${where}${badges}`,
        rest,
        maxLines,
        width,
        style,
      )
    }
    case 'web':
      return card(
        `${mark} ${name} ${view.kind} ${view.url ?? view.title ?? ''}${badges}`,
        [],
        maxLines,
        width,
        style,
      )
    default:
      return assertNever(view)
  }
}

/** One line describing the call, from its call view, else its arguments (terminal-safe). */
export function callDetail(untrusted: CallCardInput): string {
  const input = safeCall(untrusted)
  const view = input.view
  if (!view) return compactArgs(input.args)
  switch (view.card) {
    case 'generic':
      return `${view.title}${locations(view.locations, view.title)}`
    case 'terminal':
      return `$ ${oneLine(view.command)}`
    case 'diff':
      return view.path
    default:
      return assertNever(view)
  }
}

function safeCall<T extends CallCardInput>(input: T): T {
  const name = terminalSafe(input.name)
  const args = terminalSafeDeep(input.args)
  const view = terminalSafeDeep(input.view)
  return name === input.name && args === input.args && view === input.view
    ? input
    : { ...input, name, args, view }
}

/** The fields a result card reads, terminal-safe (the result's value and meta are never printed). */
function safeResult(input: ResultCardInput): ResultCardInput {
  const call = safeCall(input)
  const { result } = input
  const content = terminalSafeDeep(result.content)
  const error = terminalSafeDeep(result.error)
  const resultView = terminalSafeDeep(input.resultView)
  if (
    call === input &&
    content === result.content &&
    error === result.error &&
    resultView === input.resultView
  )
    return input
  return {
    ...call,
    result: { ...result, content, ...(error ? { error } : {}) },
    ...(resultView ? { resultView } : {}),
  }
}

/** " (a.ts:3, b.ts)" — left out when the title already names the only location. */
function locations(list: readonly { path: string; line?: number }[] | undefined, title = ''): string {
  if (!list || list.length === 0) return ''
  if (list.length === 1 && list[0]!.line === undefined && title.includes(list[0]!.path)) return ''
  const shown = list.slice(0, 3).map((l) => (l.line === undefined ? l.path : `${l.path}:${l.line}`))
  return ` (${shown.join(', ')}${list.length > 3 ? `, +${list.length - 3}` : ''})`
}

function compactArgs(args: JsonValue | { readonly raw: string }): string {
  const text = isRaw(args) ? args.raw : JSON.stringify(args)
  return oneLine(text ?? '', 100)
}

function isRaw(args: JsonValue | { readonly raw: string }): args is { readonly raw: string } {
  return (
    typeof args === 'object' &&
    args !== null &&
    !Array.isArray(args) &&
    Object.keys(args).length === 1 &&
    'raw' in args &&
    typeof (args as { raw: unknown }).raw === 'string'
  )
}

function card(
  head: string,
  body: readonly string[] & { cut?: true },
  maxLines: number,
  width: number,
  style: Style,
): string {
  const out = [clipToWidth(head, width)]
  const shown = body.length > maxLines ? body.slice(0, maxLines) : body
  for (const line of shown) out.push(clipToWidth(`  ${style.dim(BAR)} ${line}`, width))
  // A body wrapped only as far as shown cannot count what follows.
  const more = body.cut ? 'more' : `${body.length - shown.length} more lines`
  if (body.length > shown.length || body.cut) out.push(`  ${style.dim(BAR)} ${style.dim(`… ${more}`)}`)
  return `${out.join('\n')}\n`
}

function textOf(content: readonly ContentBlock[]): string {
  return content
    .map((b) => (b.type === 'text' ? b.text : `[image ${b.mediaType}]`))
    .join('\n')
    .replace(/\n$/, '')
}

function oneLine(text: string, max = 120): string {
  return clipToWidth(text.replace(/\s*\n\s*/g, ' ⏎ ').replace(/\t/g, ' '), max)
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
}
