// Memory per idle session (issue 14 §3): 1,000 sessions alive in one process, each what the CLI
// builds for a session — an approval service, a runtime, the built-in tools (bash under the
// workspace-write profile) and the permission policy (no settings files) — next to a bare
// createRuntime() measured the same way in the same run. Retained memory = heap used plus array
// buffers after two full collections, before and after, divided by the count.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createApprovalService, createRuntime } from '@toolgate/core'
import { initShellParser, permissions } from '@toolgate/policy'
import { builtinTools } from '@toolgate/tools'
import { report } from './lib.mjs'

const COUNT = Number(process.env.BENCH_SESSIONS ?? 1000)
const BUDGET_KB = 200

if (!globalThis.gc) {
  report(
    'memory per idle session: not measured (run node with --expose-gc: without it the heap cannot be read)',
  )
  process.exit(0)
}

const base = mkdtempSync(join('/var/tmp', 'toolgate-bench-sessions-'))
process.on('exit', () => rmSync(base, { recursive: true, force: true }))
const root = join(base, 'ws')
mkdirSync(root)
await initShellParser()

function retained() {
  globalThis.gc()
  globalThis.gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

function session(i) {
  const approval = createApprovalService({ policy: 'on-request' })
  const runtime = createRuntime({ approval })
  runtime.use(builtinTools({ root, sandbox: 'workspace-write', tempDir: join(base, `t${i}`) }))
  runtime.use(
    permissions({
      root,
      preset: 'workspace-write',
      approvalPolicy: 'on-request',
      sandboxed: false,
      userSettingsPath: null,
      projectSettingsPath: null,
    }),
  )
  return runtime
}

/** KB retained per instance of `make()`, with COUNT of them alive at once. */
function perInstanceKb(make) {
  // One warm-up instance first, so code compiled on first use is not charged to the sessions.
  let keep = [make(-1)]
  const before = retained()
  keep = Array.from({ length: COUNT }, (_, i) => make(i))
  const after = retained()
  if (keep.length !== COUNT) throw new Error('unreachable')
  return (after - before) / COUNT / 1024
}

const bare = perInstanceKb(() => createRuntime())
const full = perInstanceKb(session)
report(
  `memory per bare createRuntime(), ${COUNT.toLocaleString('en-US')} alive: ${bare.toFixed(1)} KB (baseline)`,
)
report(
  `memory per idle session (runtime + approval + permission policy + built-in tools), ${COUNT.toLocaleString('en-US')} alive: ${full.toFixed(1)} KB (${(full / bare).toFixed(2)}x bare runtime; ${(full / BUDGET_KB).toFixed(2)}x the ${BUDGET_KB} KB budget)`,
)
