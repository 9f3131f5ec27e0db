// What a CLI user waits for (issue 15 §3, DESIGN §7): `toolgate --help` (target <= 150 ms) and the
// time from starting `toolgate run` until its first model request reaches the server (target <=
// 300 ms), each next to `node -e 0` measured in the same rounds, with the machine's load average
// (the targets are for an idle machine; under load compare the ratios). No MCP server is configured
// (an empty TOOLGATE_HOME, a fresh workspace), so @toolgate/mcp is never loaded. Run after `npm run
// build`: node bench/cli.bench.mjs
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:http'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from './lib.mjs'

const BIN = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9)
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  // No user settings: the run measured has no MCP server configured.
  TOOLGATE_HOME: mkdtempSync(join(tmpdir(), 'toolgate-bench-home-')),
}

/** Wall time from spawn to exit. */
function exitMs(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' })
    child.on('error', reject)
    child.on('exit', () => resolve(performance.now() - t0))
  })
}

// A loopback OpenAI-compatible server: notes when each request arrives and ends the run at once.
const arrivals = []
const server = createServer((req, res) => {
  arrivals.push(performance.now())
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const chunk = (delta, finish) =>
      JSON.stringify({
        id: 'b',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    res.end(`data: ${chunk({ content: 'ok' }, null)}\n\ndata: ${chunk({}, 'stop')}\n\ndata: [DONE]\n\n`)
  })
})
await new Promise((r) => server.listen(0, '127.0.0.1', r))
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`
const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-cli-'))

/** Time from spawning `toolgate run` until its first request arrives at the server. */
function firstRequestMs(extra, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const before = arrivals.length
    const t0 = performance.now()
    const args = [
      BIN,
      'run',
      '--provider',
      'openai-chat',
      '--base-url',
      baseUrl,
      '--model',
      'm',
      '--root',
      root,
    ]
    const child = spawn(
      process.execPath,
      [...args, '--log', join(root, `s-${before}.jsonl`), ...extra, 'hi'],
      {
        env: { ...env, ...extraEnv },
        stdio: 'ignore',
      },
    )
    child.on('error', reject)
    child.on('exit', (code) => {
      if (arrivals.length === before) reject(new Error(`toolgate run exited ${code} without a request`))
      else resolve(arrivals[before] - t0)
    })
  })
}

const variants = {
  node: () => exitMs(['-e', '0']),
  help: () => exitMs([BIN, '--help']),
  firstNoCode: () => firstRequestMs(['--no-code']),
  first: () => firstRequestMs([]),
  // The session built before the first request, as before the early request (README "Start-up").
  firstEager: () => firstRequestMs([], { TOOLGATE_EAGER_START: '1' }),
}
for (const fn of Object.values(variants)) await fn() // warm the disk cache (and Node's compile cache)
const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
for (let r = 0; r < ROUNDS; r++) for (const [k, fn] of Object.entries(variants)) samples[k].push(await fn())
server.close()

const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
const ms = (x) => `${x.toFixed(0)} ms`
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ')
const node = `${process.version}; load ${load} on ${availableParallelism()} cores`
console.log(`node -e 0: ${ms(m.node)} median of ${ROUNDS} (baseline; ${node})`)
console.log(
  `toolgate --help: ${ms(m.help)} median of ${ROUNDS} (${(m.help / m.node).toFixed(2)}x node -e 0; target <= 150 ms: ${m.help <= 150 ? 'met' : 'not met'}; ${node})`,
)
for (const [key, label] of [
  ['firstNoCode', 'toolgate run --no-code, start to first model request'],
  ['first', 'toolgate run (run_code offered), start to first model request'],
  ['firstEager', 'toolgate run (run_code offered), TOOLGATE_EAGER_START=1, start to first model request'],
]) {
  const vsEager = key === 'firstEager' ? '' : `, ${(m[key] / m.firstEager).toFixed(2)}x eager start`
  console.log(
    `${label}: ${ms(m[key])} median of ${ROUNDS} (${(m[key] / m.node).toFixed(2)}x node -e 0${vsEager}; target <= 300 ms: ${m[key] <= 300 ? 'met' : 'not met'}; ${node})`,
  )
}

// Per-turn loop overhead of a long session (issue 15 "Done when"): a scripted model asks for one
// cheap tool call per turn, with the CLI's per-turn machinery on (context management with a large
// window, the transcript logged, loop and no-progress detection, an in-memory session log that
// keeps every event). The time between consecutive model requests is the loop's own cost per turn
// (the tool and the scripted reply are constant); at turns 1, 100 and 1,000 it must stay flat.
{
  const { collectAgent } = await import('@toolgate/agent')
  const { createRuntime, defineTool, textOutput } = await import('@toolgate/core')
  const { scriptedModel } = await import('@toolgate/providers')
  const { z } = await import('zod')
  const TURNS = 1_010
  const at = [1, 100, 1_000]
  const WINDOW = 5
  const perTurn = Object.fromEntries(at.map((t) => [t, []]))
  for (let r = 0; r < 3; r++) {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'note',
        description: 'Record a note.',
        parameters: z.object({ n: z.number() }),
        output: textOutput(),
        execute: ({ n }) => `noted ${n}: ${'x'.repeat(200)}`,
      }),
    )
    const stamps = []
    const turns = Array.from({ length: TURNS }, (_, i) => () => {
      stamps.push(performance.now())
      return i === TURNS - 1
        ? { text: 'done' }
        : {
            text: `step ${i}`,
            toolCalls: [{ name: 'note', arguments: { n: i }, callId: `c${i}` }],
            usage: { inputTokens: 1_000 + i * 120, outputTokens: 20 },
          }
    })
    const result = await collectAgent({
      model: scriptedModel(turns),
      runtime,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      maxTurns: TURNS + 1,
      context: { window: 1_000_000 },
      transcript: true,
    })
    if (result.reason !== 'completed') throw new Error(`the scripted session ended ${result.reason}`)
    for (const t of at) {
      const gaps = []
      for (let i = t; i < t + WINDOW; i++) gaps.push(stamps[i] - stamps[i - 1])
      perTurn[t].push(median(gaps))
    }
  }
  const first = median(perTurn[1])
  for (const t of at) {
    const v = median(perTurn[t])
    console.log(
      `agent loop, one call per turn, at turn ${t} of a scripted session: ${(v * 1000).toFixed(0)} us per turn median (${(v / first).toFixed(2)}x turn 1; ${process.version})`,
    )
  }
}
