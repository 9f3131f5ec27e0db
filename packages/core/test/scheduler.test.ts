import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createRuntime, defineTool, type ToolCall, textOutput } from '../src/index.js'
import { flush, gate } from './helpers.js'

// A controllable tool: each call registers a gate the test resolves by hand.
function harness(options?: { maxParallel?: number; abortGraceMs?: number }) {
  const runtime = createRuntime({
    maxParallel: options?.maxParallel ?? 10,
    abortGraceMs: options?.abortGraceMs ?? 50,
  })
  const gates = new Map<string, ReturnType<typeof gate<string>>>()
  const running = new Set<string>()
  const log: string[] = []
  let maxRunning = 0
  const overlapWithExclusive: string[] = []
  const body = (id: string, exclusive: boolean, signal: AbortSignal) => {
    if (exclusive && running.size > 0) overlapWithExclusive.push(id)
    for (const r of running) if (r.startsWith('x')) overlapWithExclusive.push(id)
    running.add(id)
    maxRunning = Math.max(maxRunning, running.size)
    log.push(`start:${id}`)
    const g = gate<string>()
    gates.set(id, g)
    signal.addEventListener('abort', () => g.reject(signal.reason))
    return g.promise.finally(() => {
      running.delete(id)
      log.push(`end:${id}`)
    })
  }
  const tool = (name: string, parallel: boolean, extra?: object) =>
    defineTool({
      name,
      description: `${name} tool.`,
      parameters: z.object({ id: z.string() }),
      output: textOutput(),
      isConcurrencySafe: () => parallel,
      execute: (args, exec) => body(args.id, !parallel, exec.signal),
      ...extra,
    })
  runtime.register(tool('par', true))
  runtime.register(tool('ex', false))
  const calls = (spec: string): ToolCall[] =>
    spec.split(' ').map((id) => ({ callId: id, name: id.startsWith('x') ? 'ex' : 'par', arguments: { id } }))
  const finish = async (id: string, value = `done ${id}`) => {
    for (let i = 0; i < 50 && !gates.has(id); i++) await flush(1)
    const g = gates.get(id)
    if (!g) throw new Error(`${id} never started; log: ${log.join(', ')}`)
    g.resolve(value)
    await flush()
  }
  return {
    runtime,
    calls,
    finish,
    log,
    gates,
    running,
    get maxRunning() {
      return maxRunning
    },
    overlapWithExclusive,
  }
}

describe('executeBatch', () => {
  it('parallel calls share a rolling pool: a finished slot is refilled at once', async () => {
    const h = harness({ maxParallel: 2 })
    const pending = h.runtime.executeBatch(h.calls('a b c d'))
    await flush()
    expect(h.log).toEqual(['start:a', 'start:b'])
    await h.finish('b')
    expect(h.log).toEqual(['start:a', 'start:b', 'end:b', 'start:c'])
    await h.finish('c')
    expect(h.log.slice(-2)).toEqual(['end:c', 'start:d'])
    await h.finish('a')
    await h.finish('d')
    const results = await pending
    expect(results.map((r) => r.callId)).toEqual(['a', 'b', 'c', 'd'])
    expect(h.maxRunning).toBe(2)
  })

  it('an exclusive call waits for everything before it, and nothing after it starts until it is done', async () => {
    const h = harness()
    const pending = h.runtime.executeBatch(h.calls('a b x1 c'))
    await flush()
    expect(h.log).toEqual(['start:a', 'start:b'])
    await h.finish('a')
    expect(h.log).not.toContain('start:x1')
    await h.finish('b')
    expect(h.log.at(-1)).toBe('start:x1')
    await flush()
    expect(h.log).not.toContain('start:c')
    await h.finish('x1')
    expect(h.log.at(-1)).toBe('start:c')
    await h.finish('c')
    await pending
    expect(h.overlapWithExclusive).toEqual([])
  })

  it('results and tool/result events are in model order even when calls finish out of order; onSettled fires as each is final', async () => {
    const h = harness()
    const settled: string[] = []
    const pending = h.runtime.executeBatch(h.calls('a b c'), { onSettled: (r) => settled.push(r.callId) })
    await flush()
    await h.finish('c')
    await h.finish('b')
    expect(settled).toEqual(['c', 'b'])
    // Nothing is committed until a is final.
    expect(h.runtime.session.events().filter((e) => e.type === 'tool/result')).toEqual([])
    await h.finish('a')
    const results = await pending
    expect(settled).toEqual(['c', 'b', 'a'])
    expect(results.map((r) => r.content)).toEqual([
      [{ type: 'text', text: 'done a' }],
      [{ type: 'text', text: 'done b' }],
      [{ type: 'text', text: 'done c' }],
    ])
    expect(h.runtime.session.events().map((e) => `${e.type}:${e.callId}`)).toEqual([
      'tool/call:a',
      'tool/call:b',
      'tool/call:c',
      'tool/result:a',
      'tool/result:b',
      'tool/result:c',
    ])
  })

  it('isConcurrencySafe: only an exact true is parallel', () => {
    const runtime = createRuntime()
    const make = (name: string, isConcurrencySafe?: (args: never) => unknown) =>
      runtime.register(
        defineTool({
          name,
          description: 'x',
          parameters: z.object({}),
          output: textOutput(),
          execute: () => '',
          ...(isConcurrencySafe ? { isConcurrencySafe: isConcurrencySafe as () => boolean } : {}),
        }),
      )
    make('yes', () => true)
    make('truthy', () => 1)
    make('no', () => false)
    make('throws', () => {
      throw new Error('x')
    })
    make('undeclared')
    const mode = (name: string, args: unknown = {}) =>
      runtime.mode({ callId: 'c', name, arguments: args as never }).kind
    expect(mode('yes')).toBe('parallel')
    expect(mode('truthy')).toBe('exclusive')
    expect(mode('no')).toBe('exclusive')
    expect(mode('throws')).toBe('exclusive')
    expect(mode('undeclared')).toBe('exclusive')
    expect(mode('yes', '{bad json')).toBe('exclusive')
    expect(mode('missing')).toBe('exclusive')
  })

  it('pre-execute runs one call at a time in model order', async () => {
    const h = harness()
    const order: string[] = []
    const first = gate()
    h.runtime.on('tools/pre-execute', async (exec, next) => {
      order.push(`pre:${exec.callId}`)
      if (exec.callId === 'a') await first.promise
      order.push(`pre-done:${exec.callId}`)
      return next()
    })
    const pending = h.runtime.executeBatch(h.calls('a b'))
    await flush()
    expect(order).toEqual(['pre:a'])
    first.resolve()
    await flush()
    expect(order).toEqual(['pre:a', 'pre-done:a', 'pre:b', 'pre-done:b'])
    await h.finish('a')
    await h.finish('b')
    await pending
  })

  it('a call without pre-execute listeners does not wait in the lane, and keeps later prompts in order', async () => {
    const runtime = createRuntime()
    const order: string[] = []
    const first = gate()
    runtime.register(
      defineTool({
        name: 'p',
        description: 'P.',
        parameters: z.object({}),
        output: textOutput(),
        isConcurrencySafe: () => true,
        execute: (_args, exec) => {
          order.push(`body:${exec.callId}`)
          return 'ok'
        },
      }),
    )
    // Only agent "a" has a pre-execute listener (an approval-like wait on the first call).
    runtime.agent('a').on('tools/pre-execute', async (exec, next) => {
      order.push(`pre:${exec.callId}`)
      if (exec.callId === 'a1') await first.promise
      return next()
    })
    const call = (callId: string, agent: string) => ({ callId, name: 'p', arguments: {}, agent })
    const pending = runtime.executeBatch([call('a1', 'a'), call('b1', 'b'), call('a2', 'a')])
    await flush()
    // b1 ran at once; a2's pre-execute waits for a1's, though b1 stands between them.
    expect([...order].sort()).toEqual(['body:b1', 'pre:a1'])
    first.resolve()
    await pending
    expect(order.slice(2)).toEqual(['body:a1', 'pre:a2', 'body:a2'])
  })

  it('an abort cancels running calls, drains them, and gives each never-started call its own cancelled result', async () => {
    const h = harness({ maxParallel: 1 })
    const controller = new AbortController()
    const pending = h.runtime.executeBatch(h.calls('a b x1'), { signal: controller.signal })
    await flush()
    expect(h.log).toEqual(['start:a'])
    controller.abort()
    const results = await pending
    expect(results.map((r) => [r.callId, r.error?.code])).toEqual([
      ['a', 'ABORTED'],
      ['b', 'CANCELLED_BEFORE_START'],
      ['x1', 'CANCELLED_BEFORE_START'],
    ])
    expect(h.log).toEqual(['start:a', 'end:a'])
    expect(results[1]?.content).toEqual([
      {
        type: 'text',
        text: 'This par call was cancelled before it started (the turn was interrupted); it had no effect. Re-issue it if it is still needed.',
      },
    ])
    expect(h.runtime.session.events().map((e) => `${e.type}:${e.callId}`)).toEqual([
      'tool/call:a',
      'tool/result:a',
      'tool/call:b',
      'tool/result:b',
      'tool/call:x1',
      'tool/result:x1',
    ])
  })

  it('a sibling cascade skips only later calls of the declaring tool', async () => {
    const runtime = createRuntime()
    const ran: string[] = []
    runtime.register(
      defineTool({
        name: 'bash',
        description: 'Shell.',
        parameters: z.object({ cmd: z.string() }),
        output: textOutput(),
        cascadeOnFailure: true,
        execute: (args) => {
          ran.push(args.cmd)
          if (args.cmd === 'fail') throw new Error('exit 1')
          return args.cmd
        },
      }),
    )
    runtime.register(
      defineTool({
        name: 'read',
        description: 'Read.',
        parameters: z.object({ p: z.string() }),
        output: textOutput(),
        execute: (args) => {
          ran.push(`read ${args.p}`)
          return args.p
        },
      }),
    )
    const results = await runtime.executeBatch([
      { callId: '1', name: 'bash', arguments: { cmd: 'ok' } },
      { callId: '2', name: 'bash', arguments: { cmd: 'fail' } },
      { callId: '3', name: 'read', arguments: { p: 'x' } },
      { callId: '4', name: 'bash', arguments: { cmd: 'later' } },
    ])
    expect(ran).toEqual(['ok', 'fail', 'read x'])
    expect(results.map((r) => r.error?.kind ?? 'ok')).toEqual(['ok', 'exception', 'ok', 'sibling_failed'])
    expect(results[3]?.error?.message).toBe(
      'This bash call was skipped because an earlier bash call in the same batch (2) failed; it had no effect. Check that failure, then re-issue this call if it still makes sense.',
    )
  })

  it('additionalContexts are delivered FIFO in model order after all results', async () => {
    const { batchContexts } = await import('../src/index.js')
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'ctx',
        description: 'Ctx.',
        parameters: z.object({ n: z.number() }),
        output: textOutput(),
        isConcurrencySafe: () => true,
        execute: async (args, exec) => {
          exec.deferContext({ role: 'user', content: [{ type: 'text', text: `ctx ${args.n}` }] })
          return `r${args.n}`
        },
      }),
    )
    const results = await runtime.executeBatch(
      [1, 2, 3].map((n) => ({ callId: `${n}`, name: 'ctx', arguments: { n } })),
    )
    expect(batchContexts(results).map((m) => m.content[0])).toEqual([
      { type: 'text', text: 'ctx 1' },
      { type: 'text', text: 'ctx 2' },
      { type: 'text', text: 'ctx 3' },
    ])
  })
})

describe('cancellation and deadlines', () => {
  it('a deadline stops only its own call and says timed out after N ms', async () => {
    vi.useFakeTimers()
    try {
      const runtime = createRuntime()
      runtime.register(
        defineTool({
          name: 'slow',
          description: 'Slow.',
          parameters: z.object({}),
          output: textOutput(),
          timeoutMs: 100,
          isConcurrencySafe: () => true,
          execute: (_a, exec) =>
            new Promise<string>((_r, reject) =>
              exec.signal.addEventListener('abort', () => reject(exec.signal.reason)),
            ),
        }),
      )
      runtime.register(
        defineTool({
          name: 'quick',
          description: 'Quick.',
          parameters: z.object({}),
          output: textOutput(),
          isConcurrencySafe: () => true,
          execute: async () => 'fine',
        }),
      )
      const pending = runtime.executeBatch([
        { callId: 's', name: 'slow', arguments: {} },
        { callId: 'q', name: 'quick', arguments: {} },
      ])
      await vi.advanceTimersByTimeAsync(100)
      const results = await pending
      expect(results[0]?.error).toEqual({
        kind: 'timeout',
        code: 'TOOL_TIMEOUT',
        message:
          'This slow call timed out after 100 ms and was stopped; it may have partially completed. Retry with a smaller task, or a longer timeout if the tool accepts one.',
      })
      expect(results[1]?.content).toEqual([{ type: 'text', text: 'fine' }])
    } finally {
      vi.useRealTimers()
    }
  })

  it('a body that ignores its signal settles after the grace; its late outcome is only logged', async () => {
    vi.useFakeTimers()
    try {
      const runtime = createRuntime({ abortGraceMs: 500 })
      const hang = gate<string>()
      runtime.register(
        defineTool({
          name: 'stubborn',
          description: 'Ignores signals.',
          parameters: z.object({}),
          output: textOutput(),
          execute: () => hang.promise,
        }),
      )
      const controller = new AbortController()
      const pending = runtime.execute({
        callId: 'h',
        name: 'stubborn',
        arguments: {},
        signal: controller.signal,
      })
      await vi.advanceTimersByTimeAsync(10)
      controller.abort()
      await vi.advanceTimersByTimeAsync(500)
      const result = await pending
      expect(result.error).toEqual({
        kind: 'aborted',
        code: 'ABORTED',
        message:
          'This stubborn call was interrupted while running (the user cancelled) and did not stop within 500 ms; it may still finish in the background or have partially completed. Check the current state before retrying.',
      })
      hang.resolve('finally done')
      await vi.advanceTimersByTimeAsync(0)
      const late = runtime.session.events().filter((e) => e.type === 'tool/late-settle')
      expect(late).toEqual([
        {
          seq: 3,
          type: 'tool/late-settle',
          callId: 'h',
          name: 'stubborn',
          stage: 'body',
          outcome: 'fulfilled',
        },
      ])
      expect(await runtime.dispose()).toEqual({ pendingOrphans: [] })
    } finally {
      vi.useRealTimers()
    }
  })

  it('dispose reports orphans that never settle', async () => {
    const runtime = createRuntime({ abortGraceMs: 5 })
    runtime.register(
      defineTool({
        name: 'forever',
        description: 'Never ends.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => new Promise<string>(() => {}),
      }),
    )
    const controller = new AbortController()
    const pending = runtime.execute({
      callId: 'f',
      name: 'forever',
      arguments: {},
      signal: controller.signal,
    })
    await flush()
    controller.abort()
    await pending
    expect(await runtime.dispose()).toEqual({ pendingOrphans: [{ callId: 'f', stage: 'body' }] })
  })

  it("interruptBehavior 'block' lets a tool finish its call when the user interrupts", async () => {
    const runtime = createRuntime()
    const proceed = gate()
    let sawAbort = false
    runtime.register(
      defineTool({
        name: 'migrate',
        description: 'Must not stop halfway.',
        parameters: z.object({}),
        output: textOutput(),
        interruptBehavior: 'block',
        execute: async (_a, exec) => {
          exec.signal.addEventListener('abort', () => {
            sawAbort = true
          })
          await proceed.promise
          return 'migrated'
        },
      }),
    )
    const controller = new AbortController()
    const pending = runtime.execute({
      callId: 'm',
      name: 'migrate',
      arguments: {},
      signal: controller.signal,
    })
    await flush()
    controller.abort()
    proceed.resolve()
    const result = await pending
    expect(sawAbort).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'migrated' }])
  })

  it('a long-lived parent signal carries one listener, however many calls and batches use it', async () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'n',
        description: 'N.',
        parameters: z.object({}),
        output: textOutput(),
        isConcurrencySafe: () => true,
        execute: async () => 'x',
      }),
    )
    const controller = new AbortController()
    let added = 0
    let removed = 0
    const signal = controller.signal
    const add = signal.addEventListener.bind(signal)
    const remove = signal.removeEventListener.bind(signal)
    signal.addEventListener = ((...a: Parameters<typeof add>) => {
      added++
      return add(...a)
    }) as typeof add
    signal.removeEventListener = ((...a: Parameters<typeof remove>) => {
      removed++
      return remove(...a)
    }) as typeof remove
    for (let i = 0; i < 20; i++) {
      await runtime.executeBatch(
        [1, 2, 3].map((n) => ({ callId: `${i}-${n}`, name: 'n', arguments: {}, signal })),
        { signal },
      )
    }
    expect([added, removed]).toEqual([1, 0])
    // ...and it still reaches every call that watches it.
    runtime.register(
      defineTool({
        name: 'hold',
        description: 'Holds until stopped.',
        parameters: z.object({}),
        output: textOutput(),
        execute: (_args, exec) =>
          new Promise<string>((_resolve, reject) =>
            exec.signal.addEventListener('abort', () => reject(exec.signal.reason)),
          ),
      }),
    )
    const stuck = runtime.executeBatch([{ callId: 'late', name: 'hold', arguments: {} }], { signal })
    await flush()
    controller.abort()
    expect((await stuck)[0]?.error?.kind).toBe('aborted')
  })
})

describe('deadline signals', () => {
  it('a body that reads its signal late finds it already aborted by the deadline', async () => {
    vi.useFakeTimers()
    try {
      const runtime = createRuntime({ abortGraceMs: 50 })
      let late: { aborted: boolean; reason: unknown } | undefined
      runtime.register(
        defineTool({
          name: 'late',
          description: 'Reads its signal only after a while.',
          parameters: z.object({}),
          output: textOutput(),
          timeoutMs: 100,
          execute: async (_a, exec) => {
            await new Promise((resolve) => setTimeout(resolve, 120))
            late = { aborted: exec.signal.aborted, reason: exec.signal.reason }
            throw exec.signal.reason
          },
        }),
      )
      const pending = runtime.execute({ callId: 'l', name: 'late', arguments: {} })
      await vi.advanceTimersByTimeAsync(130)
      const result = await pending
      expect(late?.aborted).toBe(true)
      expect((late?.reason as Error | undefined)?.name).toBe('DeadlineExceeded')
      expect(result.error?.code).toBe('TOOL_TIMEOUT')
    } finally {
      vi.useRealTimers()
    }
  })
})
