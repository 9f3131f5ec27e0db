// Code Mode sandbox benchmarks (issue 6 §4). Run after `tsc -b`: node --expose-gc bench/codemode.bench.mjs
import { runSandboxed } from '@toolgate/codemode'

const COLD_START_TARGET_MS = 15
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
const immediate = async () => ({ ok: true, value: null })

async function once(code, tools = []) {
  const r = await runSandboxed({ code, tools, dispatch: immediate, timeoutMs: 60_000 })
  if (!r.ok) throw new Error(`bench program failed: ${r.kind}: ${r.message}`)
  return r
}

// warm the process: the wasm module loads once per process, the TypeScript parser JITs
for (let i = 0; i < 20; i++) await once('return 1 + 1')

// 1. cold start: a fresh QuickJS runtime + context, strip, compile, run, dispose
const cold = []
for (let i = 0; i < 200; i++) {
  const t = performance.now()
  await once('const x: number = 1 + 1\nreturn x')
  cold.push(performance.now() - t)
}
const coldP50 = median(cold)
console.log(
  `run_code cold start (fresh context, trivial program): ${coldP50.toFixed(2)} ms p50 of ${cold.length} runs (${(COLD_START_TARGET_MS / coldP50).toFixed(2)}x under target ${COLD_START_TARGET_MS} ms)`,
)

// 2. per-sub-call overhead of the sandbox seam: 1,000 sequential awaits against an immediate dispatch,
//    minus the same program with no tool calls (loop + context cost)
const N = 1000
const withCalls = `for (let i = 0; i < ${N}; i++) await tools.noop({ i })`
const baseline = `for (let i = 0; i < ${N}; i++) await Promise.resolve({ i })`
for (let i = 0; i < 3; i++) {
  await once(withCalls, ['noop'])
  await once(baseline, ['noop'])
}
const perCall = []
const base = []
for (let run = 0; run < 7; run++) {
  let t = performance.now()
  await once(withCalls, ['noop'])
  perCall.push(((performance.now() - t) * 1000) / N)
  t = performance.now()
  await once(baseline, ['noop'])
  base.push(((performance.now() - t) * 1000) / N)
}
const overhead = median(perCall) - median(base)
console.log(
  `run_code sub-call seam overhead: ${overhead.toFixed(1)} us/call median of 7 runs x ${N} sequential calls (${median(perCall).toFixed(1)} us with the call vs ${median(base).toFixed(1)} us for the same loop awaiting a VM promise; 1.00x = pipeline ratio pending core)`,
)
