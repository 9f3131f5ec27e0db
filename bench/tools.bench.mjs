// Bash tool cost per call (issue 4 §5, issue 11): `true` through the whole pipeline (runtime.execute
// -> bash tool -> confine (profile plan, git staging) -> spawn -> capture -> git sync) next to a
// plain child_process.spawn('bash', ['-c', 'true']) measured in the same run, round-robin (each
// round runs every variant once, so load drift on a shared machine hits all of them alike).
// The workspace is a git repository with 2,000 tracked files (a real index to stage and sync).

import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRuntime } from '@toolgate/core'
import { probeSandbox } from '@toolgate/policy'
import { builtinTools } from '@toolgate/tools'
import { median } from './lib.mjs'

const N = Number(process.env.BENCH_N ?? 20)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)

function plain() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.on('error', reject)
    child.on('close', resolve)
  })
}

// A workspace outside /tmp (the sandbox gives /tmp its own), with a repository.
const base = mkdtempSync(join('/var/tmp', 'toolgate-bench-'))
process.on('exit', () => rmSync(base, { recursive: true, force: true }))
const root = join(base, 'ws')
mkdirSync(join(root, 'src'), { recursive: true })
for (let i = 0; i < 2000; i++) writeFileSync(join(root, 'src', `f${i}.txt`), `${i}\n`)
const git = (...args) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore' })
git('init', '-q')
git('add', '.')
git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'files')

function toolRunner(sandbox) {
  const runtime = createRuntime()
  runtime.use(builtinTools({ root, sandbox, tempDir: join(base, `session-${String(sandbox)}`) }))
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

const probe = await probeSandbox()
const variants = { plain, none: toolRunner(false) }
if (probe.status !== 'unavailable') {
  for (const preset of ['read-only', 'workspace-write', 'danger-full-access'])
    variants[preset] = toolRunner(preset)
}
for (const fn of Object.values(variants)) for (let i = 0; i < 3; i++) await fn() // warm up

const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, fn] of Object.entries(variants)) {
    const start = performance.now()
    for (let i = 0; i < N; i++) await fn()
    samples[name].push((performance.now() - start) / N)
  }
}
const ms = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
const line = (label, value) =>
  console.log(
    `${label}: ${value.toFixed(2)} ms/call median of ${ROUNDS} rounds x ${N} (${(value / ms.plain).toFixed(2)}x plain spawn, +${(value - ms.plain).toFixed(2)} ms)`,
  )
console.log(
  `plain child_process.spawn('bash', ['-c', 'true']): ${ms.plain.toFixed(2)} ms/call median of ${ROUNDS} rounds x ${N} (baseline)`,
)
line('bash tool, no sandbox (own pid namespace via unshare when the host allows it)', ms.none)
if (probe.status === 'unavailable') {
  console.log(`bash tool under bubblewrap: not measured (${probe.diagnostic})`)
} else {
  const status = probe.status === 'enforced' ? 'enforced' : `PARTLY enforced: ${probe.missing.join('; ')}`
  for (const preset of ['read-only', 'workspace-write', 'danger-full-access']) {
    line(`bash tool, bubblewrap ${preset} profile (${status}; git workspace, 2,000-file index)`, ms[preset])
  }
}
