// `toolgate chat` (and `toolgate` with no command on a terminal): an interactive session. A prompt;
// each message is a task in the same conversation (the history carries over, context management
// keeps it inside the window); streamed text, cards and approval prompts as in `run`; a status line
// after each turn (render/status-line.ts: model, tokens used of the window, cost when known, MCP
// servers still starting). Ctrl-C cancels the running turn (every call still gets its result; the
// session goes on); Ctrl-C twice, or Ctrl-D, leaves.
import type { ParsedArgs } from '../args.js'
import { lineReader } from '../chat/line-reader.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { formatCost } from '../render/pricing.js'
import { formatTokens } from '../render/run-view.js'
import { renderStatusLine } from '../render/status-line.js'
import { terminalSafe } from '../render/terminal-text.js'
import type { Preset } from '../wiring.js'
import { type DriveSession, openSession } from './drive.js'
import { modelSession } from './run.js'

const PRESETS = ['read-only', 'workspace-write', 'danger-full-access'] as const

export const SLASH_HELP = [
  '/help             this list',
  '/compact          summarize the older turns now (frees context)',
  '/clear            start a new conversation (the log keeps the old one)',
  '/cost             tokens and cost so far',
  '/tools            the tools the agent can call',
  '/preset <name>    read-only | workspace-write | danger-full-access, from the next call on',
  '/log              where the session log is',
  '/exit             leave (also Ctrl-D, or Ctrl-C twice)',
].join('\n')

export async function chatCommand(parsed: ParsedArgs, io: CliIO): Promise<ExitCode> {
  const setup = modelSession('chat', parsed, io)
  if (!setup.ok) {
    io.stderr.write(`toolgate chat: ${setup.message}\n`)
    return setup.code
  }
  if (io.stdin === undefined) {
    io.stderr.write(
      'toolgate chat: there is no standard input to read messages from; use toolgate run "<task>".\n',
    )
    return EXIT.usage
  }
  const maybe = await openSession({ ...setup.options, io, json: false })
  if (typeof maybe === 'number') return maybe
  const opened: DriveSession = maybe
  const { style, screen } = opened
  const out = (text: string) => screen.print(text)
  const tty = io.stdin.isTTY === true && io.stdout.isTTY === true
  const reader = lineReader(io.stdin, tty ? io.terminalOutput : undefined, out)

  // Ctrl-C is ours now: the process keeps running, a turn is cancelled instead.
  let onCtrlC: () => void = () => {}
  const release = io.interrupts?.claim(() => onCtrlC())
  if (opened.history.length > 0)
    out(
      style.dim(
        `continuing ${terminalSafe(setup.options.resumeFrom ?? '')}: ${opened.history.length} messages\n`,
      ),
    )
  out(
    style.dim(
      'Type a message and press Enter. /help lists the commands; Ctrl-C cancels a turn, Ctrl-D leaves.\n\n',
    ),
  )

  let code: ExitCode = EXIT.ok
  let pendingExit = false
  try {
    for (;;) {
      const event = await reader.read(`${style.bold('›')} `)
      if (event.kind === 'eof') break
      if (event.kind === 'interrupt') {
        if (event.hadText) {
          pendingExit = false
          continue
        }
        if (pendingExit) {
          code = EXIT.interrupted
          break
        }
        pendingExit = true
        out(style.dim('(press Ctrl-C again or Ctrl-D to leave)\n'))
        continue
      }
      pendingExit = false
      const text = event.text.trim()
      if (text === '') continue
      if (text.startsWith('/')) {
        const leave = await slash(text, opened, out)
        if (leave) break
        continue
      }
      const left = await turn(text)
      if (left) {
        code = EXIT.interrupted
        break
      }
    }
  } finally {
    release?.()
    reader.close()
    await opened.close()
  }
  opened.summary(code)
  return code

  /** One task; true when the user asked to leave (Ctrl-C twice) while it ran. */
  async function turn(text: string): Promise<boolean> {
    const controller = new AbortController()
    let presses = 0
    const cancel = () => {
      presses++
      if (presses === 1) {
        out(
          style.dim('\n(cancelling the turn — every running call gets its result; Ctrl-C again to leave)\n'),
        )
        controller.abort(new Error('cancelled by the user (Ctrl-C)'))
      }
    }
    onCtrlC = cancel
    // On a terminal, keys arrive raw while the turn runs: Ctrl-C is a byte here, not a signal.
    const onKey = (chunk: Buffer | string) => {
      if (opened.prompting) return // an approval or ask_user prompt owns the keyboard
      if ((typeof chunk === 'string' ? chunk : chunk.toString('latin1')).includes('\x03')) cancel()
    }
    const stdin = io.stdin!
    if (tty) {
      stdin.setRawMode?.(true)
      stdin.on('data', onKey)
      stdin.resume()
    }
    try {
      const result = await opened.task(
        [{ role: 'user', content: [{ type: 'text', text }] }],
        controller.signal,
      )
      status(result.reason === 'completed' ? undefined : result.reason)
    } finally {
      onCtrlC = () => {}
      if (tty) {
        stdin.off('data', onKey)
        stdin.setRawMode?.(false)
        stdin.pause()
      }
    }
    return presses > 1
  }

  function status(ended: string | undefined): void {
    const s = opened.view.stats
    const line = renderStatusLine(
      {
        model: opened.model.model,
        contextTokens: s.context,
        contextWindow: opened.contextWindow,
        ...(s.cost === undefined ? {} : { cost: s.cost }),
        preset: opened.preset,
        ...(opened.session.mcp ? { mcp: opened.session.mcp.pending() } : {}),
        ...(ended ? { ended } : {}),
      },
      style,
      opened.width(),
    )
    out(`${line}\n\n`)
  }
}

/** A slash command; true to leave the session. */
async function slash(text: string, opened: DriveSession, out: (text: string) => void): Promise<boolean> {
  const { style } = opened
  const [command, ...args] = text.split(/\s+/)
  switch (command) {
    case '/help':
      out(`${SLASH_HELP}\n`)
      return false
    case '/exit':
    case '/quit':
      return true
    case '/log':
      out(`${terminalSafe(opened.logPath)}\n`)
      return false
    case '/clear':
      opened.clear()
      out(style.dim('conversation cleared; the log keeps it\n'))
      return false
    case '/cost': {
      const s = opened.view.stats
      const t = s.tokens
      out(
        t
          ? `${formatTokens(t.prompt)} tokens in${t.cached > 0 ? ` (${formatTokens(t.cached)} from cache)` : ''}, ${formatTokens(t.output)} out${s.cost === undefined ? ' (no price known for this model)' : `, ${formatCost(s.cost)}`}\n`
          : s.turns === 0
            ? 'no model request yet\n'
            : `${s.turns} model ${s.turns === 1 ? 'request' : 'requests'}; the server reported no token usage, so no cost is known\n`,
      )
      return false
    }
    case '/tools':
      for (const tool of opened.session.runtime.schemas())
        out(
          `${style.bold(terminalSafe(tool.name).padEnd(12))} ${terminalSafe(firstSentence(tool.description))}\n`,
        )
      return false
    case '/preset': {
      const name = args[0]
      if (name === undefined || !(PRESETS as readonly string[]).includes(name)) {
        out(`usage: /preset ${PRESETS.join(' | ')} (now ${opened.preset})\n`)
        return false
      }
      opened.setPreset(name as Preset)
      out(style.dim(`preset ${name} from the next call on\n`))
      return false
    }
    case '/compact': {
      const controller = new AbortController()
      out(style.dim('compacting…\n'))
      try {
        out(style.dim(`compacted: ${terminalSafe(await opened.compact(controller.signal))}\n`))
      } catch (error) {
        out(`compaction failed: ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`)
      }
      return false
    }
    default:
      out(`unknown command ${terminalSafe(command ?? '')}; /help lists them\n`)
      return false
  }
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/)
  return end === -1 ? text : text.slice(0, end + 1)
}
