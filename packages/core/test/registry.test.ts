import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  createRuntime,
  createSessionLog,
  defineTool,
  type JsonObject,
  jsonOutput,
  ToolDefinitionError,
  textOutput,
} from '../src/index.js'

const base = {
  description: 'A tool.',
  parameters: { type: 'object' },
  output: textOutput(),
  execute: () => '',
}

describe('defineTool and registration', () => {
  it.each([
    [
      { ...base, name: 'has space' },
      'Tool name "has space" is invalid: use 1-64 characters from a-z, A-Z, 0-9, "_" and "-"',
    ],
    [
      { ...base, name: 'x'.repeat(65) },
      `Tool name "${'x'.repeat(65)}" is invalid: use 1-64 characters from a-z, A-Z, 0-9, "_" and "-"`,
    ],
    [
      { ...base, name: 'out', output: undefined },
      'Tool "out" needs an output declaration { schema, render }; use textOutput() or jsonOutput(schema) for common shapes',
    ],
    [
      { ...base, name: 't', timeoutMs: 0 },
      'Tool "t" has timeoutMs 0: it must be a positive finite number of milliseconds',
    ],
    [
      { ...base, name: 't', timeoutMs: Number.POSITIVE_INFINITY },
      'Tool "t" has timeoutMs Infinity: it must be a positive finite number of milliseconds',
    ],
    [
      { ...base, name: 'd', description: ' ' },
      'Tool "d" needs a non-empty description: it is all the model knows of it',
    ],
  ])('rejects an invalid definition with a clear message (%#)', (definition, message) => {
    expect(() => defineTool(definition as never)).toThrow(new ToolDefinitionError(message))
  })

  it('rejects a duplicate name in the same scope, allows it in another', () => {
    const runtime = createRuntime()
    const tool = defineTool({ ...base, name: 'dup' })
    runtime.register(tool)
    expect(() => runtime.register(tool)).toThrow(
      'A tool named "dup" is already registered globally; dispose it first or pick another name',
    )
    const agent = runtime.agent('sub')
    agent.register(tool)
    expect(() => agent.register(tool)).toThrow(
      'A tool named "dup" is already registered for agent "sub"; dispose it first or pick another name',
    )
  })

  it('derives the model-facing schema once, by allowlist, without generator noise', () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'read',
        description: 'Read a file.',
        deferLoading: true,
        parameters: z.object({
          path: z.string().describe('Path to read'),
          limit: z.number().int().optional(),
        }),
        output: textOutput(),
        timeoutMs: 1000,
        isConcurrencySafe: () => true,
        execute: () => '',
      }),
    )
    expect(runtime.schemas()).toEqual([
      {
        name: 'read',
        description: 'Read a file.',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', description: 'Path to read' }, limit: { type: 'integer' } },
          required: ['path'],
        },
        deferLoading: true,
      },
    ])
    expect(runtime.schemas()).toBe(runtime.schemas())
    expect(Object.isFrozen(runtime.schemas()[0]?.parameters)).toBe(true)
  })

  it('compiles a schema that cannot change once per process; a mutable JSON Schema every time', async () => {
    const args = z.object({ text: z.string() })
    const mutable: { type: string; properties: Record<string, { type: string }>; required: string[] } = {
      type: 'object',
      properties: { n: { type: 'string' } },
      required: ['n'],
    }
    const session = () => {
      const runtime = createRuntime()
      runtime.register(defineTool({ ...base, name: 'zod', parameters: args }))
      runtime.register(defineTool({ ...base, name: 'json', parameters: mutable }))
      return runtime
    }
    const [first, second] = [session(), session()]
    const params = (r: ReturnType<typeof session>, name: string) =>
      r.schemas().find((s) => s.name === name)?.parameters
    expect(params(second, 'zod')).toBe(params(first, 'zod'))
    expect(params(second, 'json')).not.toBe(params(first, 'json'))
    // The author changes the plain object: the next registration sees the change, the first keeps its own.
    mutable.properties.n = { type: 'number' }
    const third = session()
    const call = { callId: 'c', name: 'json', arguments: { n: 1 } }
    expect((await third.execute(call)).isError).toBe(false)
    expect((await first.execute(call)).error?.code).toBe('INVALID_ARGS')
  })

  it('a JSON Schema with an $id registers in any number of runtimes (the shared validator forgets it)', () => {
    const parameters = Object.freeze({ $id: 'https://example.com/args', type: 'object' })
    const unfrozen = { $id: 'https://example.com/other', type: 'object' }
    for (let i = 0; i < 3; i++) {
      const runtime = createRuntime()
      runtime.register(defineTool({ ...base, name: 'a', parameters }))
      runtime.register(defineTool({ ...base, name: 'b', parameters: unfrozen }))
      expect(runtime.schemas().map((s) => s.name)).toEqual(['a', 'b'])
    }
  })

  it('orders schemas identically whatever order registration happened in', async () => {
    const names = ['zeta', 'alpha', 'mid', 'beta']
    const register = async (order: string[]) => {
      const runtime = createRuntime()
      await Promise.all(
        order.map(async (name, i) => {
          await new Promise((resolve) => setTimeout(resolve, (order.length - i) % 3))
          runtime.register(defineTool({ ...base, name }))
        }),
      )
      return JSON.stringify(runtime.schemas())
    }
    const a = await register(names)
    const b = await register([...names].reverse())
    expect(a).toBe(b)
    expect(JSON.parse(a).map((s: { name: string }) => s.name)).toEqual(['alpha', 'beta', 'mid', 'zeta'])
  })

  it('disposes a plugin’s registrations last in, first out', () => {
    const runtime = createRuntime()
    const order: string[] = []
    const plugin = runtime.use((ctx) => {
      ctx.onDispose(() => order.push('first'))
      ctx.register(defineTool({ ...base, name: 'p1' }))
      ctx.on('tools/pre-execute', (_e, next) => next())
      ctx.onDispose(() => order.push('last'))
      return () => order.push('teardown')
    })
    expect(runtime.schemas().map((s) => s.name)).toEqual(['p1'])
    plugin.dispose()
    expect(order).toEqual(['teardown', 'last', 'first'])
    expect(runtime.schemas()).toEqual([])
  })

  it('agent scopes apply tools, listeners and guards to that agent’s calls only', async () => {
    const runtime = createRuntime()
    const sub = runtime.agent('sub')
    sub.register(defineTool({ ...base, name: 'only_sub', execute: () => 'sub tool' }))
    sub.guard(() => 'sub agents may not call this')
    const main = await runtime.execute({ callId: '1', name: 'only_sub', arguments: {} })
    expect(main.error?.kind).toBe('unknown_tool')
    const fromSub = await runtime.execute({ callId: '2', name: 'only_sub', arguments: {}, agent: 'sub' })
    expect(fromSub.error?.message).toBe(
      'This only_sub call was denied by a guard: sub agents may not call this. It did not run and no approval can allow it; do not retry it: take a different approach.',
    )
    expect(runtime.schemas('sub').map((s) => s.name)).toEqual(['only_sub'])
  })
})

describe('type inference', () => {
  it('infers args from zod and values from the output schema', () => {
    defineTool({
      name: 'typed',
      description: 'Typed.',
      parameters: z.object({ path: z.string(), limit: z.number().optional() }),
      output: jsonOutput(z.object({ lines: z.array(z.string()) })),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string; limit?: number | undefined }>()
        return { lines: [args.path] }
      },
    })
    defineTool({
      name: 'raw',
      description: 'Raw.',
      parameters: { type: 'object' },
      output: textOutput(),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<JsonObject>()
        return 'x'
      },
    })
    // @ts-expect-error a text output must return a string
    defineTool({ ...base, name: 'bad', output: textOutput(), execute: () => 42 })
  })
})

describe('session log', () => {
  it('rejects a payload that is not lossless JSON, naming the path', () => {
    const log = createSessionLog()
    expect(() => log.append('tool/result', { meta: { when: new Date(0) } } as never)).toThrow(
      'session event tool/result is not lossless JSON: payload.meta.when is a Date, not a plain object or array; convert it to plain JSON first',
    )
    expect(log.events()).toEqual([])
  })

  it('a payload key named __proto__ is logged as data, never as the event prototype', () => {
    const log = createSessionLog()
    const payload = JSON.parse('{"__proto__": {"isError": true}, "callId": "c1", "seq": 99}')
    const event = log.append('fs/observed', payload)
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype)
    expect(Object.hasOwn(event, '__proto__')).toBe(true)
    expect((event as Record<string, unknown>).isError).toBe(undefined)
    expect(JSON.stringify(event)).toBe(
      '{"seq":1,"type":"fs/observed","__proto__":{"isError":true},"callId":"c1"}',
    )
    expect(Object.isFrozen(event)).toBe(true)
  })
})

describe('parent tokens and tool descriptors', () => {
  it('a parent token is honoured only while the execution that issued it runs', async () => {
    const { z } = await import('zod')
    const runtime = createRuntime()
    const seenParents: unknown[] = []
    let stale: import('../src/index.js').ParentToken | undefined
    runtime.register(
      defineTool({
        name: 'child',
        description: 'Child.',
        parameters: z.object({}),
        output: textOutput(),
        execute: (_a, exec) => {
          seenParents.push(exec.parent?.callId ?? null)
          return 'child'
        },
      }),
    )
    runtime.register(
      defineTool({
        name: 'outer',
        description: 'Outer.',
        parameters: z.object({}),
        output: textOutput(),
        execute: async (_a, exec) => {
          const parent = exec.parentToken()
          stale = parent
          await runtime.execute({ callId: `${exec.callId}:code:1`, name: 'child', arguments: {}, parent })
          return 'outer'
        },
      }),
    )
    await runtime.execute({ callId: 'o1', name: 'outer', arguments: {} })
    // After `outer` settled its token is stale; a forged one never counted.
    await runtime.execute({ callId: 'late', name: 'child', arguments: {}, parent: stale })
    await runtime.execute({
      callId: 'forged',
      name: 'child',
      arguments: {},
      parent: { token: Symbol('x'), callId: 'o1', rootCallId: 'o1' },
    })
    expect(seenParents).toEqual(['o1', null, null])
    const logged = runtime.session.events().filter((e) => e.type === 'tool/call')
    expect(logged.map((e) => e.parentCallId ?? null)).toEqual([null, 'o1', null, null])
    expect(logged[1]?.rootCallId).toBe('o1')
  })

  it('describes the tools a program may call, with output schemas, restrictions applied', () => {
    const runtime = createRuntime()
    runtime.register(defineTool({ ...base, name: 'b_tool' }))
    runtime.register(
      defineTool({ ...base, name: 'a_tool', output: jsonOutput({ type: 'object', properties: {} }) }),
    )
    runtime.register(defineTool({ ...base, name: 'run_code' }))
    runtime.agent('limited').restrict({ deny: ['b_tool'] })
    expect(
      runtime.toolDescriptors(undefined, { exclude: ['run_code'] }).map((d) => [d.name, d.output]),
    ).toEqual([
      ['a_tool', { type: 'object', properties: {} }],
      ['b_tool', { type: 'string' }],
    ])
    expect(runtime.toolDescriptors('limited').map((d) => d.name)).toEqual(['a_tool', 'run_code'])
    expect(runtime.tool('a_tool')?.name).toBe('a_tool')
    expect(runtime.tool('missing')).toBe(undefined)
  })
})
