// MCP (issue 16 §6): the overhead of a tool call through toolgate (pipeline + bridge + the SDK
// client) above the same call made directly with the SDK client, against the same real server
// (server-everything over stdio); the time until every tool of three local servers is registered;
// and tools[] bytes for 100 MCP tools with and without deferred loading.
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { DeferredTools } from '@toolgate/agent'
import { createRuntime, discardSink } from '@toolgate/core'
import { McpManager } from '@toolgate/mcp'
import { anthropicCodec } from '@toolgate/providers'
import { toolSearchTool } from '@toolgate/tools'

const N = Number(process.env.BENCH_N ?? 300)
const ROUNDS = 5
const EVERYTHING = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
)
const FAULT = fileURLToPath(new URL('../packages/mcp/test/servers/fault-server.mjs', import.meta.url))
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const entry = (name, args) => {
  const config = { type: 'stdio', command: process.execPath, args, env: {} }
  return { name, source: 'code', file: '(bench)', raw: config, config, problems: [] }
}

// 1. per-call overhead
const direct = new Client({ name: 'bench', version: '1' })
await direct.connect(
  new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
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
const viaSdk = () => direct.callTool({ name: 'echo', arguments: { message: 'hi' } })
const viaToolgate = () =>
  runtime.execute({ callId: `c${id++}`, name: 'mcp__everything__echo', arguments: { message: 'hi' } })
const time = async (fn) => {
  const t = performance.now()
  for (let i = 0; i < N; i++) await fn()
  return ((performance.now() - t) / N) * 1000
}
for (let i = 0; i < 50; i++) {
  await viaSdk()
  await viaToolgate()
}
const sdk = []
const tg = []
for (let r = 0; r < ROUNDS; r++) {
  sdk.push(await time(viaSdk))
  tg.push(await time(viaToolgate))
}
const sdkUs = median(sdk)
const tgUs = median(tg)
console.log(
  `MCP call, server-everything echo over stdio, direct SDK client: ${sdkUs.toFixed(0)} us/call (baseline)`,
)
console.log(
  `MCP call through toolgate (pipeline + bridge + SDK client): ${tgUs.toFixed(0)} us/call, ${(tgUs / sdkUs).toFixed(2)}x direct (+${(tgUs - sdkUs).toFixed(0)} us)`,
)
await direct.close()
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
