// What each provider wire receives for the tools of a real MCP server (issue 16 §3; seed 003
// §11.6: MCP tools are never sent strict). The fault-injection server publishes legacy, typeless
// and empty schemas and the root shapes that 400 a whole request on the Anthropic and OpenAI
// wires (root anyOf / oneOf, a bare root $ref). Each wire gets one real HTTP request on loopback
// with `strictTools: true`; the request body is read back as the server received it.
import type { ToolSchema } from '@toolgate/core'
import { createModelClient, DIALECTS, type Provider } from '@toolgate/providers'
import { afterEach, describe, expect, it } from 'vitest'
import { type Handler, loopback } from '../../providers/test/loopback.js'
import { fault, managed } from './helpers.js'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

/** A tool of our own with an optional parameter: the strict dialects still apply to it. */
const OWN: ToolSchema = {
  name: 'read',
  description: 'Read a file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, offset: { type: 'integer' } },
    required: ['path'],
  },
}

const json =
  (body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }

const REPLY: Record<Provider, unknown> = {
  anthropic: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 1, output_tokens: 1 },
  },
  'openai-chat': {
    id: 'c1',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  },
  'openai-responses': {
    id: 'r1',
    status: 'completed',
    output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] }],
  },
}

type WireTool = { name: string; parameters: Record<string, unknown>; strict: boolean }

/** The tools as the wire carries them, in one shape for the three formats. */
function wireTools(provider: Provider, body: unknown): WireTool[] {
  const tools = (body as { tools: Record<string, unknown>[] }).tools
  return tools.map((t) => {
    if (provider === 'anthropic')
      return { name: t.name as string, parameters: t.input_schema as never, strict: t.strict === true }
    if (provider === 'openai-chat') {
      const f = t.function as Record<string, unknown>
      return { name: f.name as string, parameters: f.parameters as never, strict: f.strict === true }
    }
    return { name: t.name as string, parameters: t.parameters as never, strict: t.strict === true }
  })
}

async function mcpSchemas(): Promise<readonly ToolSchema[]> {
  const s = managed([fault('fault')])
  cleanup.push(() => s.manager.dispose())
  await s.manager.start()
  s.manager.sync()
  return s.runtime.schemas()
}

describe('MCP tools on every wire (real server, real HTTP on loopback, strictTools on)', () => {
  for (const provider of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${provider}: MCP tools go lenient without a fallback, our own tool goes strict, nothing is left out`, async () => {
      const mcp = await mcpSchemas()
      const server = await loopback([json(REPLY[provider])])
      cleanup.push(() => server.close())
      const fallbacks: unknown[] = []
      const omissions: unknown[] = []
      const client = createModelClient({
        provider,
        baseUrl: server.baseUrl,
        apiKey: 'test',
        model: 'm',
        strictTools: true,
        onSchemaFallback: (f) => fallbacks.push(f),
        onSchemaOmission: (o) => omissions.push(o),
      })
      const reply = await client.complete({
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        tools: [OWN, ...mcp],
      })
      expect(reply.stopReason).toBe('done')
      const sent = wireTools(provider, server.requests[0]!.body)
      expect(sent.map((t) => t.name)).toEqual(['read', ...mcp.map((t) => t.name)])
      expect(sent.filter((t) => t.strict).map((t) => t.name)).toEqual(['read'])
      expect(fallbacks).toEqual([])
      expect(omissions).toEqual([])
      // No root the wire refuses: type "object", none of the family's refused root keywords.
      const refused = DIALECTS[provider === 'anthropic' ? 'anthropic' : 'openai'].rootRefused
      for (const t of sent) {
        expect(t.parameters.type, t.name).toBe('object')
        expect(
          Object.keys(t.parameters).filter((k) => refused.has(k)),
          t.name,
        ).toEqual([])
        expect(JSON.stringify(t.parameters), t.name).not.toContain('$schema')
      }
      const byName = (n: string) => sent.find((t) => t.name === `mcp__fault__${n}`)!.parameters
      // The rule the root could not carry is in the description, as JSON Schema.
      expect(byName('root_union')).toEqual({
        type: 'object',
        properties: {
          project: { type: 'string' },
          paths: { type: 'array', items: { type: 'string' } },
          scopes: { type: 'array', items: { type: 'string' } },
        },
        required: ['project'],
        description:
          'The arguments must also satisfy this JSON Schema rule: {"anyOf":[{"required":["paths"]},{"required":["scopes"]}]}',
      })
      expect(byName('root_one_of')).toEqual({
        type: 'object',
        properties: { content: { type: 'string' }, source_url: { type: 'string', format: 'uri' } },
        description:
          'The arguments must also satisfy this JSON Schema rule: {"oneOf":[{"properties":{"content":{"type":"string"}},"required":["content"]},{"properties":{"source_url":{"type":"string","format":"uri"}},"required":["source_url"]}]}',
      })
      expect(byName('root_ref')).toEqual({
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
        required: ['city'],
        $defs: {
          Args: {
            type: 'object',
            properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
            required: ['city'],
          },
        },
      })
      // Legacy draft-04 forms arrive as the bridge normalized them (bridge.test.ts has the exact
      // form), unchanged by the lenient dialect.
      const registered = (n: string) => mcp.find((t) => t.name === `mcp__fault__${n}`)!.parameters
      for (const n of ['legacy', 'no_type', 'structured']) expect(byName(n), n).toEqual(registered(n))
      expect(byName('empty')).toEqual({ type: 'object', properties: {} })
    })
  }

  it('the rule moved into the description is still enforced: the runtime checks the server schema', async () => {
    const s = managed([fault('fault')])
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    s.manager.sync()
    const neither = await s.runtime.execute({
      callId: 'c1',
      name: 'mcp__fault__root_union',
      arguments: { project: 'p' },
    })
    expect(neither.error?.code).toBe('INVALID_ARGS')
    expect(neither.error?.message).toContain('must match a schema in anyOf')
    const both = await s.runtime.execute({
      callId: 'c2',
      name: 'mcp__fault__root_one_of',
      arguments: { content: 'x', source_url: 'https://example.com/a' },
    })
    expect(both.error?.code).toBe('INVALID_ARGS')
    const good = await s.runtime.execute({
      callId: 'c3',
      name: 'mcp__fault__root_union',
      arguments: { project: 'p', scopes: ['s'] },
    })
    expect(good.isError).toBe(false)
    expect(good.content).toEqual([{ type: 'text', text: '{"project":"p","scopes":["s"]}' }])
  })
})
