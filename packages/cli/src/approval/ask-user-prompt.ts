// The terminal side of the ask_user tool: the model's question (and its choices, numbered) under
// the call's card, one line of answer. A number picks a choice; anything else is the answer as
// typed; an empty line or Ctrl-C gives no answer (the model is told to decide itself).
import { createInterface } from 'node:readline'
import type { AskUserAnswerer } from '@toolgate/agent'
import type { InStream } from '../io.js'
import type { Style } from '../render/colors.js'
import type { Screen } from '../render/progress.js'
import { terminalSafe } from '../render/terminal-text.js'

export interface AskUserPromptOptions {
  readonly stdin: InStream
  readonly output: NodeJS.WritableStream
  readonly screen: Screen
  readonly style: Style
}

export function terminalAskUser(o: AskUserPromptOptions): AskUserAnswerer {
  let queue: Promise<unknown> = Promise.resolve()
  return (question, signal) => {
    const asked = queue.then(() => ask(question, signal))
    queue = asked.catch(() => undefined)
    return asked
  }

  async function ask(q: Parameters<AskUserAnswerer>[0], signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return undefined
    const { style, screen } = o
    screen.pause()
    const lines = [`${style.yellow('?')} ${style.bold('The agent asks:')} ${terminalSafe(q.question)}`]
    for (const [i, choice] of (q.choices ?? []).entries())
      lines.push(`  ${style.bold(String(i + 1))}  ${terminalSafe(choice)}`)
    screen.print(`${lines.join('\n')}\n`)
    const wasFlowing = (o.stdin as { readableFlowing?: boolean | null }).readableFlowing === true
    const rl = createInterface({ input: o.stdin, output: o.output, terminal: o.stdin.isTTY === true })
    try {
      const answer = await new Promise<string | undefined>((resolve) => {
        const onAbort = () => resolve(undefined)
        signal.addEventListener('abort', onAbort, { once: true })
        rl.on('SIGINT', () => resolve(undefined))
        rl.on('close', () => resolve(undefined))
        rl.question(`  ${style.dim('answer ›')} `, (text) => {
          signal.removeEventListener('abort', onAbort)
          resolve(text)
        })
      })
      const trimmed = answer?.trim() ?? ''
      const picked = /^\d+$/.test(trimmed) ? q.choices?.[Number(trimmed) - 1] : undefined
      return trimmed === '' ? undefined : (picked ?? trimmed)
    } finally {
      rl.close()
      if (wasFlowing) o.stdin.resume()
      screen.resume()
    }
  }
}
