import { runAgent } from '@toolgate/agent'
import { createRuntime, defineTool, textOutput } from '@toolgate/core'
import { z } from 'zod'

const STEPS = 3,
  CALLS = 100,
  ARGS = '{"text":"hello"}'
const script = Array.from({ length: STEPS }, (_, s) =>
  Array.from({ length: CALLS }, (_, i) => ({ id: `call_${s}_${i}`, name: 'echo', args: ARGS })),
)
function model() {
  let turn = 0
  return {
    provider: 'scripted',
    model: 'b',
    async *stream() {
      const calls = script[turn++]
      if (!calls) {
        yield { type: 'text-delta', text: 'done' }
        yield { type: 'finish', stopReason: 'done', rawStopReason: 'end_turn' }
        return
      }
      for (const c of calls)
        yield { type: 'tool-call-complete', callId: c.id, name: c.name, arguments: c.args, strict: false }
      yield { type: 'finish', stopReason: 'tool_use', rawStopReason: 'tool_use' }
    },
  }
}
const real = createRuntime()
real.register(
  defineTool({
    name: 'echo',
    description: 'Echo.',
    parameters: z.object({ text: z.string() }),
    output: textOutput(),
    execute: async (a) => a.text,
  }),
)
// A runtime whose executeBatch answers at once: what is left is the loop.
const content = Object.freeze([Object.freeze({ type: 'text', text: 'hello' })])
const stub = Object.create(real)
stub.executeBatch = async (calls, o) =>
  calls.map((c) => {
    const r = {
      callId: c.callId,
      name: c.name,
      isError: false,
      content,
      timing: { startedAt: 0, durationMs: 0 },
    }
    o.onSettled?.(r)
    return r
  })
const N = Number(process.env.N ?? 300)
const once = async () => {
  const run = runAgent({ model: model(), runtime: stub, messages: [{ role: 'user', content: 'go' }] })
  for await (const _ of run);
  const r = await run.result
  if (r.reason !== 'completed') throw new Error(r.reason + r.message)
}
for (let i = 0; i < 30; i++) await once()
const t0 = process.cpuUsage()
for (let i = 0; i < N; i++) await once()
const d = process.cpuUsage(t0)
console.log('loop only (stub executeBatch):', ((d.user + d.system) / (N * 300)).toFixed(2), 'us CPU per call')
