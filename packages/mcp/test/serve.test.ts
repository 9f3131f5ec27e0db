// serveRuntime with the SDK's own client over its in-memory transport: output schemas and
// structuredContent, progress notifications from the call's session events and their cap. The
// spawned binary (policy, sandbox, elicitation, cancellation) is tested in packages/cli.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import {
  createApprovalService,
  createRuntime,
  defineTool,
  jsonOutput,
  type SessionEvent,
  textOutput,
} from '@toolgate/core'
import { afterEach, describe, expect, it } from 'vitest'
import {
  MAX_PROGRESS_PER_CALL,
  objectOutputSchema,
  type ServedRuntime,
  serveRuntime,
} from '../src/server/serve.js'
import { OrderedTransport } from '../src/transport/ordered.js'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

const chatty = defineTool({
  name: 'chatty',
  description: 'Emits many events.',
  parameters: { type: 'object', properties: { events: { type: 'integer' } }, required: ['events'] },
  output: textOutput(),
  isConcurrencySafe: () => true,
  execute: (args, exec) => {
    for (let i = 0; i < (args.events as number); i++) exec.emit('chatty/step', { i })
    return 'done'
  },
})

const sum = defineTool({
  name: 'sum',
  description: 'Adds two numbers.',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  output: jsonOutput({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }),
  isConcurrencySafe: () => true,
  execute: (args) => ({ sum: (args.a as number) + (args.b as number) }),
})

/** A runtime served to an SDK client in memory; the session sink feeds `served.observe`. */
async function served(): Promise<Client> {
  let serving: ServedRuntime | undefined
  const events: SessionEvent[] = []
  const runtime = createRuntime({
    session: {
      write: (e) => {
        events.push(e)
        serving?.observe(e)
      },
      events: () => events,
    },
  })
  runtime.register(chatty)
  runtime.register(sum)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  serving = await serveRuntime({ runtime, approval: createApprovalService(), transport: serverSide })
  const client = new Client({ name: 'unit', version: '1.0.0' })
  await client.connect(new OrderedTransport(clientSide))
  cleanup.push(async () => {
    await client.close()
    await runtime.dispose()
  })
  return client
}

describe('serveRuntime: structured output and progress', () => {
  it('declares object output schemas and returns the value as structuredContent; a failure has none', async () => {
    const client = await served()
    const { tools } = await client.listTools()
    expect(tools.map((t) => [t.name, t.outputSchema])).toEqual([
      ['chatty', undefined],
      ['sum', { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }],
    ])
    const ok = await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } })
    expect(ok.structuredContent).toEqual({ sum: 5 })
    const bad = await client.callTool({ name: 'sum', arguments: { a: 2 } })
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent).toBeUndefined()
  })

  it("a call's events are numbered progress notifications, capped per call; without a token none", async () => {
    const client = await served()
    const seen: { progress: number; message?: string }[] = []
    const few = await client.callTool({ name: 'chatty', arguments: { events: 2 } }, undefined, {
      onprogress: (p) => seen.push({ progress: p.progress, message: p.message }),
    })
    expect(few.isError).toBeUndefined()
    expect(seen).toEqual([
      { progress: 1, message: 'tool/call' },
      { progress: 2, message: 'chatty/step' },
      { progress: 3, message: 'chatty/step' },
    ])

    seen.length = 0
    await client.callTool({ name: 'chatty', arguments: { events: MAX_PROGRESS_PER_CALL + 500 } }, undefined, {
      onprogress: (p) => seen.push({ progress: p.progress }),
    })
    expect(seen.length).toBe(MAX_PROGRESS_PER_CALL)
    expect(seen.at(-1)).toEqual({ progress: MAX_PROGRESS_PER_CALL })

    // No progress token: nothing is sent (the SDK client reports stray progress as an error).
    const errors: Error[] = []
    client.onerror = (e) => errors.push(e)
    await client.callTool({ name: 'chatty', arguments: { events: 3 } })
    expect(errors).toEqual([])
  })
})

describe('objectOutputSchema (MCP output schemas are object schemas)', () => {
  it('keeps an object schema, types a union of object kinds, refuses anything else', () => {
    const kinds = {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'a' } } },
        { type: 'object', properties: { kind: { const: 'b' } } },
      ],
    }
    expect(objectOutputSchema({ type: 'object', properties: {} })).toEqual({ type: 'object', properties: {} })
    expect(objectOutputSchema(kinds)).toEqual({ type: 'object', ...kinds })
    expect(objectOutputSchema({ anyOf: [{ type: 'object' }, { type: 'string' }] })).toBeUndefined()
    expect(objectOutputSchema({ type: 'string' })).toBeUndefined()
    expect(objectOutputSchema({ oneOf: [] })).toBeUndefined()
    expect(objectOutputSchema({})).toBeUndefined()
    expect(objectOutputSchema(undefined)).toBeUndefined()
  })
})
