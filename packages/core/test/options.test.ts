import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRuntime, defineTool, type Runtime, type ToolCall, textOutput } from '../src/index.js'

// Issue 13 §2: invalid options are a TypeError naming the option and what it accepts, thrown or
// rejected before anything is logged or run. (A NaN pool once resolved a batch to an array of
// holes without running a call; 0, negative and fractional sizes were silently changed.)

function harness() {
  const runtime = createRuntime()
  let runs = 0
  runtime.register(
    defineTool({
      name: 'echo',
      description: 'Echo.',
      parameters: z.object({ text: z.string() }),
      output: textOutput(),
      isConcurrencySafe: () => true,
      execute: (args) => {
        runs++
        return args.text
      },
    }),
  )
  return {
    runtime,
    get runs() {
      return runs
    },
  }
}

const calls: ToolCall[] = [
  { callId: 'a', name: 'echo', arguments: { text: 'a' } },
  { callId: 'b', name: 'echo', arguments: { text: 'b' } },
]

async function rejected(runtime: Runtime, run: () => Promise<unknown>): Promise<string> {
  const before = runtime.session.events().length
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TypeError)
  expect(runtime.session.events()).toHaveLength(before)
  return (error as TypeError).message
}

describe('executeBatch options', () => {
  it.each([
    [Number.NaN, 'NaN'],
    [0, '0'],
    [-1, '-1'],
    [1.5, '1.5'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['2', '"2"'],
    [null, 'null'],
  ])('maxParallel %s is refused before anything is logged or run', async (value, shown) => {
    const h = harness()
    const message = await rejected(h.runtime, () =>
      h.runtime.executeBatch(calls, { maxParallel: value as number }),
    )
    expect(message).toBe(
      `executeBatch: options.maxParallel must be a positive integer (the most calls to run at once) or undefined, got ${shown}`,
    )
    expect(h.runs).toBe(0)
  })

  it('a signal that is not an AbortSignal, an onSettled that is not a function, an unknown option', async () => {
    const h = harness()
    expect(
      await rejected(h.runtime, () => h.runtime.executeBatch(calls, { signal: {} as AbortSignal })),
    ).toBe('executeBatch: options.signal must be an AbortSignal or undefined, got an object')
    expect(
      await rejected(h.runtime, () => h.runtime.executeBatch(calls, { onSettled: 'log' as never })),
    ).toBe('executeBatch: options.onSettled must be a function (result) => void or undefined, got "log"')
    expect(await rejected(h.runtime, () => h.runtime.executeBatch(calls, { maxparallel: 2 } as never))).toBe(
      'executeBatch: unknown option "maxparallel"; the options are signal, maxParallel, onSettled',
    )
    expect(await rejected(h.runtime, () => h.runtime.executeBatch(calls, null as never))).toBe(
      'executeBatch: options must be an object or undefined, got null',
    )
    expect(h.runs).toBe(0)
  })

  it('calls that are not an array, or hold a non-object or a bad signal, are refused before any call is logged', async () => {
    const h = harness()
    expect(await rejected(h.runtime, () => h.runtime.executeBatch({ 0: calls[0] } as never))).toBe(
      'executeBatch: calls must be an array of tool calls, got an object',
    )
    expect(await rejected(h.runtime, () => h.runtime.executeBatch([calls[0]!, null] as never))).toBe(
      'executeBatch: calls[1] must be a tool call object { callId, name, arguments }, got null',
    )
    expect(
      await rejected(h.runtime, () =>
        h.runtime.executeBatch([calls[0]!, { ...calls[1]!, signal: 'stop' as never }]),
      ),
    ).toBe('executeBatch: calls[1].signal must be an AbortSignal or undefined, got "stop"')
    expect(h.runs).toBe(0)
  })

  it('an option on the prototype or behind a getter is read and checked like an own one', async () => {
    const h = harness()
    const inherited = Object.create({ maxParallel: Number.NaN }) as { maxParallel: number }
    expect(await rejected(h.runtime, () => h.runtime.executeBatch(calls, inherited))).toBe(
      'executeBatch: options.maxParallel must be a positive integer (the most calls to run at once) or undefined, got NaN',
    )
    class Options {
      get maxParallel() {
        return 0
      }
    }
    expect(await rejected(h.runtime, () => h.runtime.executeBatch(calls, new Options()))).toBe(
      'executeBatch: options.maxParallel must be a positive integer (the most calls to run at once) or undefined, got 0',
    )
  })

  it('valid options work, and an explicit undefined is the default', async () => {
    const h = harness()
    const settled: string[] = []
    const results = await h.runtime.executeBatch(calls, {
      maxParallel: 1,
      signal: new AbortController().signal,
      onSettled: (r) => settled.push(r.callId),
    })
    expect(results.map((r) => r.content)).toEqual([
      [{ type: 'text', text: 'a' }],
      [{ type: 'text', text: 'b' }],
    ])
    expect(settled).toEqual(['a', 'b'])
    const again = await h.runtime.executeBatch(calls, { maxParallel: undefined, onSettled: undefined })
    expect(again).toHaveLength(2)
    expect(await h.runtime.executeBatch([])).toEqual([])
  })
})

describe('execute', () => {
  it('a call that is not an object, or whose signal is not an AbortSignal, is refused before it is logged', async () => {
    const h = harness()
    expect(await rejected(h.runtime, () => h.runtime.execute(null as never))).toBe(
      'execute: call must be a tool call object { callId, name, arguments }, got null',
    )
    expect(
      await rejected(h.runtime, () =>
        h.runtime.execute({ ...calls[0]!, signal: { aborted: false } as never }),
      ),
    ).toBe('execute: call.signal must be an AbortSignal or undefined, got an object')
    expect(await rejected(h.runtime, () => h.runtime.execute({ ...calls[0]!, agent: 7 as never }))).toBe(
      "execute: call.agent must be a string (the agent's id) or undefined, got 7",
    )
    // A getter that answers the check one thing and the use another still logs nothing.
    let reads = 0
    const lying = {
      ...calls[0]!,
      get signal() {
        return reads++ === 0 ? undefined : ('stop' as never)
      },
    }
    expect(await rejected(h.runtime, () => h.runtime.execute(lying))).toBe(
      'call "a": signal must be an AbortSignal or undefined',
    )
    expect(() => h.runtime.mode(undefined as never)).toThrow(
      new TypeError('mode: call must be a tool call object { callId, name, arguments }, got undefined'),
    )
    expect(h.runs).toBe(0)
  })
})

describe('createRuntime options', () => {
  it.each([
    [
      { maxParallel: 0 },
      'options.maxParallel must be a positive integer (the most calls a batch runs at once; default 10), got 0',
    ],
    [
      { maxParallel: Number.NaN },
      'options.maxParallel must be a positive integer (the most calls a batch runs at once; default 10), got NaN',
    ],
    [
      { abortGraceMs: -1 },
      'options.abortGraceMs must be a number of milliseconds from 0 to 2147483647 (default 2000), got -1',
    ],
    [
      { abortGraceMs: Number.NaN },
      'options.abortGraceMs must be a number of milliseconds from 0 to 2147483647 (default 2000), got NaN',
    ],
    [
      { listenerTimeoutMs: 0 },
      'options.listenerTimeoutMs must be a number of milliseconds above 0, at most 2147483647 (default 60000), got 0',
    ],
    [
      { listenerTimeoutMs: Number.POSITIVE_INFINITY },
      'options.listenerTimeoutMs must be a number of milliseconds above 0, at most 2147483647 (default 60000), got Infinity',
    ],
    [{ timeouts: 'yes' }, 'options.timeouts must be true or false (default true), got "yes"'],
    [
      { approval: {} },
      'options.approval must be an approval service (createApprovalService()) or undefined, got an object',
    ],
    [
      { session: [] },
      'options.session must be a session sink ({ write(event) }, e.g. memorySink()) or undefined, got an array',
    ],
    [{ jobs: 3 }, 'options.jobs must be a jobs service (createJobsService()) or its options object, got 3'],
    [
      { grace: 5 },
      'unknown option "grace"; the options are approval, session, maxParallel, abortGraceMs, listenerTimeoutMs, timeouts, jobs',
    ],
    ['fast', 'options must be an object or undefined, got "fast"'],
  ])('createRuntime(%o) is a TypeError', (options, message) => {
    expect(() => createRuntime(options as never)).toThrow(new TypeError(`createRuntime: ${message}`))
  })

  it('valid options and explicit undefined values are accepted', () => {
    expect(() =>
      createRuntime({
        maxParallel: 3,
        abortGraceMs: 0,
        listenerTimeoutMs: 1,
        timeouts: false,
        approval: undefined,
      }),
    ).not.toThrow()
    expect(() => createRuntime(undefined)).not.toThrow()
  })
})
