// `toolgate run` logs the tools a request could not send (strict, or at all) once per tool and
// reason, through the real model client against a loopback OpenAI-compatible server.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { JsonObject, JsonValue } from '@toolgate/core'
import { collectTurn, createModelClient } from '@toolgate/providers'
import { expect, test } from 'vitest'
import { schemaReporters } from '../src/commands/run.js'

test('a tool left out of every request is logged and named once, and the request still goes', async () => {
  const bodies: { tools?: { function: { name: string } }[] }[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8')
    })
    req.on('end', () => {
      bodies.push(JSON.parse(body))
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      res.end(`${chunk({ role: 'assistant', content: 'ok' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  try {
    const logged: [string, Record<string, JsonValue>][] = []
    const warned: string[] = []
    const client = createModelClient({
      provider: 'openai-chat',
      model: 'local',
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      ...schemaReporters(
        (type, payload) => logged.push([type, payload]),
        (line) => warned.push(line),
      ),
    })
    const tools = [
      { name: 'good', description: 'ok', parameters: { type: 'object', properties: {} } },
      {
        name: 'mcp__srv__broken',
        description: 'unusable',
        parameters: { type: 'object', properties: { a: 5 } } as unknown as JsonObject,
      },
    ]
    for (let turn = 0; turn < 2; turn++)
      await collectTurn(
        client.stream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools }),
      )
    expect(bodies.map((b) => b.tools?.map((t) => t.function.name))).toEqual([['good'], ['good']])
    const message =
      'openai cannot express `schema` at /properties/a: expected a schema (object or boolean), got number'
    expect(logged).toEqual([
      [
        'provider/schema-omission',
        { tool: 'mcp__srv__broken', keyword: 'schema', path: '/properties/a', message },
      ],
    ])
    expect(warned).toEqual([`mcp__srv__broken is left out of the requests: ${message}`])
  } finally {
    await new Promise<void>((r) => server.close(() => r()))
  }
})
