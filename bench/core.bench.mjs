// Pipeline overhead per call (issue 2 §4) and batch scheduling (issue 3 §4), each next to a
// baseline measured in the same process.
import { createRuntime, defineTool, discardSink, textOutput } from '@toolgate/core'
import { z } from 'zod'
import { fmtUs, heapAfterGc, median, nsPerOp, report, roundRobin } from './lib.mjs'

const schema = z.object({ text: z.string() })
const body = async (args) => args.text
const argsText = '{"text":"hello"}'
// Every loop below consumes the same pre-built calls, so building them is nobody's overhead.
const calls = Array.from({ length: 20_000 }, (_, i) => ({
  callId: `c${i}`,
  name: 'echo',
  arguments: argsText,
}))
const callAt = (i) => calls[i % calls.length]

// Baseline: what any harness must do at least — parse, validate with the same schema, call, push.
async function bare(n) {
  const out = []
  const validate = schema['~standard'].validate
  for (let i = 0; i < n; i++) {
    const parsed = JSON.parse(callAt(i).arguments)
    const checked = validate(parsed)
    if (checked.issues) throw new Error('invalid')
    out.push(await body(checked.value))
  }
  return out
}

// The contract floor: the bare loop plus only what the runtime's contract itself requires of a
// call, written inline with nothing else (no registry, stages or policy): arguments checked and
// deep-frozen, a frozen tool/call event, a frozen execution with its own token and a frozen body
// context, a frozen result (content block, timing) and a frozen tool/result event, per-tool
// counters. What the runtime costs above this line is pipeline; below it, contract.
const NEVER = new AbortController().signal
class Context {
  constructor(exec) {
    this.callId = exec.callId
    this.name = exec.name
    this.arguments = exec.arguments
    this.token = exec.token
    Object.freeze(this)
  }
}
function freezeJson(value) {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not JSON')
    return
  }
  for (const key in value) freezeJson(value[key])
  Object.freeze(value)
}
async function floor(n) {
  const out = []
  const validate = schema['~standard'].validate
  const counters = { calls: 0, successes: 0, total: 0 }
  let seq = 0
  const sink = discardSink()
  for (let i = 0; i < n; i++) {
    const call = callAt(i)
    const t0 = performance.now()
    const parsed = JSON.parse(call.arguments)
    freezeJson(parsed)
    sink.write(
      Object.freeze({
        seq: ++seq,
        type: 'tool/call',
        callId: call.callId,
        name: call.name,
        arguments: parsed,
      }),
    )
    const checked = validate(parsed)
    if (checked.issues) throw new Error('invalid')
    const exec = Object.freeze({
      callId: call.callId,
      name: call.name,
      arguments: parsed,
      signal: NEVER,
      token: Symbol(),
    })
    const value = await body(parsed, new Context(exec))
    const content = Object.freeze([Object.freeze({ type: 'text', text: value })])
    const timing = Object.freeze({
      startedAt: Math.round(performance.timeOrigin + t0),
      durationMs: performance.now() - t0,
    })
    const result = Object.freeze({
      callId: exec.callId,
      name: exec.name,
      isError: false,
      content,
      timing,
      value,
    })
    sink.write(
      Object.freeze({
        seq: ++seq,
        type: 'tool/result',
        callId: result.callId,
        name: result.name,
        isError: false,
        content,
        timing,
        value,
      }),
    )
    counters.calls++
    counters.successes++
    counters.total += timing.durationMs
    out.push(result)
  }
  return out
}

const echo = () =>
  defineTool({ name: 'echo', description: 'Echo.', parameters: schema, output: textOutput(), execute: body })

function plainRuntime() {
  const runtime = createRuntime({ timeouts: false, session: discardSink() })
  runtime.register(echo())
  return runtime
}

function policedRuntime() {
  const runtime = createRuntime({ session: discardSink() }) // includes the timeout policy wrapper
  runtime.register({ ...echo(), timeoutMs: 60_000 })
  runtime.on('tools/pre-execute', (_exec, next) => next())
  runtime.guard(() => undefined)
  runtime.on('tools/post-execute', (_exec, _result, next) => next())
  return runtime
}

// Every stage really waits (issue 13 §2): each async listener and wrapper is a bounded wait on
// host code (pipeline/bounded.ts), with its listener budget; the synchronous lines above make none.
function asyncStagesRuntime() {
  const runtime = createRuntime({ timeouts: false, session: discardSink() })
  runtime.register(echo())
  runtime.on('tools/pre-execute', async (_exec, next) => next())
  runtime.on('tools/execute', async (_exec, next) => next())
  runtime.on('tools/post-execute', async (_exec, _result, next) => next())
  return runtime
}

const viaRuntime = (runtime) => async (n) => {
  const out = []
  for (let i = 0; i < n; i++) out.push(await runtime.execute(callAt(i)))
  return out
}

const measured = await roundRobin({
  bare,
  floor,
  plain: viaRuntime(plainRuntime()),
  policed: viaRuntime(policedRuntime()),
  asyncStages: viaRuntime(asyncStagesRuntime()),
})
const bareNs = measured.bare
const floorNs = measured.floor
const plainNs = measured.plain
const policedNs = measured.policed
const asyncNs = measured.asyncStages
report(`bare loop (parse + zod validate + call + push): ${fmtUs(bareNs)} per call (baseline)`)
report(
  `contract floor (bare + frozen args, execution, context, result and both events, inline): ${fmtUs(floorNs)} per call (${(floorNs / bareNs).toFixed(2)}x bare)`,
)
report(
  `runtime.execute, no listeners: ${fmtUs(plainNs)} per call (${(plainNs / bareNs).toFixed(2)}x bare; target <= 3.00x; ${(plainNs / floorNs).toFixed(2)}x contract floor)`,
)
report(
  `runtime.execute, pre-execute + guard + post-execute + timeout wrapper: ${fmtUs(policedNs)} per call (${(policedNs / bareNs).toFixed(2)}x bare; target <= 5.00x; ${(policedNs / floorNs).toFixed(2)}x contract floor)`,
)
report(
  `runtime.execute, async pre-execute + async wrapper + async post-execute (three bounded waits): ${fmtUs(asyncNs)} per call (${(asyncNs / bareNs).toFixed(2)}x bare; ${(asyncNs / floorNs).toFixed(2)}x contract floor; ${(asyncNs / plainNs).toFixed(2)}x no listeners)`,
)

// Heap growth over 1,000,000 sequential calls (session sink discards; metrics keep a bounded window).
{
  const runtime = plainRuntime()
  const run = viaRuntime(runtime)
  await run(10_000)
  const before = heapAfterGc()
  for (let i = 0; i < 100; i++) await run(10_000)
  const after = heapAfterGc()
  const growth = (after - before) / 1024 / 1024
  report(
    `heap growth after 1,000,000 sequential calls: ${growth.toFixed(1)} MB (${(growth / 20).toFixed(2)}x the 20 MB budget)`,
  )
}

// Batch scheduling: 200 calls mixing parallel (1-20 ms) and exclusive calls; wall time vs the
// critical path (sum over barriers of the slowest call in each parallel group).
{
  const runtime = createRuntime({ session: discardSink() })
  runtime.register(
    defineTool({
      name: 'work',
      description: 'Sleeps.',
      parameters: z.object({ ms: z.number(), parallel: z.boolean() }),
      output: textOutput(),
      isConcurrencySafe: (args) => args.parallel,
      execute: (args) => new Promise((resolve) => setTimeout(() => resolve('ok'), args.ms)),
    }),
  )
  let seed = 42
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x7fffffff
  }
  const calls = []
  for (let i = 0; i < 200; i++) {
    const parallel = rand() > 0.1
    calls.push({ callId: `b${i}`, name: 'work', arguments: { ms: 1 + Math.floor(rand() * 20), parallel } })
  }
  // Critical path with maxParallel large enough that every parallel group runs at once.
  let critical = 0
  let groupMax = 0
  for (const c of calls) {
    if (c.arguments.parallel) groupMax = Math.max(groupMax, c.arguments.ms)
    else {
      critical += groupMax + c.arguments.ms
      groupMax = 0
    }
  }
  critical += groupMax
  const ratios = []
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now()
    await runtime.executeBatch(calls, { maxParallel: 200 })
    ratios.push((performance.now() - t0) / critical)
  }
  const ratio = median(ratios)
  report(
    `executeBatch 200 mixed calls: ${(ratio * critical).toFixed(1)} ms wall vs ${critical} ms critical path (${ratio.toFixed(3)}x critical path; target <= 1.05x)`,
  )
}

// Per-call scheduling overhead of executeBatch versus calling execute in a loop.
{
  const runtime = plainRuntime()
  const calls = Array.from({ length: 100 }, (_, i) => ({
    callId: `s${i}`,
    name: 'echo',
    arguments: argsText,
  }))
  const loopNs = await nsPerOp(
    async (n) => {
      for (let k = 0; k < n / 100; k++) for (const c of calls) await runtime.execute(c)
    },
    { iterations: 20_000 },
  )
  const batchNs = await nsPerOp(
    async (n) => {
      for (let k = 0; k < n / 100; k++) await runtime.executeBatch(calls.map((c) => ({ ...c })))
    },
    { iterations: 20_000 },
  )
  report(
    `executeBatch of 100 exclusive calls: ${fmtUs(batchNs)} per call (${(batchNs / loopNs).toFixed(2)}x execute loop at ${fmtUs(loopNs)})`,
  )
}
