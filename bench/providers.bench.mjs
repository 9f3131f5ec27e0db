// @toolgate/providers: stream decode throughput per codec (vs plain JSON.parse of the same SSE data
// lines), the whole client path with the transport's bounds (idle and total timers, body and event
// caps, the output budget; vs the same decode without them, both into collectTurn), and the bytes of a representative tools[] per
// schema dialect (vs raw z.toJSONSchema).
import {
  CODECS,
  collectTurn,
  createModelClient,
  readSseBatches,
  SCHEMA_DIALECTS,
  toProviderSchema,
} from '@toolgate/providers'
import { z } from 'zod'
import { report } from './lib.mjs'

const RUNS = 9
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (n, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

// ---- realistic transcripts, scaled up: text deltas plus tool calls with many argument deltas ----
const sse = (events) =>
  events
    .map(
      (e) =>
        `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    )
    .join('')
const words = 'The quick brown fox reads package.json and edits README.md — 然后运行 lint. '.split(' ')
const textPiece = (i) => `${words[i % words.length]} `
const argPieces = (i) => [
  `{"path":"src/file_${i}.ts",`,
  '"content":"',
  ...Array.from({ length: 20 }, (_, k) => `line ${k} of a long file body\\n`),
  '"}',
]

function anthropicTranscript(turns) {
  const ev = [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { id: 'm', usage: { input_tokens: 1 } } },
    },
  ]
  let index = 0
  for (let t = 0; t < turns; t++) {
    ev.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
    })
    for (let i = 0; i < 20; i++)
      ev.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: textPiece(i) } },
      })
    ev.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } })
    index++
    ev.push({
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: `toolu_${t}`, name: 'write', input: {} },
      },
    })
    for (const p of argPieces(t))
      ev.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } },
      })
    ev.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } })
    index++
  }
  ev.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
  })
  ev.push({ event: 'message_stop', data: { type: 'message_stop' } })
  return sse(ev)
}

function chatTranscript(turns) {
  const chunk = (delta, finish = null) => ({
    data: {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  })
  const ev = []
  for (let t = 0; t < turns; t++) {
    for (let i = 0; i < 20; i++) ev.push(chunk({ content: textPiece(i) }))
    ev.push(
      chunk({
        tool_calls: [
          { index: t, id: `call_${t}`, type: 'function', function: { name: 'write', arguments: '' } },
        ],
      }),
    )
    for (const p of argPieces(t)) ev.push(chunk({ tool_calls: [{ index: t, function: { arguments: p } }] }))
  }
  ev.push(chunk({}, 'tool_calls'), { data: '[DONE]' })
  return sse(ev)
}

function responsesTranscript(turns) {
  const ev = []
  const r = (type, rest) => ({ event: type, data: { type, ...rest } })
  for (let t = 0; t < turns; t++) {
    for (let i = 0; i < 20; i++)
      ev.push(
        r('response.output_text.delta', {
          item_id: `msg_${t}`,
          output_index: 0,
          content_index: 0,
          delta: textPiece(i),
        }),
      )
    ev.push(
      r('response.output_item.added', {
        output_index: t + 1,
        item: { type: 'function_call', id: `fc_${t}`, call_id: `call_${t}`, name: 'write', arguments: '' },
      }),
    )
    const pieces = argPieces(t)
    for (const p of pieces)
      ev.push(
        r('response.function_call_arguments.delta', { item_id: `fc_${t}`, output_index: t + 1, delta: p }),
      )
    ev.push(
      r('response.function_call_arguments.done', {
        item_id: `fc_${t}`,
        output_index: t + 1,
        arguments: pieces.join(''),
      }),
    )
  }
  ev.push(
    r('response.completed', {
      response: { id: 'r', status: 'completed', usage: { input_tokens: 1, output_tokens: 1 } },
    }),
  )
  return sse(ev)
}

const TURNS = 400
const transcripts = {
  anthropic: anthropicTranscript(TURNS),
  'openai-chat': chatTranscript(TURNS),
  'openai-responses': responsesTranscript(TURNS),
}

function chunksOf(bytes, size = 16 * 1024) {
  const out = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size))
  return out
}

function bodyOf(chunks) {
  let i = 0
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++])
      else c.close()
    },
  })
}

async function decodeAll(provider, chunks) {
  const body = bodyOf(chunks)
  const decoder = CODECS[provider].createStreamDecoder()
  let events = 0
  outer: for await (const batch of readSseBatches(body, (r) => r.read())) {
    for (const m of batch) {
      events += decoder.push(m).length
      if (decoder.finished) break outer
    }
  }
  return events + decoder.end().length
}

for (const [provider, text] of Object.entries(transcripts)) {
  const bytes = new TextEncoder().encode(text)
  const chunks = chunksOf(bytes)
  const mb = bytes.length / 1e6
  const dataLines = text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => l.slice(6))
  await decodeAll(provider, chunks) // warm-up
  const codec = []
  const base = []
  for (let r = 0; r < RUNS; r++) {
    globalThis.gc?.()
    let t = performance.now()
    await decodeAll(provider, chunks)
    codec.push(mb / ((performance.now() - t) / 1000))
    t = performance.now()
    let n = 0
    for (const l of dataLines) n += JSON.parse(l) ? 1 : 0
    base.push(mb / ((performance.now() - t) / 1000))
    if (n !== dataLines.length) throw new Error('baseline parsed fewer lines than it was given')
  }
  const c = median(codec)
  const b = median(base)
  report(
    `${provider} stream decode: ${fmt(c)} MB/s median of ${RUNS} runs over ${fmt(mb, 2)} MB (${fmt(c / b, 2)}x JSON.parse of the data lines, ${fmt(b)} MB/s)`,
  )
}

// ---- the client path: transport bounds around the same decode ----
// A fetch that answers from memory, so the line measures what createModelClient adds per chunk and
// per event (a timer per read, byte and event caps, the output budget, progress), not a socket.
async function clientAll(provider, chunks) {
  const client = createModelClient({
    provider,
    model: 'm',
    retries: 0,
    fetch: async () => new Response(bodyOf(chunks), { headers: { 'content-type': 'text/event-stream' } }),
  })
  const request = { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }
  return (await collectTurn(client.stream(request))).message.parts.length
}

// Baseline: the same decode as an async generator yielding each event (as client.stream does),
// without the transport: no timers, caps or budget (the body goes through a Response as well).
async function* bareStream(provider, chunks) {
  const decoder = CODECS[provider].createStreamDecoder()
  const body = new Response(bodyOf(chunks)).body
  for await (const batch of readSseBatches(body, (r) => r.read())) {
    for (const m of batch) {
      yield* decoder.push(m)
      if (decoder.finished) return
    }
  }
  yield* decoder.end()
}

// Both sides feed collectTurn, the consumer every caller uses, so the ratio is what a turn costs.
async function bareAll(provider, chunks) {
  return (await collectTurn(bareStream(provider, chunks))).message.parts.length
}

for (const [provider, text] of Object.entries(transcripts)) {
  const bytes = new TextEncoder().encode(text)
  const chunks = chunksOf(bytes)
  const mb = bytes.length / 1e6
  const bare = await bareAll(provider, chunks)
  const viaClient = await clientAll(provider, chunks) // warm-up, and the same message
  if (bare !== viaClient)
    throw new Error(`${provider}: the client gave ${viaClient} parts, the bare decode ${bare}`)
  const client = []
  const base = []
  for (let r = 0; r < RUNS; r++) {
    globalThis.gc?.()
    let t = performance.now()
    await bareAll(provider, chunks)
    base.push(mb / ((performance.now() - t) / 1000))
    globalThis.gc?.()
    t = performance.now()
    await clientAll(provider, chunks)
    client.push(mb / ((performance.now() - t) / 1000))
  }
  const c = median(client)
  const b = median(base)
  report(
    `${provider} client stream + collectTurn with transport bounds: ${fmt(c)} MB/s median of ${RUNS} runs (${fmt(b / c, 2)}x the time of the same generator + collectTurn without the transport, ${fmt(b)} MB/s)`,
  )
}

// ---- tools[] bytes per dialect ----
const tools = [
  {
    name: 'read',
    description: 'Read a file from the workspace. Returns numbered lines.',
    parameters: z.object({
      path: z.string().describe('Absolute path or path relative to the workspace root'),
      offset: z.number().int().min(1).optional().describe('Line number to start reading from (1-based)'),
      limit: z.number().int().positive().max(2000).optional().describe('Maximum number of lines to read'),
    }),
  },
  {
    name: 'write',
    description: 'Write a file, replacing its content.',
    parameters: z.object({
      path: z.string().describe('Path of the file to write'),
      content: z.string().describe('The full new content of the file'),
    }),
  },
  {
    name: 'edit',
    description: 'Replace an exact string in a file.',
    parameters: z.object({
      path: z.string().describe('Path of the file to edit'),
      old_string: z.string().min(1).describe('The exact text to replace'),
      new_string: z.string().describe('The replacement text'),
      replace_all: z
        .boolean()
        .default(false)
        .optional()
        .describe('Replace every occurrence instead of exactly one'),
    }),
  },
  {
    name: 'bash',
    description: 'Run a shell command in the workspace sandbox.',
    parameters: z.object({
      command: z.string().describe('The command to run'),
      description: z.string().max(120).optional().describe('What the command does, in a few words'),
      timeout_ms: z.number().int().min(1000).max(600000).optional().describe('Time limit in milliseconds'),
      run_in_background: z.boolean().optional().describe('Start as a background job and return its id'),
    }),
  },
  {
    name: 'grep',
    description: 'Search file contents with a regular expression.',
    parameters: z.object({
      pattern: z.string().describe('Regular expression to search for'),
      path: z.string().optional().describe('Directory or file to search (default: workspace root)'),
      glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts"'),
      output_mode: z.enum(['content', 'files_with_matches', 'count']).optional().describe('What to return'),
    }),
  },
]
const raw = tools.map((t) => ({
  name: t.name,
  description: t.description,
  parameters: z.toJSONSchema(t.parameters),
}))
const rawBytes = JSON.stringify(raw).length
report(
  `tools[] raw z.toJSONSchema (5 tools): ${rawBytes.toLocaleString('en-US')} bytes (baseline, ~${Math.round(rawBytes / 4)} tokens)`,
)
for (const dialect of SCHEMA_DIALECTS) {
  const compiled = raw.map((t) => ({ ...t, parameters: toProviderSchema(t.parameters, dialect) }))
  const bytes = JSON.stringify(compiled).length
  report(
    `tools[] ${dialect} (5 tools): ${bytes.toLocaleString('en-US')} bytes (${fmt(bytes / rawBytes, 2)}x raw z.toJSONSchema ${rawBytes.toLocaleString('en-US')} bytes)`,
  )
}
