// The terminal approval answerer (seed 000 step 10: the registry never prompts; an answerer does).
// One key decides: y = allow once, a = allow for this session (only when the permission engine
// offers a session grant), n / Esc = reject, Ctrl-C = cancel and interrupt the run. Prompts are
// serialized: parallel calls that ask wait their turn. The request carries no arguments; the prompt
// names the call by its pending card, which is already on screen (no second copy that could drift).
import type { ApprovalAnswerer, ApprovalOutcome, ApprovalRequest } from '@toolgate/core'
import type { InStream } from '../io.js'
import type { Style } from '../render/colors.js'
import type { Screen } from '../render/progress.js'

export type PromptAnswer = 'once' | 'session' | 'reject' | 'cancel'

export interface AskInfo {
  /** One line naming the call (its card detail), e.g. "bash $ pnpm lint". */
  readonly title: string
  /** Why the policy asks (the engine's displayReason, else the request's). */
  readonly reason?: string
  /** Whether "allow for this session" may be offered. */
  readonly offerSession: boolean
}

export interface TerminalAnswererOptions {
  readonly stdin: InStream
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
    const lines = [`${style.yellow('?')} ${style.bold('Approve')} ${info.title}`]
    if (info.reason) lines.push(`  ${style.dim(info.reason)}`)
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
function readKey(stdin: InStream, signal: AbortSignal, offerSession: boolean): Promise<PromptAnswer> {
  return new Promise((resolve) => {
    const wasRaw = stdin.isRaw === true
    // The interactive session keeps stdin flowing during a turn (Ctrl-C cancels it): leave it so.
    const wasFlowing = (stdin as { readableFlowing?: boolean | null }).readableFlowing === true
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

function assertNever(value: never): never {
  throw new Error(`unexpected answer ${String(value)}`)
}
