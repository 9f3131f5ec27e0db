// The interactive session's input. On a terminal: one line at a time with line editing and a
// history (readline), the terminal released between prompts so a running turn can watch for
// Ctrl-C itself. Off a terminal (stdin is a pipe): every line is a message, end of input leaves.
import { createInterface, type Interface } from 'node:readline'
import type { InStream } from '../io.js'

type LineEvent =
  | { readonly kind: 'line'; readonly text: string }
  /** Ctrl-C at the prompt; `hadText`: it cleared a line being typed. */
  | { readonly kind: 'interrupt'; readonly hadText: boolean }
  /** Ctrl-D on an empty line, or the end of piped input. */
  | { readonly kind: 'eof' }

export interface LineReader {
  read(prompt: string): Promise<LineEvent>
  close(): void
}

export function lineReader(
  stdin: InStream,
  output: NodeJS.WritableStream | undefined,
  write: (text: string) => void,
): LineReader {
  return stdin.isTTY === true && output !== undefined
    ? terminalReader(stdin, output)
    : pipedReader(stdin, write)
}

function terminalReader(stdin: InStream, output: NodeJS.WritableStream): LineReader {
  const history: string[] = []
  return {
    read(prompt) {
      return new Promise((resolve) => {
        const rl: Interface = createInterface({
          input: stdin,
          output,
          terminal: true,
          history: [...history],
          historySize: 200,
        })
        let settled = false
        const done = (event: LineEvent) => {
          if (settled) return
          settled = true
          rl.close()
          resolve(event)
        }
        rl.on('SIGINT', () => {
          const hadText = rl.line.length > 0
          output.write('\n')
          done({ kind: 'interrupt', hadText })
        })
        rl.on('close', () => done({ kind: 'eof' }))
        rl.question(prompt, (text) => {
          if (text.trim() !== '' && history[0] !== text) history.unshift(text)
          done({ kind: 'line', text })
        })
      })
    },
    close() {},
  }
}

function pipedReader(stdin: InStream, write: (text: string) => void): LineReader {
  const rl = createInterface({ input: stdin, terminal: false })
  const lines = rl[Symbol.asyncIterator]()
  return {
    async read(prompt) {
      write(prompt)
      const next = await lines.next()
      if (next.done) return { kind: 'eof' }
      write(`${next.value}\n`)
      return { kind: 'line', text: next.value }
    },
    close: () => rl.close(),
  }
}
