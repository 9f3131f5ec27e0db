// The full agent loop per tool call (issue 14 §3): one scripted model, one tool, three loops —
// toolgate's runAgent, pi-agent-core's agentLoop and the Vercel AI SDK's streamText — measured
// round-robin in the same process. The script is the same for all three: STEPS replies of CALLS
// complete calls to `echo` ({"text":"hello <step>_<call>"} as JSON text, as a provider delivers
// it; every call's text differs, because identical calls with identical results are what the
// agent's loop detection stops, seed 003 §4.4), then a text reply that ends the run. Each adapter
// only translates the script into its loop's stream protocol (pi's providers parse arguments
// while streaming, so its adapter parses them too; the AI SDK and toolgate parse them in the
// loop). Every run starts a new session: a new runtime (memory session log, default timeouts)
// for toolgate, a new context for pi, a new streamText for the AI SDK; each consumer reads every
// event of the run. The peers are dev dependencies of the repository root.
import { runAgent } from '@toolgate/agent'
import { createRuntime, defineTool, textOutput } from '@toolgate/core'
import { z } from 'zod'
import { fmtUs, pairedRatio, report, roundRobinSamples } from './lib.mjs'

const STEPS = Number(process.env.BENCH_STEPS ?? 3)
const CALLS = Number(process.env.BENCH_CALLS ?? 100)
const PER_RUN = STEPS * CALLS

// The script: call ids per step, then the closing text.
const script = Array.from({ length: STEPS }, (_, s) =>
  Array.from({ length: CALLS }, (_, i) => ({
    id: `call_${s}_${i}`,
    name: 'echo',
    args: `{"text":"hello ${s}_${i}"}`,
  })),
)
const FINAL_TEXT = 'done'

// --- toolgate -------------------------------------------------------------------------------
function toolgateModel() {
  let turn = 0
  return {
    provider: 'scripted',
    model: 'bench',
    async *stream() {
      const calls = script[turn++]
      if (calls === undefined) {
        yield { type: 'text-delta', text: FINAL_TEXT }
        yield { type: 'finish', stopReason: 'done', rawStopReason: 'end_turn' }
        return
      }
      for (const c of calls)
        yield { type: 'tool-call-complete', callId: c.id, name: c.name, arguments: c.args, strict: false }
      yield { type: 'finish', stopReason: 'tool_use', rawStopReason: 'tool_use' }
    },
  }
}
const echoSchema = z.object({ text: z.string() })
function echoRuntime() {
  const runtime = createRuntime()
  runtime.register(
    defineTool({
      name: 'echo',
      description: 'Echo the text.',
      parameters: echoSchema,
      output: textOutput(),
      execute: async (args) => args.text,
    }),
  )
  return runtime
}
async function toolgate(runs) {
  for (let r = 0; r < runs; r++) {
    const runtime = echoRuntime()
    const run = runAgent({ model: toolgateModel(), runtime, messages: [{ role: 'user', content: 'go' }] })
    let events = 0
    for await (const _ of run) events++
    const result = await run.result
    if (result.reason !== 'completed' || result.turns !== STEPS + 1)
      throw new Error(`toolgate: ${result.reason}`)
    if (events < PER_RUN) throw new Error('toolgate: events missing')
  }
}

// The same calls straight into runtime.executeBatch, one batch per step: what the loop adds is
// the difference (not a peer; it shows where toolgate's time goes).
const batchCalls = script.map((calls) =>
  calls.map((c) => ({ callId: c.id, name: c.name, arguments: c.args })),
)
async function toolgateBatch(runs) {
  for (let r = 0; r < runs; r++) {
    const runtime = echoRuntime()
    for (const calls of batchCalls) await runtime.executeBatch(calls.map((c) => ({ ...c })))
  }
}

// --- pi-agent-core ----------------------------------------------------------------------------
const pi = await import('@mariozechner/pi-agent-core').catch(() => undefined)
const piAi = await import('@mariozechner/pi-ai').catch(() => undefined)
const piUsage = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
}
const piModel = {
  id: 'bench',
  name: 'bench',
  api: 'bench',
  provider: 'bench',
  baseUrl: '',
  reasoning: false,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 1_000,
}
function piStream() {
  let turn = 0
  return () => {
    const calls = script[turn++]
    const stream = piAi.createAssistantMessageEventStream()
    const message = {
      role: 'assistant',
      content: [],
      api: 'bench',
      provider: 'bench',
      model: 'bench',
      usage: piUsage,
      stopReason: calls === undefined ? 'stop' : 'toolUse',
      timestamp: 0,
    }
    stream.push({ type: 'start', partial: message })
    if (calls === undefined) {
      message.content.push({ type: 'text', text: FINAL_TEXT })
      stream.push({ type: 'text_end', contentIndex: 0, content: FINAL_TEXT, partial: message })
    } else {
      for (const [i, c] of calls.entries()) {
        const toolCall = { type: 'toolCall', id: c.id, name: c.name, arguments: JSON.parse(c.args) }
        message.content.push(toolCall)
        stream.push({ type: 'toolcall_end', contentIndex: i, toolCall, partial: message })
      }
    }
    stream.push({ type: 'done', reason: message.stopReason, message })
    stream.end(message)
    return stream
  }
}
const piTool = piAi && {
  name: 'echo',
  label: 'echo',
  description: 'Echo the text.',
  parameters: piAi.Type.Object({ text: piAi.Type.String() }),
  execute: async (_id, params) => ({ content: [{ type: 'text', text: params.text }], details: {} }),
}
async function piAgentCore(runs) {
  for (let r = 0; r < runs; r++) {
    const stream = pi.agentLoop(
      [{ role: 'user', content: 'go', timestamp: 0 }],
      { systemPrompt: '', messages: [], tools: [piTool] },
      { model: piModel, convertToLlm: (messages) => messages },
      undefined,
      piStream(),
    )
    let events = 0
    for await (const _ of stream) events++
    const messages = await stream.result()
    if (messages.length !== 2 + STEPS * (CALLS + 1)) throw new Error(`pi: ${messages.length} messages`)
    if (events < PER_RUN) throw new Error('pi: events missing')
  }
}

// --- Vercel AI SDK ----------------------------------------------------------------------------
const aiSdk = await import('ai').catch(() => undefined)
const aiTest = await import('ai/test').catch(() => undefined)
const aiUsage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}
function aiModel() {
  let turn = 0
  return new aiTest.MockLanguageModelV4({
    doStream: async () => {
      const calls = script[turn++]
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] })
            if (calls === undefined) {
              controller.enqueue({ type: 'text-start', id: 't' })
              controller.enqueue({ type: 'text-delta', id: 't', delta: FINAL_TEXT })
              controller.enqueue({ type: 'text-end', id: 't' })
            } else {
              for (const c of calls)
                controller.enqueue({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.args })
            }
            controller.enqueue({
              type: 'finish',
              finishReason:
                calls === undefined
                  ? { unified: 'stop', raw: 'end_turn' }
                  : { unified: 'tool-calls', raw: 'tool_use' },
              usage: aiUsage,
            })
            controller.close()
          },
        }),
      }
    },
  })
}
const aiTools = aiSdk && {
  echo: aiSdk.tool({
    description: 'Echo the text.',
    inputSchema: echoSchema,
    execute: async ({ text }) => text,
  }),
}
async function aiStreamText(runs) {
  for (let r = 0; r < runs; r++) {
    const result = aiSdk.streamText({
      model: aiModel(),
      tools: aiTools,
      prompt: 'go',
      stopWhen: aiSdk.isStepCount(STEPS + 1),
    })
    let calls = 0
    for await (const part of result.fullStream) if (part.type === 'tool-result') calls++
    if (calls !== PER_RUN) throw new Error(`ai sdk: ${calls} tool results`)
  }
}

// --- measure ------------------------------------------------------------------------------------
// BENCH_ONLY=toolgate measures one loop alone (for node --cpu-prof).
const only = process.env.BENCH_ONLY
const variants = { toolgate, batch: toolgateBatch }
const missing = []
if (pi && piAi) variants.pi = piAgentCore
else missing.push('pi-agent-core (npm @mariozechner/pi-agent-core) is not installed')
if (aiSdk && aiTest) variants.ai = aiStreamText
else missing.push('the AI SDK (npm ai) is not installed')
if (only !== undefined) for (const k of Object.keys(variants)) if (k !== only) delete variants[k]
const runs = Number(process.env.BENCH_RUNS ?? 8)
// roundRobin reports ns per "iteration"; one iteration here is one whole run.
const { medians: perRun, samples } = await roundRobinSamples(variants, {
  iterations: runs,
  rounds: Number(process.env.BENCH_ROUNDS ?? 21),
})
// Ratios are paired: the median over rounds of the two loops' times in the same round.
const x = (a, b) => pairedRatio(samples, a, b).toFixed(2)
const perCall = Object.fromEntries(Object.entries(perRun).map(([k, v]) => [k, v / PER_RUN]))
const shape = `${STEPS} steps x ${CALLS} calls per step, scripted model, one echo tool`
if (perCall.toolgate !== undefined)
  report(`agent loop, toolgate runAgent: ${fmtUs(perCall.toolgate)} per tool call (${shape})`)
if (perCall.batch !== undefined && perCall.toolgate !== undefined) {
  report(
    `toolgate runtime.executeBatch alone, same calls in one batch per step: ${fmtUs(perCall.batch)} per tool call (the loop around it is ${x('toolgate', 'batch')}x it)`,
  )
}
if (perCall.pi !== undefined && perCall.toolgate !== undefined) {
  report(
    `agent loop, pi-agent-core agentLoop: ${fmtUs(perCall.pi)} per tool call (baseline; toolgate is ${x('toolgate', 'pi')}x it; target < 1.00x)`,
  )
}
if (perCall.ai !== undefined && perCall.toolgate !== undefined) {
  report(
    `agent loop, AI SDK streamText: ${fmtUs(perCall.ai)} per tool call (baseline; it is ${x('ai', 'toolgate')}x toolgate; target >= 3.00x)`,
  )
}
for (const m of missing) report(`agent loop peer not measured: ${m}`)
