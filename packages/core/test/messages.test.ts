import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createRuntime, defineTool, errorDetail, type ToolCall, textOutput } from '../src/index.js'

// Issue 17: what the model reads after a mistake leads somewhere. Exact text, as the model sees
// it (`content[0].text`, which is also `error.message` for these failures).

const call = (name: string, args: ToolCall['arguments'], callId = 'c1'): ToolCall => ({
  callId,
  name,
  arguments: args,
})

const body = vi.fn(() => 'ran')
const readTool = defineTool({
  name: 'read',
  description: 'Read a file.',
  parameters: z.object({
    path: z.string(),
    offset: z.number().int().min(1).optional(),
    limit: z.number().int().optional(),
  }),
  output: textOutput(),
  execute: body,
})
const pingTool = defineTool({
  name: 'ping',
  description: 'Ping.',
  parameters: z.object({ verbose: z.boolean().optional() }),
  output: textOutput(),
  execute: () => 'pong',
})
const modeTool = defineTool({
  name: 'mode',
  description: 'Set a mode.',
  parameters: {
    type: 'object',
    properties: { mode: { enum: ['fast', 'safe'] }, level: { type: 'integer', minimum: 3 } },
    required: ['mode', 'level'],
    additionalProperties: false,
  },
  output: textOutput(),
  execute: () => 'set',
})
// As MCP servers write them: no additionalProperties, so undeclared keys are the server's.
const mcpTool = defineTool({
  name: 'mcp__db__query',
  description: 'Query.',
  parameters: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] },
  output: textOutput(),
  execute: (args) => JSON.stringify(args),
})

function runtime() {
  const rt = createRuntime()
  for (const tool of [readTool, pingTool, modeTool, mcpTool]) rt.register(tool)
  return rt
}

const seen = async (c: ToolCall) => {
  const result = await runtime().execute(c)
  return {
    text: result.content[0]?.type === 'text' ? result.content[0].text : undefined,
    error: result.error,
  }
}

describe('empty arguments: the hint is built from the schema', () => {
  it('names the required parameters and a minimal valid call', async () => {
    for (const raw of ['', '  ', 'null', '{}']) {
      expect((await seen(call('read', raw))).text).toBe(
        'The arguments for read are empty, but read requires path. Call it again with a JSON object such as {"path":"…"}.',
      )
    }
    expect((await seen(call('mode', ''))).text).toBe(
      'The arguments for mode are empty, but mode requires mode, level. Call it again with a JSON object such as {"mode":"fast","level":3}.',
    )
    expect(body).not.toHaveBeenCalled()
  })

  it('a tool without required parameters: "" asks for {}, and {} runs', async () => {
    expect((await seen(call('ping', ''))).text).toBe(
      'The arguments for ping are empty; send a JSON object such as {}.',
    )
    expect((await seen(call('ping', '{}'))).text).toBe('pong')
  })
})

describe('unknown parameter names', () => {
  it('are named, with the parameter they were probably meant to be, and the call does not run', async () => {
    const { text, error } = await seen(call('read', { file_path: 'a.txt' }))
    expect(error?.code).toBe('INVALID_ARGS')
    expect(text).toBe(
      [
        'The arguments for read do not match its parameters schema:',
        '- "file_path" is not a parameter of read; did you mean "path"?',
        '- arguments.path: Invalid input: expected string, received undefined',
        'Fix these fields and call read again.',
      ].join('\n'),
    )
    expect(body).not.toHaveBeenCalled()
  })

  it('fail the call even when the validator would drop them (zod strips unknown keys)', async () => {
    expect((await seen(call('read', { path: 'a.txt', ofset: 3 }))).text).toBe(
      [
        'The arguments for read do not match its parameters schema:',
        '- "ofset" is not a parameter of read; did you mean "offset"?',
        'Fix these fields and call read again.',
      ].join('\n'),
    )
    expect(body).not.toHaveBeenCalled()
  })

  it('without a close match, list the real parameters; past five, a count', async () => {
    const args = Object.fromEntries(['zz1', 'zz2', 'zz3', 'zz4', 'zz5', 'zz6', 'zz7'].map((k) => [k, 1]))
    expect((await seen(call('read', { path: 'a', ...args }))).text).toBe(
      [
        'The arguments for read do not match its parameters schema:',
        ...['zz1', 'zz2', 'zz3', 'zz4', 'zz5'].map(
          (k) => `- "${k}" is not a parameter of read (its parameters: path, offset, limit); remove it`,
        ),
        '- 2 more unknown parameters; remove them',
        'Fix these fields and call read again.',
      ].join('\n'),
    )
  })

  it('a strict schema (additionalProperties: false) names them once, not twice', async () => {
    expect((await seen(call('mode', { mode: 'fast', levl: 3 }))).text).toBe(
      [
        'The arguments for mode do not match its parameters schema:',
        '- "levl" is not a parameter of mode; did you mean "level"?',
        '- arguments.level: is required but missing',
        'Fix these fields and call mode again.',
      ].join('\n'),
    )
  })

  it('a schema that lets undeclared keys through hands them to the tool', async () => {
    expect((await seen(call('mcp__db__query', { sql: 'select 1', timeout: 5 }))).text).toBe(
      '{"sql":"select 1","timeout":5}',
    )
    // ...but names them when the call fails for another reason.
    expect((await seen(call('mcp__db__query', { query: 'select 1' }))).text).toBe(
      [
        'The arguments for mcp__db__query do not match its parameters schema:',
        '- "query" is not a parameter of mcp__db__query (its parameters: sql); remove it',
        '- arguments.sql: is required but missing',
        'Fix these fields and call mcp__db__query again.',
      ].join('\n'),
    )
  })
})

describe('every denial and block ends with a next step', () => {
  it('a guard: its reason, framed with the way forward every guard denial shares', async () => {
    const rt = runtime()
    rt.guard((exec) => (exec.name === 'ping' ? 'pings are off today' : undefined))
    rt.guard((exec) => (exec.name === 'read' ? { message: 'Load it first: call tool_search.' } : undefined))
    rt.guard((exec) => (exec.name === 'mode' ? (42 as unknown as string) : undefined))
    const texts = await Promise.all(
      [call('ping', {}), call('read', { path: 'a' }), call('mode', { mode: 'fast', level: 3 })].map(
        async (c) => (await rt.execute(c)).error?.message,
      ),
    )
    expect(texts).toEqual([
      'This ping call was denied by a guard: pings are off today. It did not run and no approval can allow it; do not retry it: take a different approach.',
      'Load it first: call tool_search.',
      'This mode call was denied by a guard. It did not run and no approval can allow it; do not retry it: take a different approach.',
    ])
  })

  it('a malformed decision fails closed and says retrying will not help; a bare deny says what to do', async () => {
    const rt = runtime()
    rt.on('tools/pre-execute', (exec, next) =>
      exec.name === 'ping'
        ? ({ kind: 'maybe' } as never)
        : exec.name === 'read'
          ? ({ kind: 'deny', reason: '' } as never)
          : next(),
    )
    expect((await rt.execute(call('ping', {}))).error?.message).toBe(
      'This ping call was denied: a policy gave no valid decision, so it failed closed; it did not run. Retrying will not help: continue without it or tell the user the policy is broken.',
    )
    expect((await rt.execute(call('read', { path: 'a' }))).error?.message).toBe(
      'This read call was denied by policy; it did not run. Do not retry it unchanged: take a different approach or ask the user.',
    )
  })

  it('a post-execute block without feedback shows the default message, which says the call ran', async () => {
    const rt = runtime()
    rt.on('tools/post-execute', () => ({ kind: 'block', feedback: [] }))
    const result = await rt.execute(call('ping', {}))
    const message =
      'This ping call ran, but a post-execute policy withheld its result. Do not run it again to see the result: continue without it, or ask the user.'
    expect(result.error).toEqual({ kind: 'hook_blocked', code: 'BLOCKED', message })
    expect(result.content).toEqual([{ type: 'text', text: message }])
  })
})

describe('TOOL_EXCEPTION: the message, no stack, no host path, short', () => {
  it('keeps the first line, cuts absolute paths to their last segment', async () => {
    const rt = createRuntime()
    rt.register(
      defineTool({
        name: 'boom',
        description: 'Boom.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => {
          const error = new Error(
            "ENOENT: no such file or directory, open '/home/alice/.cache/app/state.json'",
          )
          error.stack = `${error.message}\n    at load (/opt/app/dist/load.js:10:5)`
          throw error
        },
      }),
    )
    expect((await rt.execute(call('boom', {}))).error).toEqual({
      kind: 'exception',
      code: 'TOOL_EXCEPTION',
      message:
        "The boom tool failed unexpectedly (internal error: ENOENT: no such file or directory, open '…/state.json'). This is not caused by your arguments; you may retry once, then report the problem.",
    })
  })

  it('errorDetail: first line, paths of every spelling, URLs kept, at most 200 characters', () => {
    expect(errorDetail('boom\n    at f (/opt/app/node_modules/x/index.js:10:5)')).toBe('boom')
    expect(errorDetail('failed at /srv/app/dist/x.js:1:2')).toBe('failed at …/x.js:1:2')
    expect(errorDetail('C:\\Users\\me\\x.txt broke')).toBe('…/x.txt broke')
    expect(errorDetail('see file:///srv/app/dist/x.js')).toBe('see …/x.js')
    expect(errorDetail('see https://example.com/a/b and src/a/b.ts')).toBe(
      'see https://example.com/a/b and src/a/b.ts',
    )
    expect(errorDetail('')).toBe('no message')
    expect(errorDetail('x'.repeat(300))).toBe(`${'x'.repeat(199)}…`)
  })
})
