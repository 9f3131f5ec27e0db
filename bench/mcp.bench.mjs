// MCP (issue 16 §6): the overhead of a tool call through toolgate (pipeline + bridge + the SDK
// client) above the same call made directly with the SDK client, against the same real server
// (server-everything over stdio); the time until every tool of three local servers is registered;
// and tools[] bytes for 100 MCP tools with and without deferred loading.
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { DeferredTools } from '@toolgate/agent'
import { createRuntime, discardSink } from '@toolgate/core'
import { GroupStdioTransport, McpManager } from '@toolgate/mcp'
import { anthropicCodec } from '@toolgate/providers'
import { toolSearchTool } from '@toolgate/tools'

const N = Number(process.env.BENCH_N ?? 300)
const ROUNDS = 3
const EVERYTHING = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
)
const FAULT = fileURLToPath(new URL('../packages/mcp/test/servers/fault-server.mjs', import.meta.url))
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const entry = (name, args) => {
  const config = { type: 'stdio', command: process.execPath, args, env: {} }
  return { name, source: 'code', file: '(bench)', raw: config, config, problems: [] }
}

// 1. per-call overhead. Three clients of three copies of the same server, called in turn (the
// order alternates every round) so a busy machine slows all three alike; medians of single calls.
// toolgate starts a stdio server as the leader of its own session (setsid, so dispose can kill
// its whole process group); on Linux with autogroup scheduling that session is its own scheduling
// group, which wakes up later under load. The second baseline places the server the same way and
// calls it with the bare SDK client, so the last ratio is toolgate's own cost.
const sdkClient = async (transport) => {
  const client = new Client({ name: 'bench', version: '1' })
  await client.connect(transport)
  return client
}
const direct = await sdkClient(
  new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
)
const ownSession = await sdkClient(
  new GroupStdioTransport({
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  }),
)
const runtime = createRuntime({ session: discardSink() })
const manager = new McpManager({
  root: process.cwd(),
  servers: [entry('everything', [EVERYTHING, 'stdio'])],
  log: () => {},
}).attach(runtime)
await manager.start()
manager.sync()
let id = 0
const variants = {
  direct: () => direct.callTool({ name: 'echo', arguments: { message: 'hi' } }),
  ownSession: () => ownSession.callTool({ name: 'echo', arguments: { message: 'hi' } }),
  toolgate: () =>
    runtime.execute({ callId: `c${id++}`, name: 'mcp__everything__echo', arguments: { message: 'hi' } }),
}
const names = Object.keys(variants)
for (let i = 0; i < 50; i++) for (const n of names) await variants[n]()
const samples = Object.fromEntries(names.map((n) => [n, []]))
for (let i = 0; i < N * ROUNDS; i++) {
  for (const n of i % 2 ? names : [...names].reverse()) {
    const t = performance.now()
    await variants[n]()
    samples[n].push((performance.now() - t) * 1000)
  }
}
const [sdkUs, ownUs, tgUs] = names.map((n) => median(samples[n]))
const [sdk10, own10, tg10] = names.map(
  (n) => [...samples[n]].sort((a, b) => a - b)[Math.floor(samples[n].length / 10)],
)
// On a busy machine a microsecond of CPU costs several of wall time; the load says how busy.
const load = `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`
console.log(
  `MCP call, server-everything echo over stdio, direct SDK client (server in the client's session): ${sdkUs.toFixed(0)} us/call, p10 ${sdk10.toFixed(0)} us (baseline; ${load})`,
)
console.log(
  `MCP call, direct SDK client, server leading its own session as toolgate starts it: ${ownUs.toFixed(0)} us/call, p10 ${own10.toFixed(0)} us, ${(ownUs / sdkUs).toFixed(2)}x direct`,
)
console.log(
  `MCP call through toolgate (pipeline + bridge + SDK client): ${tgUs.toFixed(0)} us/call, p10 ${tg10.toFixed(0)} us, ${(tgUs / sdkUs).toFixed(2)}x direct, ${(tgUs / ownUs).toFixed(2)}x the same server placement (+${(tgUs - ownUs).toFixed(0)} us; p10 +${(tg10 - own10).toFixed(0)} us)`,
)
await direct.close()
await ownSession.close()
await manager.dispose()

// 2. time until all tools of three local servers are registered
const startup = async (count) => {
  const rt = createRuntime({ session: discardSink() })
  const m = new McpManager({
    root: process.cwd(),
    servers: Array.from({ length: count }, (_, i) => entry(`s${i}`, [FAULT])),
    log: () => {},
  }).attach(rt)
  const t = performance.now()
  await m.start()
  m.sync()
  const ms = performance.now() - t
  const tools = rt.schemas().length
  await m.dispose()
  return { ms, tools }
}
const one = []
const three = []
let registered = 0
for (let r = 0; r < 3; r++) {
  one.push((await startup(1)).ms)
  const s = await startup(3)
  three.push(s.ms)
  registered = s.tools
}
console.log(`start one local server until its tools are registered: ${median(one).toFixed(0)} ms (baseline)`)
console.log(
  `start three local servers until all ${registered} tools are registered: ${median(three).toFixed(0)} ms, ${(median(three) / median(one)).toFixed(2)}x one server`,
)

// 3. tools[] bytes for 100 MCP tools, with and without deferred loading
{
  const rt = createRuntime({ session: discardSink() })
  const m = new McpManager({
    root: process.cwd(),
    servers: [entry('crm', [FAULT, '--variant', 'many:100'])],
    log: () => {},
  }).attach(rt)
  await m.start()
  m.sync()
  const deferred = new DeferredTools({ thresholdBytes: 10_000 })
  rt.register(toolSearchTool({ catalog: deferred }))
  const all = rt.schemas()
  const bytes = (tools) =>
    JSON.stringify(
      anthropicCodec.encodeRequest({ messages: [], tools }, { model: 'm', maxTokens: 1, stream: false }).body
        .tools,
    ).length
  const full = bytes(all)
  const plan = deferred.plan(all)
  const note = deferred.announce([])
  const noteBytes = note ? JSON.stringify(note.content).length : 0
  const lean = bytes(plan.tools)
  console.log(`tools[] with 100 MCP tools loaded: ${full.toLocaleString('en-US')} bytes (baseline)`)
  console.log(
    `tools[] with the 100 MCP tools deferred (tool_search only): ${lean.toLocaleString('en-US')} bytes, ${(lean / full).toFixed(3)}x; the one-time name note adds ${noteBytes.toLocaleString('en-US')} bytes`,
  )
  await m.dispose()
}
