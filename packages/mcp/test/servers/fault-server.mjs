#!/usr/bin/env node
// A fault-injection MCP server written with the official SDK (low-level Server, so it can send
// schemas and results a well-behaved server would not). Flags:
//   --slow-start <ms>   wait before answering anything
//   --crash-on-start    print to stderr and exit 3 before the handshake
//   --stderr-noise      print lines to stderr at start and in every call
//   --variant <name>    tool set: "default" | "collide" | "many:<n>"
import { spawn } from 'node:child_process'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const args = process.argv.slice(2)
const flag = (name) => args.includes(name)
const value = (name) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}

if (flag('--crash-on-start')) {
  process.stderr.write('fault-server: configuration file /etc/fault.conf is missing\n')
  process.exit(3)
}
if (flag('--stderr-noise')) process.stderr.write('fault-server: starting up (noise line 1)\nnoise line 2\n')
const slow = Number(value('--slow-start') ?? 0)
if (slow > 0) await new Promise((r) => setTimeout(r, slow))

// 1x1 transparent PNG
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII='
const text = (t) => ({ content: [{ type: 'text', text: t }] })
const obj = (properties = {}, required = []) => ({ type: 'object', properties, required })

let extraTools = []
const variant = value('--variant') ?? 'default'

function baseTools() {
  if (variant === 'collide')
    return [
      { name: 'my tool!', description: 'first', inputSchema: obj() },
      { name: 'my_tool_', description: 'second', inputSchema: obj() },
      { name: 'my-tool', description: 'third', inputSchema: obj() },
    ]
  if (variant.startsWith('many:')) {
    const n = Number(variant.slice(5))
    return Array.from({ length: n }, (_, i) => ({
      name: `op_${String(i).padStart(3, '0')}`,
      description: `Operation number ${i}: does one small thing to a record and returns its new state.`,
      inputSchema: obj({ id: { type: 'string', description: 'Record id' }, note: { type: 'string' } }, [
        'id',
      ]),
    }))
  }
  return [
    {
      name: 'echo',
      description: 'Echo the text back.',
      inputSchema: obj({ text: { type: 'string' } }, ['text']),
    },
    { name: 'hang', description: 'Never answers (until cancelled).', inputSchema: obj() },
    { name: 'crash', description: 'Exits in the middle of the call.', inputSchema: obj() },
    {
      name: 'huge',
      description: 'Returns a lot of text.',
      inputSchema: obj({ chars: { type: 'integer' }, cjk: { type: 'boolean' } }, ['chars']),
    },
    {
      name: 'images',
      description: 'Returns images.',
      inputSchema: obj({ count: { type: 'integer' } }, ['count']),
    },
    { name: 'mixed', description: 'Returns every kind of content block.', inputSchema: obj() },
    { name: 'fail', description: 'Reports an error.', inputSchema: obj() },
    { name: 'progress', description: 'Reports progress, then answers.', inputSchema: obj() },
    {
      name: 'structured',
      description: 'Structured output.',
      inputSchema: obj({ good: { type: 'boolean' } }),
      outputSchema: obj({ sum: { type: 'number' } }, ['sum']),
    },
    { name: 'add_tool', description: 'Adds a tool and announces list_changed.', inputSchema: obj() },
    { name: 'spawn_child', description: 'Starts a long-running child process.', inputSchema: obj() },
    {
      name: 'legacy',
      description: 'A draft-04 style schema.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        properties: {
          count: { type: 'integer', minimum: 0, exclusiveMinimum: true },
          pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
          name: { type: 'string', required: true },
          tag: { $ref: '#/definitions/tag' },
          note: { type: 'string', nullable: true },
        },
        definitions: { tag: { type: 'string', enum: ['a', 'b'] } },
      },
    },
    {
      name: 'no_type',
      description: 'inputSchema without a type.',
      inputSchema: { properties: { q: { type: 'string' } } },
    },
    { name: 'empty', description: 'inputSchema {}.', inputSchema: {} },
    { name: 'broken', description: 'inputSchema is a string.', inputSchema: 'oops' },
    { description: 'no name at all', inputSchema: obj() },
    { name: 'wordy', description: 'x'.repeat(5000), inputSchema: obj() },
    ...extraTools,
  ]
}

const server = new Server(
  { name: 'fault-server', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
)
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: baseTools() }))
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name } = request.params
  const a = request.params.arguments ?? {}
  if (flag('--stderr-noise')) process.stderr.write(`call ${name}\n`)
  switch (name) {
    case 'echo':
      return text(String(a.text))
    case 'added':
      return text('the added tool ran')
    case 'hang':
      // Said on stderr so a test can wait until the request has really arrived (a gate, not a sleep).
      process.stderr.write(`hanging request ${extra.requestId}\n`)
      return new Promise((_resolve, reject) => {
        extra.signal.addEventListener('abort', () => {
          process.stderr.write(`cancelled request ${extra.requestId}\n`)
          reject(new Error('cancelled'))
        })
      })
    case 'crash':
      process.stderr.write('fault-server: about to crash mid-call\n')
      setTimeout(() => process.exit(7), 10)
      return new Promise(() => {})
    case 'huge': {
      const unit = a.cjk ? '漢' : 'a'
      return text(unit.repeat(Number(a.chars)))
    }
    case 'images':
      return {
        content: [
          { type: 'text', text: `${a.count} images follow` },
          ...Array.from({ length: Number(a.count) }, () => ({
            type: 'image',
            data: PNG,
            mimeType: 'image/png',
          })),
        ],
      }
    case 'mixed':
      return {
        content: [
          { type: 'text', text: 'plain text' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
          {
            type: 'resource_link',
            uri: 'file:///data/report.csv',
            name: 'report.csv',
            mimeType: 'text/csv',
            description: 'The report',
          },
          {
            type: 'resource',
            resource: { uri: 'file:///data/notes.txt', mimeType: 'text/plain', text: 'embedded notes' },
          },
          {
            type: 'resource',
            resource: { uri: 'file:///data/blob.bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
          },
        ],
      }
    case 'fail':
      return { isError: true, content: [{ type: 'text', text: 'quota exceeded for project demo' }] }
    case 'progress': {
      const token = request.params._meta?.progressToken
      if (token !== undefined)
        for (let i = 1; i <= 3; i++)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: 3, message: `step ${i}` },
          })
      return text('progress done')
    }
    case 'structured':
      return a.good === false
        ? { content: [{ type: 'text', text: '{"sum":"no"}' }], structuredContent: { sum: 'no' } }
        : { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } }
    case 'add_tool':
      extraTools = [{ name: 'added', description: 'A tool added at run time.', inputSchema: obj() }]
      await server.sendToolListChanged()
      return text('added')
    case 'spawn_child': {
      const child = spawn('sleep', ['300'], { stdio: 'ignore' })
      return text(String(child.pid))
    }
    default:
      return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] }
  }
})

await server.connect(new StdioServerTransport())
if (flag('--stderr-noise')) process.stderr.write('fault-server: ready\n')
