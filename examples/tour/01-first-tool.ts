// A typed tool, a runtime, one call: arguments are parsed once, validated, frozen; the result is
// one frozen object with model-facing content and the canonical value.
import { createRuntime, defineTool, textOutput } from '@toolgate/core'
import { z } from 'zod'

export async function main() {
  const runtime = createRuntime()
  runtime.register(
    defineTool({
      name: 'shout',
      description: 'Return the text in upper case. Use it when the user asks to shout.',
      parameters: z.object({ text: z.string().describe('What to shout') }),
      output: textOutput(),
      execute: async (args) => args.text.toUpperCase(), // args: { text: string }
    }),
  )
  console.log(JSON.stringify(runtime.schemas()))
  const ok = await runtime.execute({ callId: 'call_1', name: 'shout', arguments: '{"text":"hello"}' })
  const bad = await runtime.execute({ callId: 'call_2', name: 'shout', arguments: '{"txt":"hello"}' })
  console.log(ok.content[0], bad.error?.code)
  return { ok, bad }
}
