// Bash tool spawn overhead (issue 4 §5): a `true` command through the whole pipeline (runtime.execute
// -> bash tool -> confine -> spawn in its own process group -> capture) against a bare
// child_process.spawn('bash', ['-c', 'true']) in the same run. Sandbox: none, then bubblewrap when
// it is available (said either way).

import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRuntime } from '@toolgate/core'
import { probeSandbox } from '@toolgate/policy'
import { builtinTools } from '@toolgate/tools'

const N = Number(process.env.BENCH_N ?? 40)
const ROUNDS = 5

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

function bare() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.on('error', reject)
    child.on('close', resolve)
  })
}

async function perCall(fn) {
  // Median over rounds of the mean per-call time of N sequential calls, in ms.
  const rounds = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now()
    for (let i = 0; i < N; i++) await fn(i)
    rounds.push((performance.now() - start) / N)
  }
  return median(rounds)
}

function toolRunner(sandbox) {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-'))
  const runtime = createRuntime()
  runtime.use(builtinTools({ root, sandbox }))
  let seq = 0
  return async () => {
    const result = await runtime.execute({
      callId: `b${++seq}`,
      name: 'bash',
      arguments: { command: 'true' },
    })
    if (result.isError) throw new Error(JSON.stringify(result.error))
  }
}

await bare() // warm up
const baseline = await perCall(bare)
console.log(
  `bare child_process.spawn('bash', ['-c', 'true']): ${baseline.toFixed(2)} ms/call median of ${ROUNDS} rounds x ${N} (baseline)`,
)

const none = await perCall(toolRunner(false))
console.log(
  `bash tool, sandbox none: ${none.toFixed(2)} ms/call median of ${ROUNDS} rounds x ${N} (${(none / baseline).toFixed(2)}x bare spawn, +${(none - baseline).toFixed(2)} ms)`,
)

const probe = await probeSandbox()
if (probe.available) {
  const bw = await perCall(toolRunner('workspace-write'))
  console.log(
    `bash tool, sandbox bubblewrap (workspace-write): ${bw.toFixed(2)} ms/call median of ${ROUNDS} rounds x ${N} (${(bw / baseline).toFixed(2)}x bare spawn, +${(bw - baseline).toFixed(2)} ms)`,
  )
} else {
  console.log(`bash tool, sandbox bubblewrap: not measured (bubblewrap unavailable: ${probe.diagnostic})`)
}
