import { z } from 'zod'
import {
  type ContentBlock,
  defineTool,
  type JsonObject,
  type ToolDefinition,
  type ToolOutputDefinition,
  textOutput,
} from '../src/index.js'

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

type ObjectToolFields<Value> = Omit<
  ToolDefinition<JsonObject, Value>,
  'name' | 'description' | 'parameters' | 'output'
>

/**
 * A tool that takes any JSON object (`{ type: 'object' }`) and answers text, unless `output` says
 * otherwise: what most pipeline tests register, varying only the name, the body and a hook.
 */
export function objectTool(name: string, fields: ObjectToolFields<string>): ToolDefinition<JsonObject, string>
export function objectTool<Value>(
  name: string,
  fields: ObjectToolFields<Value> & { readonly output: ToolOutputDefinition<JsonObject, Value> },
): ToolDefinition<JsonObject, Value>
export function objectTool(
  name: string,
  fields: ObjectToolFields<unknown> & { readonly output?: ToolOutputDefinition<JsonObject, unknown> },
): ToolDefinition<JsonObject, unknown> {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object' },
    output: textOutput(),
    ...fields,
  })
}
