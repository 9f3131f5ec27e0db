import { z } from 'zod'
import { type ContentBlock, defineTool, textOutput } from '../src/index.js'

/** A promise the test resolves by hand: deterministic interleavings, no sleeps. */
export function gate<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Let queued microtasks and already-due callbacks run. */
export async function flush(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

export const echoTool = defineTool({
  name: 'echo',
  description: 'Echo the text back in upper case.',
  parameters: z.object({ text: z.string() }),
  output: textOutput(),
  execute: (args) => args.text.toUpperCase(),
})

export const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }]
