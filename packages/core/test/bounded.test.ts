import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import {
  createApprovalService,
  createRuntime,
  defineTool,
  type ExecuteOutcome,
  type PostToolDecision,
  type PreToolDecision,
  type Runtime,
  type RuntimeOptions,
  type ToolResult,
  textOutput,
} from '../src/index.js'
import { gate } from './helpers.js'

// Issue 13 §2: every stage that awaits host code gets the same bounded grace as a body. Each test
// installs host code that never settles on its own (a promise gate the test holds), then checks
// the exact result, the session log, and that settling the gate afterwards is only logged.
// Clocks are fake: the grace (100 ms) and the listener budget (1,000 ms) pass when the test says.

const GRACE = 100
const BUDGET = 1000

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

type Probe = {
  runtime: Runtime
  /** Bodies started. */
  runs: number
  /** Bodies that saw their signal abort. */
  sawAbort: number
}

function probe(
  options: RuntimeOptions & {
    timeoutMs?: number
    body?: (signal: AbortSignal) => Promise<string> | string
    parameters?: z.ZodType<object>
    output?: z.ZodType<string>
  } = {},
): Probe {
  const { timeoutMs, body, parameters, output, ...runtimeOptions } = options
  const runtime = createRuntime({ abortGraceMs: GRACE, listenerTimeoutMs: BUDGET, ...runtimeOptions })
  const p: Probe = { runtime, runs: 0, sawAbort: 0 }
  runtime.register(
    defineTool({
      name: 'probe',
      description: 'Probe.',
      parameters: parameters ?? z.object({}),
      output: output ? { schema: output, render: (_a, v) => [{ type: 'text', text: v }] } : textOutput(),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      execute: (_args, exec) => {
        p.runs++
        exec.signal.addEventListener('abort', () => {
          p.sawAbort++
        })
        return body ? body(exec.signal) : 'done'
      },
    }),
  )
  return p
}

/** Start a call and watch whether it settled, without awaiting it. */
function start(runtime: Runtime, signal?: AbortSignal, callId = 'c1') {
  let settled: ToolResult | undefined
  const pending = runtime.execute({ callId, name: 'probe', arguments: {}, ...(signal ? { signal } : {}) })
  pending.then((r) => {
    settled = r
  })
  return {
    pending,
    get settled() {
      return settled
    },
  }
}

/** Start a call, let it run 10 ms, abort it: it settles exactly when the grace ends. */
async function abortedAfterGrace(runtime: Runtime): Promise<ToolResult> {
  const controller = new AbortController()
  const call = start(runtime, controller.signal)
  await vi.advanceTimersByTimeAsync(10)
  controller.abort()
  await vi.advanceTimersByTimeAsync(GRACE - 1)
  expect(call.settled).toBe(undefined)
  await vi.advanceTimersByTimeAsync(1)
  return call.pending
}

/** Start a call that nothing stops: it settles exactly when `ms` have passed. */
async function settledAfter(runtime: Runtime, ms: number): Promise<ToolResult> {
  const call = start(runtime)
  await vi.advanceTimersByTimeAsync(ms - 1)
  expect(call.settled).toBe(undefined)
  await vi.advanceTimersByTimeAsync(1)
  return call.pending
}

const types = (runtime: Runtime) => runtime.session.events().map((e) => e.type)
const lateSettle = (stage: string, outcome: 'fulfilled' | 'rejected' = 'fulfilled') => ({
  type: 'tool/late-settle',
  callId: 'c1',
  name: 'probe',
  stage,
  outcome,
})

const STALLED_BEFORE = (where: string) =>
  `This probe call did not run: ${where} did not answer within ${BUDGET} ms. This is not caused by your arguments; retry the call once, and report the problem if it stalls again.`
const STALLED_AFTER = (where: string) =>
  `This probe call ran, but ${where} did not finish within ${BUDGET} ms, so its result is withheld. This is not caused by your arguments; check the current state before retrying.`
const CANCELLED =
  'This probe call was cancelled before it started (the turn was interrupted); it had no effect. Re-issue it if it is still needed.'
const ABORTED_UNRESPONSIVE = `This probe call was interrupted while running (the user cancelled) and did not stop within ${GRACE} ms; it may still finish in the background or have partially completed. Check the current state before retrying.`
const ABORTED_AFTER_RUN = (where: string) =>
  `This probe call was interrupted (the user cancelled) after it ran, while ${where} was still handling its result, and that did not stop within ${GRACE} ms; the result is withheld. Check the current state before retrying.`
const TIMEOUT = (ms: number) =>
  `This probe call timed out after ${ms} ms and was stopped; it may have partially completed. Retry with a smaller task, or a longer timeout if the tool accepts one.`

/** Settle the gate late and check that only a `tool/late-settle` event follows; nothing else changes. */
async function settleLate(
  p: Probe,
  result: ToolResult,
  release: () => void,
  stage: string,
  outcome: 'fulfilled' | 'rejected' = 'fulfilled',
  logged: readonly string[] = ['tool/call', 'tool/result'],
) {
  // The log before: the call and its one result (the stage logged nothing else).
  expect(types(p.runtime)).toEqual(logged)
  const before = p.runtime.session.events().length
  const runs = p.runs
  const metrics = p.runtime.metrics()
  release()
  await vi.advanceTimersByTimeAsync(0)
  const after = p.runtime.session.events().slice(before)
  expect(after).toEqual([expect.objectContaining(lateSettle(stage, outcome))])
  expect(p.runs).toBe(runs)
  expect(p.runtime.metrics()).toEqual(metrics)
  expect(Object.isFrozen(result)).toBe(true)
  expect(await p.runtime.dispose()).toEqual({ pendingOrphans: [] })
}

describe('tools/pre-execute: a listener that never settles', () => {
  it('without a stop, the call ends after the listener budget with LISTENER_EXCEPTION (final: post-execute skipped)', async () => {
    const p = probe()
    const hang = gate<PreToolDecision>()
    let later = 0
    let post = 0
    p.runtime.on('tools/pre-execute', (_e, next) => hang.promise.then(() => next()))
    p.runtime.on('tools/pre-execute', (_e, next) => {
      later++
      return next()
    })
    p.runtime.on('tools/post-execute', (_e, _r, next) => {
      post++
      return next()
    })
    const result = await settledAfter(p.runtime, BUDGET)
    expect(result.error).toEqual({
      kind: 'exception',
      code: 'LISTENER_EXCEPTION',
      message: STALLED_BEFORE('a tools/pre-execute listener'),
    })
    expect(result.content).toEqual([{ type: 'text', text: STALLED_BEFORE('a tools/pre-execute listener') }])
    expect(types(p.runtime)).toEqual(['tool/call', 'tool/result'])
    expect(post).toBe(0)
    // The listener wakes up and calls next(): the stage is closed, no later listener runs.
    await settleLate(p, result, () => hang.resolve({ kind: 'allow' }), 'tools/pre-execute')
    expect(later).toBe(0)
    expect(p.runs).toBe(0)
  })

  it('when the caller aborts, the call is cancelled before start after the grace', async () => {
    const p = probe()
    const hang = gate<PreToolDecision>()
    p.runtime.on('tools/pre-execute', () => hang.promise)
    const result = await abortedAfterGrace(p.runtime)
    expect(result.error).toEqual({ kind: 'cancelled', code: 'CANCELLED_BEFORE_START', message: CANCELLED })
    expect(types(p.runtime)).toEqual(['tool/call', 'tool/result'])
    await settleLate(p, result, () => hang.resolve({ kind: 'allow' }), 'tools/pre-execute')
    expect(p.runs).toBe(0)
  })

  it('a listener that honours its signal (rejects on abort) is a cancellation, not a bug; its error is logged', async () => {
    const p = probe()
    p.runtime.on(
      'tools/pre-execute',
      (exec) =>
        new Promise((_resolve, reject) =>
          exec.signal.addEventListener('abort', () => reject(new Error('policy check aborted'))),
        ),
    )
    const controller = new AbortController()
    const call = start(p.runtime, controller.signal)
    await vi.advanceTimersByTimeAsync(10)
    controller.abort()
    const result = await call.pending
    expect(result.error).toEqual({ kind: 'cancelled', code: 'CANCELLED_BEFORE_START', message: CANCELLED })
    const logged = p.runtime.session.events()
    expect(
      logged.map((e) => [e.type, e.stage ?? null, e.type === 'listener/error' ? e.error : null]),
    ).toEqual([
      ['tool/call', null, null],
      ['listener/error', 'tools/pre-execute', 'policy check aborted'],
      ['tool/result', null, null],
    ])
  })
})

describe('approval: an answerer that never answers', () => {
  it('without a stop, waits for the person (no budget); the caller’s abort ends it after the grace', async () => {
    const approval = createApprovalService()
    const hang = gate<'allowed-once'>()
    approval.answer(() => hang.promise)
    const p = probe({ approval })
    p.runtime.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'check' }))
    const controller = new AbortController()
    const call = start(p.runtime, controller.signal)
    await vi.advanceTimersByTimeAsync(BUDGET * 10)
    expect(call.settled).toBe(undefined)
    controller.abort()
    await vi.advanceTimersByTimeAsync(GRACE)
    const result = await call.pending
    expect(result.error).toEqual({ kind: 'cancelled', code: 'CANCELLED_BEFORE_START', message: CANCELLED })
    expect(p.runtime.session.events().map((e) => [e.type, e.outcome ?? null])).toEqual([
      ['tool/call', null],
      ['approval/asked', null],
      ['approval/decided', 'cancelled'],
      ['tool/result', null],
    ])
    // The person clicks "allow" long after: logged, never applied, the body never runs.
    await settleLate(p, result, () => hang.resolve('allowed-once'), 'approval', 'fulfilled', [
      'tool/call',
      'approval/asked',
      'approval/decided',
      'tool/result',
    ])
    expect(p.runs).toBe(0)
  })

  it('in a batch, the batch signal ends it too, and the next call’s prompt is not held up', async () => {
    const approval = createApprovalService()
    const hang = gate<'allowed-once'>()
    approval.answer(() => hang.promise)
    const runtime = createRuntime({ approval, abortGraceMs: GRACE, listenerTimeoutMs: BUDGET })
    let runs = 0
    runtime.register(
      defineTool({
        name: 'probe',
        description: 'Probe.',
        parameters: z.object({}),
        output: textOutput(),
        isConcurrencySafe: () => true,
        execute: () => {
          runs++
          return 'done'
        },
      }),
    )
    runtime.on('tools/pre-execute', () => ({ kind: 'ask' }))
    const controller = new AbortController()
    const pending = runtime.executeBatch(
      [
        { callId: 'a', name: 'probe', arguments: {} },
        { callId: 'b', name: 'probe', arguments: {} },
      ],
      { signal: controller.signal },
    )
    await vi.advanceTimersByTimeAsync(10)
    controller.abort()
    await vi.advanceTimersByTimeAsync(GRACE)
    const results = await pending
    expect(results.map((r) => r.error?.code)).toEqual(['CANCELLED_BEFORE_START', 'CANCELLED_BEFORE_START'])
    expect(runtime.session.events().map((e) => [e.type, e.callId])).toEqual([
      ['tool/call', 'a'],
      ['tool/call', 'b'],
      ['approval/asked', 'a'],
      ['approval/decided', 'a'],
      ['tool/result', 'a'],
      ['tool/result', 'b'],
    ])
    hang.resolve('allowed-once')
    await vi.advanceTimersByTimeAsync(0)
    expect(runtime.session.events().at(-1)).toMatchObject({
      type: 'tool/late-settle',
      callId: 'a',
      stage: 'approval',
    })
    expect(runs).toBe(0)
  })
})

describe('guards, projectContent, finalizeContent: synchronous by contract', () => {
  it('a guard that returns a promise fails the call (final), and its rejection is absorbed', async () => {
    const p = probe()
    p.runtime.guard(() => Promise.reject(new Error('async guard')) as unknown as string)
    const result = await p.runtime.execute({ callId: 'c1', name: 'probe', arguments: {} })
    expect(result.error).toEqual({
      kind: 'exception',
      code: 'LISTENER_EXCEPTION',
      message:
        'The probe tool failed unexpectedly (a guard failed: it returned a promise; guards are synchronous). This is not caused by your arguments; you may retry once, then report the problem.',
    })
    expect(p.runs).toBe(0)
  })

  it('projectContent and finalizeContent that return a promise fail the call; nothing is awaited', async () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'project',
        description: 'P.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => 'x',
        projectContent: () => new Promise<never>(() => {}) as never,
      }),
    )
    runtime.register(
      defineTool({
        name: 'final',
        description: 'F.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => 'x',
        finalizeContent: () => Promise.reject(new Error('late')) as never,
      }),
    )
    const [project, final] = await Promise.all([
      runtime.execute({ callId: 'p', name: 'project', arguments: {} }),
      runtime.execute({ callId: 'f', name: 'final', arguments: {} }),
    ])
    expect(project.error?.message).toBe(
      'The project tool failed unexpectedly (projectContent failed: it returned a promise; projectContent is synchronous). This is not caused by your arguments; you may retry once, then report the problem.',
    )
    expect(final.error?.message).toBe(
      'The final tool failed unexpectedly (finalizeContent failed: it returned a promise; finalizeContent is synchronous). This is not caused by your arguments; you may retry once, then report the problem.',
    )
  })
})

describe('tools/execute: a wrapper that never settles', () => {
  it('before next(), without a stop: the budget ends it; a late next() starts no body', async () => {
    const p = probe()
    const hang = gate()
    const seen: ExecuteOutcome[] = []
    p.runtime.on('tools/execute', (_e, next) =>
      hang.promise.then(async () => {
        const outcome = await next()
        seen.push(outcome)
        return outcome
      }),
    )
    const result = await settledAfter(p.runtime, BUDGET)
    expect(result.error).toEqual({
      kind: 'exception',
      code: 'LISTENER_EXCEPTION',
      message: STALLED_BEFORE('a tools/execute wrapper'),
    })
    expect(types(p.runtime)).toEqual(['tool/call', 'tool/result'])
    await settleLate(p, result, () => hang.resolve(), 'tools/execute')
    expect(p.runs).toBe(0)
    expect(seen).toEqual([
      { ok: false, error: new Error('the call already ended, so the body was not started') },
    ])
  })

  it('before next(), when the caller aborts: cancelled before start after the grace', async () => {
    const p = probe()
    const hang = gate()
    p.runtime.on('tools/execute', (_e, next) => hang.promise.then(() => next()))
    const result = await abortedAfterGrace(p.runtime)
    expect(result.error).toEqual({ kind: 'cancelled', code: 'CANCELLED_BEFORE_START', message: CANCELLED })
    await settleLate(p, result, () => hang.resolve(), 'tools/execute')
    expect(p.runs).toBe(0)
  })

  it('after next(), without a stop: the body ran, the result is withheld after the budget', async () => {
    const p = probe()
    const hang = gate()
    p.runtime.on('tools/execute', async (_e, next) => {
      const outcome = await next()
      await hang.promise
      return outcome
    })
    const result = await settledAfter(p.runtime, BUDGET)
    expect(p.runs).toBe(1)
    expect(result.error).toEqual({
      kind: 'exception',
      code: 'LISTENER_EXCEPTION',
      message: STALLED_AFTER('a tools/execute wrapper'),
    })
    await settleLate(p, result, () => hang.resolve(), 'tools/execute')
  })

  it('after next(), when the caller aborts: aborted after the grace', async () => {
    const p = probe()
    const hang = gate()
    p.runtime.on('tools/execute', async (_e, next) => {
      const outcome = await next()
      await hang.promise
      return outcome
    })
    const result = await abortedAfterGrace(p.runtime)
    expect(result.error).toEqual({ kind: 'aborted', code: 'ABORTED', message: ABORTED_UNRESPONSIVE })
    expect(types(p.runtime)).toEqual(['tool/call', 'tool/result'])
    await settleLate(p, result, () => hang.resolve(), 'tools/execute')
  })

  it('after next(), when the call’s deadline passed: timeout after the grace', async () => {
    const p = probe({
      timeoutMs: 500,
      body: (signal) =>
        new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    })
    const hang = gate()
    p.runtime.on('tools/execute', async (_e, next) => {
      const outcome = await next()
      await hang.promise
      return outcome
    })
    const result = await settledAfter(p.runtime, 500 + GRACE)
    expect(p.sawAbort).toBe(1)
    expect(result.error).toEqual({ kind: 'timeout', code: 'TOOL_TIMEOUT', message: TIMEOUT(500) })
    await settleLate(p, result, () => hang.resolve(), 'tools/execute')
  })

  it('without wrappers a body has no budget: one longer than the budget succeeds', async () => {
    const body = gate<string>()
    const p = probe({ timeouts: false, body: () => body.promise })
    const call = start(p.runtime)
    await vi.advanceTimersByTimeAsync(BUDGET * 5)
    expect(call.settled).toBe(undefined)
    body.resolve('slow but fine')
    expect((await call.pending).content).toEqual([{ type: 'text', text: 'slow but fine' }])
  })

  it.each([
    ['nothing can stop the body', false],
    ['the body has a signal', true],
  ])(
    'the budget pauses while the body runs (%s): a body longer than the budget under an async wrapper succeeds',
    async (_name, withSignal) => {
      const body = gate<string>()
      const p = probe({ body: () => body.promise })
      p.runtime.on('tools/execute', async (_e, next) => {
        const outcome = await next()
        return outcome
      })
      const call = start(p.runtime, withSignal ? new AbortController().signal : undefined)
      await vi.advanceTimersByTimeAsync(BUDGET * 5)
      expect(call.settled).toBe(undefined)
      body.resolve('slow but fine')
      const result = await call.pending
      expect(result.isError).toBe(false)
      expect(result.content).toEqual([{ type: 'text', text: 'slow but fine' }])
    },
  )

  it('a retry after the deadline resumes the wait: the second run’s success is the result', async () => {
    let attempt = 0
    const p = probe({
      timeoutMs: 500,
      body: (signal) => {
        attempt++
        if (attempt === 2) return 'second try'
        return new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
      },
    })
    // A retry wrapper inside the timeout policy: each next() it calls gets its own 500 ms deadline.
    p.runtime.on('tools/execute', async (_e, next) => {
      const first = await next()
      if (first.ok) return first
      await new Promise((resolve) => setTimeout(resolve, GRACE / 2))
      return next()
    })
    const call = start(p.runtime)
    await vi.advanceTimersByTimeAsync(500 + GRACE)
    const result = await call.pending
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'second try' }])
    expect(attempt).toBe(2)
  })
})

describe('the body: one that ignores its signal gets the grace, then is an orphan that gets no parent token', () => {
  it('an orphaned body cannot dispatch sub-calls with its token', async () => {
    const release = gate()
    let tokenError: unknown
    const p = probe({
      body: async () => {
        await release.promise
        return 'late'
      },
    })
    p.runtime.register(
      defineTool({
        name: 'program',
        description: 'Dispatches after its call ended.',
        parameters: z.object({}),
        output: textOutput(),
        execute: async (_a, exec) => {
          await release.promise
          try {
            exec.parentToken()
          } catch (error) {
            tokenError = error
          }
          return 'late'
        },
      }),
    )
    const controller = new AbortController()
    const pending = p.runtime.execute({
      callId: 'c1',
      name: 'program',
      arguments: {},
      signal: controller.signal,
    })
    await vi.advanceTimersByTimeAsync(10)
    controller.abort()
    await vi.advanceTimersByTimeAsync(GRACE)
    const result = await pending
    expect(result.error?.code).toBe('ABORTED')
    release.resolve()
    await vi.advanceTimersByTimeAsync(0)
    expect(tokenError).toEqual(
      new Error('This program call has ended; its body can no longer dispatch sub-calls.'),
    )
  })
})

describe('validation and output: async schemas that never settle', () => {
  it('an async parameters validator, without a stop: LISTENER_EXCEPTION after the budget', async () => {
    const hang = gate<boolean>()
    const p = probe({ parameters: z.object({}).refine(() => hang.promise) })
    const result = await settledAfter(p.runtime, BUDGET)
    expect(result.error).toEqual({
      kind: 'exception',
      code: 'LISTENER_EXCEPTION',
      message: STALLED_BEFORE('the parameters validation'),
    })
    await settleLate(p, result, () => hang.resolve(true), 'validation')
    expect(p.runs).toBe(0)
  })

  it('an async parameters validator, when the caller aborts: cancelled before start after the grace', async () => {
    const hang = gate<boolean>()
    const p = probe({ parameters: z.object({}).refine(() => hang.promise) })
    const result = await abortedAfterGrace(p.runtime)
    expect(result.error).toEqual({ kind: 'cancelled', code: 'CANCELLED_BEFORE_START', message: CANCELLED })
    await settleLate(p, result, () => hang.resolve(true), 'validation')
    expect(p.runs).toBe(0)
  })

  it('an async output validator, without a stop: the result is withheld after the budget', async () => {
    const hang = gate<boolean>()
    const p = probe({ output: z.string().refine(() => hang.promise) })
    const result = await settledAfter(p.runtime, BUDGET)
    expect(result.error).toEqual({
      kind: 'exception',
      code: 'LISTENER_EXCEPTION',
      message: STALLED_AFTER('the output validation'),
    })
    expect(result.value).toBe(undefined)
    await settleLate(p, result, () => hang.resolve(true), 'output')
  })

  it('an async output validator, when the caller aborts: aborted after the grace, the result withheld', async () => {
    const hang = gate<boolean>()
    const p = probe({ output: z.string().refine(() => hang.promise) })
    const result = await abortedAfterGrace(p.runtime)
    expect(result.error).toEqual({
      kind: 'aborted',
      code: 'ABORTED',
      message: ABORTED_AFTER_RUN('the output validation'),
    })
    await settleLate(p, result, () => hang.resolve(true), 'output')
  })
})

describe('tools/post-execute: a listener that never settles', () => {
  it('without a stop: the body ran, the result is withheld after the budget; a late next() runs no later listener', async () => {
    const p = probe()
    const hang = gate()
    let later = 0
    p.runtime.on('tools/post-execute', (_e, _r, next) => hang.promise.then(() => next()))
    p.runtime.on('tools/post-execute', (_e, _r, next) => {
      later++
      return next()
    })
    const result = await settledAfter(p.runtime, BUDGET)
    expect(p.runs).toBe(1)
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: STALLED_AFTER('a tools/post-execute listener') }],
      error: {
        kind: 'exception',
        code: 'LISTENER_EXCEPTION',
        message: STALLED_AFTER('a tools/post-execute listener'),
      },
    })
    expect(result.value).toBe(undefined)
    expect(types(p.runtime)).toEqual(['tool/call', 'tool/result'])
    await settleLate(p, result, () => hang.resolve(), 'tools/post-execute')
    expect(later).toBe(0)
  })

  it('when the caller aborts: aborted after the grace, the result withheld', async () => {
    const p = probe()
    const hang = gate<PostToolDecision>()
    p.runtime.on('tools/post-execute', () => hang.promise)
    const result = await abortedAfterGrace(p.runtime)
    expect(result.error).toEqual({
      kind: 'aborted',
      code: 'ABORTED',
      message: ABORTED_AFTER_RUN('a tools/post-execute listener'),
    })
    expect(types(p.runtime)).toEqual(['tool/call', 'tool/result'])
    await settleLate(p, result, () => hang.resolve({ kind: 'accept' }), 'tools/post-execute')
  })

  it('after the call’s deadline passed: timeout after the grace, not a fresh budget', async () => {
    const p = probe({
      timeoutMs: 500,
      body: (signal) =>
        new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    })
    const hang = gate<PostToolDecision>()
    p.runtime.on('tools/post-execute', () => hang.promise)
    const result = await settledAfter(p.runtime, 500 + GRACE)
    expect(result.error).toEqual({ kind: 'timeout', code: 'TOOL_TIMEOUT', message: TIMEOUT(500) })
    await settleLate(
      p,
      result,
      () => hang.reject(new Error('gave up at last')),
      'tools/post-execute',
      'rejected',
    )
  })
})

describe('tools/result observers and onSettled: synchronous, contained', () => {
  it('an async observer or onSettled that rejects is logged as a listener error, not an unhandled rejection', async () => {
    vi.useRealTimers()
    const p = probe()
    p.runtime.on('tools/result', async () => {
      throw new Error('observer gave up')
    })
    const [result] = await p.runtime.executeBatch([{ callId: 'c1', name: 'probe', arguments: {} }], {
      onSettled: () => Promise.reject(new Error('ui gone')),
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(result?.isError).toBe(false)
    expect(p.runtime.session.events().map((e) => [e.type, e.stage ?? null, e.error ?? null])).toEqual([
      ['tool/call', null, null],
      ['tool/result', null, null],
      ['listener/error', 'onSettled', 'ui gone'],
      ['listener/error', 'tools/result', 'observer gave up'],
    ])
  })
})

describe('dispose', () => {
  it('reports listener orphans by stage, like bodies', async () => {
    const p = probe()
    p.runtime.on('tools/post-execute', () => new Promise<never>(() => {}))
    const call = start(p.runtime)
    await vi.advanceTimersByTimeAsync(BUDGET)
    await call.pending
    const report = p.runtime.dispose()
    await vi.advanceTimersByTimeAsync(GRACE)
    expect(await report).toEqual({ pendingOrphans: [{ callId: 'c1', stage: 'tools/post-execute' }] })
  })
})
