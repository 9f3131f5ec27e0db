// The terminal approval answerer (seed 000 step 10: the registry never prompts; an answerer does).
// One key decides: y = allow once, a = allow for this session (only when the permission engine
// offers a session grant), n / Esc = reject, Ctrl-C = cancel and interrupt the run. Prompts are
// serialized: parallel calls that ask wait their turn. The prompt names the call by its pending
// card, then shows what is approved in full (issue 12 §7): the whole command, with control
// characters, invisible and bidirectional format characters and long runs of blanks made visible
// (a carriage return, an escape sequence or 150 spaces must not hide `| sh`), never cut short
// without saying so, and every reason the policy gave.
import {
  type ApprovalAnswerer,
  type ApprovalOutcome,
  type ApprovalRequest,
  assertNever,
} from '@toolgate/core'
import type { Style } from '../render/colors.js'
import type { Screen } from '../render/progress.js'
import { visible } from '../render/terminal-text.js'

export type PromptAnswer = 'once' | 'session' | 'reject' | 'cancel'

interface AskInfo {
  /** One line naming the call (its card detail), e.g. "bash $ pnpm lint". */
  readonly title: string
  /** What is approved, whole: the bash command, or the call's arguments as JSON. */
  readonly subject?: string
  /** Why the policy asks (the engine's displayReason, else the request's). */
  readonly reason?: string
  /** Whether "allow for this session" may be offered. */
  readonly offerSession: boolean
}

/** What the prompt needs of stdin: raw keys, flowing or paused. */
interface KeyInput {
  readonly isRaw?: boolean
  readonly readableFlowing?: boolean | null
  setRawMode?(raw: boolean): unknown
  resume(): unknown
  pause(): unknown
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown
}

export interface TerminalAnswererOptions {
  readonly stdin: KeyInput
  readonly screen: Screen
  readonly style: Style
  describe(request: ApprovalRequest): AskInfo
  /** Remember the approval for the session (permission engine grant); false when refused. */
  grantSession?(request: ApprovalRequest): { ok: true; note: string } | { ok: false; reason: string }
  /** Ctrl-C at the prompt: interrupt the whole run. */
  onInterrupt?(): void
  /** Told how each prompt was answered (the session log records who approved what). */
  onAnswer?(request: ApprovalRequest, answer: PromptAnswer): void
}

export function terminalAnswerer(options: TerminalAnswererOptions): ApprovalAnswerer {
  const { screen, style } = options
  let queue: Promise<unknown> = Promise.resolve()
  return (request) => {
    const turn = queue.then(() => ask(request))
    queue = turn.catch(() => undefined)
    return turn
  }

  async function ask(request: ApprovalRequest): Promise<ApprovalOutcome> {
    if (request.signal.aborted) return 'cancelled'
    const info = options.describe(request)
    const offerSession = info.offerSession && options.grantSession !== undefined
    const keys = [
      `${style.bold('y')} allow once`,
      ...(offerSession ? [`${style.bold('a')} allow for this session`] : []),
      `${style.bold('n')} reject`,
    ]
    screen.pause()
    const lines = [`${style.yellow('?')} ${style.bold('Approve')} ${visible(info.title, style).text}`]
    if (info.subject !== undefined) {
      const shown = visible(info.subject, style)
      for (const line of shown.text.split('\n')) lines.push(`  ${style.dim('│')} ${line}`)
      if (shown.omitted > 0)
        lines.push(
          `  ${style.yellow(`… ${shown.omitted.toLocaleString('en-US')} more characters not shown (the session log has the whole call)`)}`,
        )
    }
    if (info.reason) lines.push(`  ${style.dim(visible(info.reason, style).text)}`)
    screen.print(`${lines.join('\n')}\n  ${keys.join('  ')} ${style.dim('›')} `)
    const answer = await readKey(options.stdin, request.signal, offerSession)
    let outcome: ApprovalOutcome
    let said: string
    switch (answer) {
      case 'once':
        outcome = 'allowed-once'
        said = style.green('allowed once')
        break
      case 'session': {
        const granted = options.grantSession!(request)
        outcome = 'allowed-once'
        said = granted.ok
          ? style.green(`allowed for this session (${granted.note})`)
          : style.green(`allowed once (no session grant: ${granted.reason})`)
        break
      }
      case 'reject':
        outcome = 'rejected'
        said = style.red('rejected')
        break
      case 'cancel':
        outcome = 'cancelled'
        said = style.red('cancelled')
        break
      default:
        return assertNever(answer)
    }
    screen.print(`${said}\n`)
    screen.resume()
    options.onAnswer?.(request, answer)
    if (answer === 'cancel' && !request.signal.aborted) options.onInterrupt?.()
    return outcome
  }
}

/** Wait for one decisive key in raw mode; the terminal is restored on every path. */
function readKey(stdin: KeyInput, signal: AbortSignal, offerSession: boolean): Promise<PromptAnswer> {
  return new Promise((resolve) => {
    const wasRaw = stdin.isRaw === true
    // The interactive session keeps stdin flowing during a turn (Ctrl-C cancels it): leave it so.
    const wasFlowing = stdin.readableFlowing === true
    stdin.setRawMode?.(true)
    stdin.resume()
    const done = (answer: PromptAnswer) => {
      stdin.off('data', onData)
      signal.removeEventListener('abort', onAbort)
      stdin.setRawMode?.(wasRaw)
      if (!wasFlowing) stdin.pause()
      resolve(answer)
    }
    const onAbort = () => done('cancel')
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8')
      for (const ch of text) {
        const answer = keyAnswer(ch, offerSession)
        if (answer) return done(answer)
      }
    }
    if (signal.aborted) return resolve('cancel')
    signal.addEventListener('abort', onAbort, { once: true })
    stdin.on('data', onData)
  })
}

export function keyAnswer(ch: string, offerSession: boolean): PromptAnswer | undefined {
  switch (ch) {
    case 'y':
    case 'Y':
      return 'once'
    case 'a':
    case 'A':
      return offerSession ? 'session' : undefined
    case 'n':
    case 'N':
    case '\x1b':
      return 'reject'
    case '\x03':
    case '\x04':
      return 'cancel'
    default:
      return undefined
  }
}
