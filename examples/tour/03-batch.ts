// A model reply with several calls: parallel-safe calls share a pool, anything else is a
// barrier; results come back (and are logged) in model order, whatever finishes first.
import { createRuntime, defineTool, textOutput } from '@toolgate/core'
import { z } from 'zod'

export async function main() {
  const runtime = createRuntime()
  const started: string[] = []
  runtime.register(
    defineTool({
      name: 'fetch_doc',
      description: 'Fetch a document by id (read-only).',
      parameters: z.object({ id: z.string(), ms: z.number() }),
      output: textOutput(),
      isConcurrencySafe: () => true,
      execute: async (args) => {
        started.push(args.id)
        await new Promise((resolve) => setTimeout(resolve, args.ms))
        return `doc ${args.id}`
      },
    }),
  )
  const t0 = performance.now()
  const results = await runtime.executeBatch(
    [
      { callId: '1', name: 'fetch_doc', arguments: { id: 'slow', ms: 40 } },
      { callId: '2', name: 'fetch_doc', arguments: { id: 'fast', ms: 5 } },
      { callId: '3', name: 'nope', arguments: {} },
    ],
    { onSettled: (r) => console.log('settled', r.callId) },
  )
  console.log(
    results.map((r) => r.content[0]),
    `${Math.round(performance.now() - t0)} ms`,
  )
  return { results, started }
}
