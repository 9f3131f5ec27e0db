import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createApprovalService,
  createRuntime,
  defineTool,
  type JsonValue,
  type PostToolDecision,
  type PreToolDecision,
  type ToolCall,
  type ToolResult,
} from '../src/index.js'

// DESIGN.md §5 invariants over random tools, listeners, decisions and faults. Each property
// builds a fresh runtime from a generated scenario, runs a random batch (sometimes aborted at a
// random point), and checks the invariants on what came out. 1,000+ cases per CI run in total.

type Fault = 'none' | 'throw' | 'tool-error' | 'non-json' | 'bad-output' | 'hang' | 'slow'
type ToolSpec = {
  name: string
  parallel: 'true' | 'false' | 'throws' | 'truthy' | 'absent'
  fault: Fault
  finalizeThrows: boolean
}
type Scenario = {
  tools: ToolSpec[]
  pre: ('allow' | 'deny' | 'ask' | 'cancel' | 'throw' | 'garbage' | 'next' | 'hang')[]
  guard: 'none' | 'deny-odd' | 'throw' | 'non-string'
  approval: 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable' | 'throws' | 'none' | 'hang'
  /** A tools/execute wrapper: passes through (async), or never settles before / after next(). */
  wrapper: 'none' | 'pass' | 'hang-before' | 'hang-after'
  post: 'none' | 'accept' | 'replace-content' | 'block' | 'throw' | 'hang'
  calls: { tool: number; args: 'ok' | 'bad-json' | 'invalid' | 'unknown' }[]
  abortAfter: number | null
  /** The user presses Esc this many ms in (null: never, unless a body or answerer would wait for ever). */
  esc: number | null
  maxParallel: number
}

const toolSpec = fc.record({
  name: fc.constantFrom('a', 'b', 'c'),
  parallel: fc.constantFrom('true', 'false', 'throws', 'truthy', 'absent'),
  fault: fc.constantFrom(
    'none',
    'none',
    'none',
    'throw',
    'tool-error',
    'non-json',
    'bad-output',
    'hang',
    'slow',
  ),
  finalizeThrows: fc.boolean(),
}) as fc.Arbitrary<ToolSpec>

const scenario: fc.Arbitrary<Scenario> = fc.record({
  tools: fc.uniqueArray(toolSpec, { minLength: 1, maxLength: 3, selector: (t) => t.name }),
  pre: fc.array(fc.constantFrom('allow', 'deny', 'ask', 'cancel', 'throw', 'garbage', 'next', 'hang'), {
    maxLength: 3,
  }),
  guard: fc.constantFrom('none', 'deny-odd', 'throw', 'non-string'),
  approval: fc.constantFrom('allowed-once', 'rejected', 'cancelled', 'unavailable', 'throws', 'none', 'hang'),
  wrapper: fc.constantFrom('none', 'none', 'pass', 'hang-before', 'hang-after'),
  post: fc.constantFrom('none', 'accept', 'replace-content', 'block', 'throw', 'hang'),
  calls: fc.array(
    fc.record({ tool: fc.nat(2), args: fc.constantFrom('ok', 'ok', 'ok', 'bad-json', 'invalid', 'unknown') }),
    { minLength: 1, maxLength: 8 },
  ),
  abortAfter: fc.option(fc.nat(6), { nil: null }),
  esc: fc.option(fc.integer({ min: 0, max: 25 }), { nil: null }),
  maxParallel: fc.integer({ min: 1, max: 4 }),
}) as fc.Arbitrary<Scenario>

function build(s: Scenario) {
  const approval = createApprovalService()
  if (s.approval !== 'none') {
    approval.answer(async () => {
      if (s.approval === 'throws') throw new Error('prompt crashed')
      // An answerer that ignores its signal: only the caller's abort (and the grace) ends it.
      if (s.approval === 'hang') return never<'allowed-once'>()
      return s.approval as 'allowed-once'
    })
  }
  const runtime = createRuntime({
    approval,
    maxParallel: s.maxParallel,
    abortGraceMs: 5,
    listenerTimeoutMs: 10,
  })
  const finalizeCalls = new Map<string, number>()
  let running = 0
  let exclusiveRunning = false
  let maxRunning = 0
  const violations: string[] = []
  const bodySignals = new Map<string, AbortSignal>()
  for (const spec of s.tools) {
    const parallel =
      spec.parallel === 'absent'
        ? {}
        : {
            isConcurrencySafe: () => {
              if (spec.parallel === 'throws') throw new Error('classifier bug')
              return (spec.parallel === 'truthy' ? 1 : spec.parallel === 'true') as boolean
            },
          }
    runtime.register(
      defineTool({
        name: spec.name,
        description: `Tool ${spec.name}.`,
        parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        output: {
          schema: { type: 'object' },
          render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }],
        },
        ...parallel,
        execute: async (args, exec) => {
          const exclusive = spec.parallel !== 'true'
          if (exclusiveRunning || (exclusive && running > 0)) violations.push(`overlap at ${exec.callId}`)
          running++
          if (exclusive) exclusiveRunning = true
          maxRunning = Math.max(maxRunning, running)
          bodySignals.set(exec.callId, exec.signal)
          try {
            await new Promise((resolve) => setImmediate(resolve))
            switch (spec.fault) {
              case 'throw':
                throw new Error('body bug')
              case 'tool-error': {
                const { ToolError } = await import('../src/index.js')
                throw new ToolError('expected failure')
              }
              case 'non-json':
                return { n: Number.NaN } as never
              case 'bad-output':
                return 'not an object' as never
              case 'hang':
                return await new Promise<never>(() => {})
              case 'slow':
                await new Promise((resolve) => setTimeout(resolve, 1))
                return { n: (args as { n: number }).n } as never
              default:
                return { n: (args as { n: number }).n } as never
            }
          } finally {
            running--
            if (exclusive) exclusiveRunning = false
          }
        },
        finalizeContent: (exec) => {
          finalizeCalls.set(exec.callId, (finalizeCalls.get(exec.callId) ?? 0) + 1)
          if (spec.finalizeThrows) throw new Error('finalizer bug')
          return undefined
        },
      }),
    )
  }
  for (const decision of s.pre) {
    runtime.on('tools/pre-execute', (_exec, next) => {
      switch (decision) {
        case 'next':
          return next()
        case 'throw':
          throw new Error('pre bug')
        case 'garbage':
          return { kind: 'whatever' } as unknown as PreToolDecision
        case 'deny':
          return { kind: 'deny', reason: 'denied by test' }
        case 'hang':
          return never<PreToolDecision>()
        default:
          return { kind: decision } as PreToolDecision
      }
    })
  }
  if (s.guard !== 'none') {
    runtime.guard((exec) => {
      if (s.guard === 'throw') throw new Error('guard bug')
      if (s.guard === 'non-string') return 42 as unknown as string
      return Number(exec.callId.slice(1)) % 2 === 1 ? 'odd calls are denied' : undefined
    })
  }
  if (s.post !== 'none') {
    runtime.on('tools/post-execute', (_exec, _result, next) => {
      switch (s.post) {
        case 'throw':
          throw new Error('post bug')
        case 'block':
          return { kind: 'block', feedback: [{ type: 'text', text: 'blocked' }] }
        case 'replace-content':
          return { kind: 'accept', content: [{ type: 'text', text: 'replaced' }] }
        case 'hang':
          return never<PostToolDecision>()
        default:
          return next()
      }
    })
  }
  if (s.wrapper !== 'none') {
    runtime.on('tools/execute', async (_exec, next) => {
      if (s.wrapper === 'hang-before') await never()
      const outcome = await next()
      if (s.wrapper === 'hang-after') await never()
      return outcome
    })
  }
  const observed: ToolResult[] = []
  runtime.on('tools/result', (_exec, result) => {
    observed.push(result)
  })
  runtime.on('tools/result', () => {
    throw new Error('observer bug')
  })
  return {
    runtime,
    finalizeCalls,
    violations,
    observed,
    bodySignals,
    get maxRunning() {
      return maxRunning
    },
  }
}

/** Host code that never settles on its own. */
function never<T = void>(): Promise<T> {
  return new Promise<T>(() => {})
}

/** When the user presses Esc: a body or an answerer that ignores its signal would wait for ever. */
function escAfter(s: Scenario): number | null {
  const forever = s.tools.some((t) => t.fault === 'hang') || s.approval === 'hang'
  return s.esc ?? (forever ? 5 : null)
}

function callsOf(s: Scenario): ToolCall[] {
  return s.calls.map((c, i) => {
    const tool = s.tools[c.tool % s.tools.length]!
    const callId = `c${i}`
    switch (c.args) {
      case 'bad-json':
        return { callId, name: tool.name, arguments: '{"n": ' }
      case 'invalid':
        return { callId, name: tool.name, arguments: { n: 'x' } }
      case 'unknown':
        return { callId, name: 'zzz', arguments: { n: i } }
      default:
        return { callId, name: tool.name, arguments: JSON.stringify({ n: i }) }
    }
  })
}

function deepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  if (!Object.isFrozen(value)) return false
  return Object.values(value).every(deepFrozen)
}

async function run(s: Scenario) {
  const h = build(s)
  const calls = callsOf(s)
  const controller = new AbortController()
  // Count listeners on the caller's signal: however many calls watch it, it carries one.
  const listeners = { added: 0, removed: 0 }
  const signal = controller.signal
  const add = signal.addEventListener.bind(signal)
  const remove = signal.removeEventListener.bind(signal)
  signal.addEventListener = ((...a: Parameters<typeof add>) => {
    listeners.added++
    return add(...a)
  }) as typeof add
  signal.removeEventListener = ((...a: Parameters<typeof remove>) => {
    listeners.removed++
    return remove(...a)
  }) as typeof remove
  let settledCount = 0
  // Listeners and wrappers that never settle end on their own after the listener budget; a body
  // or an answerer that ignores its signal needs the user to press Esc.
  const escMs = escAfter(s)
  const esc = escMs === null ? undefined : setTimeout(() => controller.abort(), escMs)
  const results = await h.runtime.executeBatch(calls, {
    signal: controller.signal,
    onSettled: () => {
      settledCount++
      if (s.abortAfter !== null && settledCount === s.abortAfter) controller.abort()
    },
  })
  clearTimeout(esc)
  return { h, calls, results, settledCount, listeners }
}

describe('DESIGN.md §5 invariants (property-based)', () => {
  it('1, 2, 3, 5, 8, 9: one frozen result per call in model order; finalize once; observers see the log; counters add up', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { h, calls, results, settledCount, listeners } = await run(s)
        // No listener per call on the caller's signal: one watches it for every call (signal/watch.ts).
        expect(listeners.added).toBeLessThanOrEqual(1)
        // 1. exactly one result per call, in model order; tool/call logged before the result.
        expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.callId))
        expect(settledCount).toBe(calls.length)
        const events = h.runtime.session.events()
        for (const c of calls) {
          const callSeq = events.findIndex((e) => e.type === 'tool/call' && e.callId === c.callId)
          const resultEvents = events.filter((e) => e.type === 'tool/result' && e.callId === c.callId)
          expect(callSeq).toBeGreaterThanOrEqual(0)
          expect(resultEvents).toHaveLength(1)
          expect(events.indexOf(resultEvents[0]!)).toBeGreaterThan(callSeq)
        }
        const resultOrder = events.filter((e) => e.type === 'tool/result').map((e) => e.callId)
        expect(resultOrder).toEqual(calls.map((c) => c.callId))
        // 2. finalizeContent exactly once for each call that resolved to a tool.
        for (const c of calls) {
          if (c.name === 'zzz') expect(h.finalizeCalls.get(c.callId)).toBe(undefined)
          else expect(h.finalizeCalls.get(c.callId)).toBe(1)
        }
        // 3. deep-frozen results; observers saw exactly the results that were returned and logged.
        for (const r of results) expect(deepFrozen(r)).toBe(true)
        expect(h.observed).toEqual(results)
        for (let i = 0; i < results.length; i++) expect(h.observed[i]).toBe(results[i])
        // 5. exclusive calls never overlapped anything; the pool cap held.
        expect(h.violations).toEqual([])
        expect(h.maxRunning).toBeLessThanOrEqual(s.maxParallel)
        // 8. calls = successes + failures, per tool.
        for (const m of Object.values(h.runtime.metrics())) expect(m.calls).toBe(m.successes + m.failures)
        const total = Object.values(h.runtime.metrics()).reduce((n, m) => n + m.calls, 0)
        expect(total).toBe(calls.length)
        // 9. the throwing observer changed nothing (and was logged).
        expect(events.filter((e) => e.type === 'listener/error')).toHaveLength(calls.length)
        // Every failure carries a kind and a code; successes carry a value.
        for (const r of results) {
          if (r.isError) expect(r.error?.kind && r.error.code).toBeTruthy()
          else expect(r.error).toBe(undefined)
        }
        await h.runtime.dispose()
      }),
      { numRuns: 500 },
    )
  }, 120_000)

  it('4: a guard denial can never become an allow; an ask without an allowed-once answer never runs the body', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { h, calls, results } = await run(s)
        for (let i = 0; i < calls.length; i++) {
          const ran = h.bodySignals.has(calls[i]!.callId)
          const oddDenied = s.guard === 'deny-odd' && i % 2 === 1
          if (oddDenied || s.guard === 'throw' || s.guard === 'non-string') expect(ran).toBe(false)
          const firstDecisive = s.pre.find((d) => d !== 'next')
          if (firstDecisive === 'ask' && s.approval !== 'allowed-once') expect(ran).toBe(false)
          if (firstDecisive && firstDecisive !== 'allow' && firstDecisive !== 'ask') expect(ran).toBe(false)
          if (oddDenied && results[i]?.isError && s.post !== 'block' && s.post !== 'throw') {
            const kind = results[i]!.error!.kind
            expect([
              'permission_denied',
              'cancelled',
              'invalid_input',
              'unknown_tool',
              'approval_refused',
              'exception',
            ]).toContain(kind)
          }
        }
        await h.runtime.dispose()
      }),
      { numRuns: 300 },
    )
  }, 120_000)

  it('6: the caller’s cancellation reaches every body, whatever wrappers do with exec.signal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 }), fc.boolean(), async (wrappers, replace) => {
        const runtime = createRuntime({ abortGraceMs: 5 })
        let bodySignal: AbortSignal | undefined
        let started!: () => void
        const startedP = new Promise<void>((r) => {
          started = r
        })
        runtime.register(
          defineTool({
            name: 'w',
            description: 'W.',
            parameters: { type: 'object' },
            output: { schema: {}, render: () => [] },
            execute: (_a, exec) =>
              new Promise<JsonValue>((_r, reject) => {
                bodySignal = exec.signal
                started()
                exec.signal.addEventListener('abort', () => reject(new Error('stopped')))
              }),
          }),
        )
        for (let i = 0; i < wrappers; i++) {
          runtime.on('tools/execute', (_exec, next) =>
            replace ? next({ signal: new AbortController().signal }) : next(),
          )
        }
        const controller = new AbortController()
        const pending = runtime.execute({ callId: 'x', name: 'w', arguments: {}, signal: controller.signal })
        await startedP
        controller.abort()
        const result = await pending
        expect(bodySignal?.aborted).toBe(true)
        expect(result.error?.kind).toBe('aborted')
      }),
      { numRuns: 100 },
    )
  })

  it('7: host-only fields never appear in model-facing schemas', () => {
    fc.assert(
      fc.property(
        fc.record({
          timeoutMs: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
          deferLoading: fc.option(fc.boolean(), { nil: undefined }),
          extra: fc.dictionary(
            fc.constantFrom('secret', 'apiKey', 'execute', 'output', 'hostOnly'),
            fc.string(),
          ),
        }),
        ({ timeoutMs, deferLoading, extra }) => {
          const runtime = createRuntime()
          runtime.register({
            ...extra,
            ...defineTool({
              name: 't',
              description: 'T.',
              parameters: { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' },
              output: { schema: {}, render: () => [] },
              execute: () => null,
              isConcurrencySafe: () => true,
              presentCall: () => undefined,
              ...(timeoutMs === undefined ? {} : { timeoutMs }),
              ...(deferLoading === undefined ? {} : { deferLoading }),
            }),
          })
          for (const schema of runtime.schemas()) {
            const allowed = ['name', 'description', 'parameters', 'deferLoading']
            for (const key of Object.keys(schema)) expect(allowed).toContain(key)
            expect(JSON.stringify(schema)).not.toContain('$schema')
          }
        },
      ),
      { numRuns: 100 },
    )
  })
})

// Issue 13 §2: host code that never settles, at every stage that awaits it. Each case runs a batch
// whose host code at one stage hangs (or honours its signal), with or without the user pressing
// Esc and with or without a tool deadline; then it settles every hung promise late and checks
// that this is only logged: no result, counter or event changes, no body starts.

type HangStage = 'pre' | 'approval' | 'wrapper-before' | 'wrapper-after' | 'body' | 'post'
type HangScenario = {
  stage: HangStage
  /** The hung code rejects when its signal aborts (it honours the signal), or ignores it. */
  honours: boolean
  esc: number | null
  timeoutMs: number | null
  calls: number
  parallel: boolean
  late: 'resolve' | 'reject'
}

const hangScenario: fc.Arbitrary<HangScenario> = fc.record({
  stage: fc.constantFrom('pre', 'approval', 'wrapper-before', 'wrapper-after', 'body', 'post'),
  honours: fc.boolean(),
  esc: fc.option(fc.integer({ min: 0, max: 25 }), { nil: null }),
  timeoutMs: fc.option(fc.constantFrom(5, 15), { nil: null }),
  calls: fc.integer({ min: 1, max: 3 }),
  parallel: fc.boolean(),
  late: fc.constantFrom('resolve', 'reject'),
}) as fc.Arbitrary<HangScenario>

async function runHung(s: HangScenario) {
  type Hung = { promise: Promise<unknown>; settle(): void; early: boolean }
  const hung: Hung[] = []
  /** A promise only the test settles (late), or the signal's abort (when the code honours it). */
  const hang = <T>(signal: AbortSignal, late: () => T): Promise<T> => {
    let resolve!: (v: T) => void
    let reject!: (e: unknown) => void
    const promise = new Promise<T>((res, rej) => {
      resolve = res
      reject = rej
    })
    const entry: Hung = {
      promise,
      early: false,
      settle: () => (s.late === 'resolve' ? resolve(late()) : reject(new Error('late failure'))),
    }
    if (s.honours)
      signal.addEventListener('abort', () => {
        entry.early = true
        reject(signal.reason)
      })
    hung.push(entry)
    return promise
  }
  const approval = createApprovalService()
  approval.answer((request) => hang(request.signal, () => 'allowed-once' as const))
  const runtime = createRuntime({ approval, abortGraceMs: 5, listenerTimeoutMs: 10 })
  const events = () => runtime.session.events()
  const lateStarts: string[] = []
  runtime.register(
    defineTool({
      name: 't',
      description: 'T.',
      parameters: { type: 'object' },
      output: { schema: {}, render: () => [] },
      ...(s.parallel ? { isConcurrencySafe: () => true } : {}),
      ...(s.timeoutMs === null ? {} : { timeoutMs: s.timeoutMs }),
      execute: (_args, exec) => {
        if (events().some((e) => e.type === 'tool/result' && e.callId === exec.callId))
          lateStarts.push(exec.callId)
        return s.stage === 'body' ? hang(exec.signal, () => 'late') : 'ok'
      },
    }),
  )
  if (s.stage === 'pre')
    runtime.on('tools/pre-execute', (exec, next) => hang(exec.signal, () => 0).then(() => next()))
  if (s.stage === 'approval') runtime.on('tools/pre-execute', () => ({ kind: 'ask' }))
  if (s.stage === 'wrapper-before' || s.stage === 'wrapper-after')
    runtime.on('tools/execute', async (exec, next) => {
      if (s.stage === 'wrapper-before') await hang(exec.signal, () => 0)
      const outcome = await next()
      if (s.stage === 'wrapper-after') await hang(exec.signal, () => 0)
      return outcome
    })
  if (s.stage === 'post')
    runtime.on('tools/post-execute', (exec, _r, next) => hang(exec.signal, () => 0).then(() => next()))
  const calls = Array.from({ length: s.calls }, (_, i) => ({ callId: `c${i}`, name: 't', arguments: {} }))
  // An answerer (a person) and a body without a deadline have no budget: they wait until the
  // user presses Esc (then, honouring their signal or not, they end within the grace).
  const forever = s.stage === 'approval' || (s.stage === 'body' && s.timeoutMs === null)
  const escMs = s.esc ?? (forever ? 5 : null)
  const controller = new AbortController()
  const esc = escMs === null ? undefined : setTimeout(() => controller.abort(), escMs)
  const results = await runtime.executeBatch(calls, { signal: controller.signal })
  clearTimeout(esc)
  return { runtime, calls, results, hung, lateStarts, escMs }
}

describe('issue 13 §2: every call settles (property-based)', () => {
  it('hung listeners, wrappers, answerers and bodies end each call in one result; settling them late changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(hangScenario, async (s) => {
        const { runtime, calls, results, hung, lateStarts, escMs } = await runHung(s)
        expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.callId))
        const logged = runtime.session.events()
        expect(logged.filter((e) => e.type === 'tool/result').map((e) => e.callId)).toEqual(
          calls.map((c) => c.callId),
        )
        for (const r of results) {
          expect(deepFrozen(r)).toBe(true)
          if (r.isError) expect(r.error?.message).toMatch(/\.$/)
        }
        // Nobody pressed Esc and no deadline: listeners and wrappers that hang stall (a bug, said so).
        if (escMs === null && s.timeoutMs === null && s.stage !== 'body')
          for (const r of results) expect(r.error?.code).toBe('LISTENER_EXCEPTION')
        // Settle everything late.
        const before = logged.length
        const metrics = runtime.metrics()
        const abandoned = hung.filter((h) => !h.early).length
        for (const h of hung) h.settle()
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
        const after = runtime.session.events().slice(before)
        expect(after.map((e) => e.type)).toEqual(Array(abandoned).fill('tool/late-settle'))
        expect(runtime.metrics()).toEqual(metrics)
        expect(lateStarts).toEqual([])
        expect(await runtime.dispose()).toEqual({ pendingOrphans: [] })
      }),
      { numRuns: 200 },
    )
  }, 120_000)
})

// Issue 13 §2: option values. Valid ones work; anything else is a TypeError naming the option,
// raised before any event is logged or any body runs.

const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(Number.NaN),
  fc.constant(Number.POSITIVE_INFINITY),
  fc.integer({ min: -3, max: 6 }),
  fc.double({ min: -2, max: 6, noNaN: true }),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
  fc.constant(() => {}),
  fc.constant(new AbortController().signal),
)

describe('issue 13 §2: options (property-based)', () => {
  it('executeBatch: valid options run the batch; invalid ones are a TypeError before anything is logged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            maxParallel: anyValue,
            signal: anyValue,
            onSettled: anyValue,
            extra: anyValue,
          },
          { requiredKeys: [] },
        ),
        fc.oneof(fc.constant('array' as const), anyValue),
        async (raw, callsShape) => {
          const { extra, ...known } = raw
          const options: Record<string, unknown> = { ...known }
          if ('extra' in raw) options.extra = extra
          const runtime = createRuntime()
          let runs = 0
          runtime.register(
            defineTool({
              name: 'e',
              description: 'E.',
              parameters: { type: 'object' },
              output: { schema: {}, render: () => [] },
              isConcurrencySafe: () => true,
              execute: () => {
                runs++
                return 'ok'
              },
            }),
          )
          const calls =
            callsShape === 'array'
              ? [
                  { callId: 'a', name: 'e', arguments: {} },
                  { callId: 'b', name: 'e', arguments: {} },
                ]
              : callsShape
          const valid =
            Array.isArray(calls) &&
            calls.every((c) => typeof c === 'object' && c !== null) &&
            !('extra' in raw) &&
            (known.maxParallel === undefined ||
              (Number.isSafeInteger(known.maxParallel) && (known.maxParallel as number) >= 1)) &&
            (known.signal === undefined || known.signal instanceof AbortSignal) &&
            (known.onSettled === undefined || typeof known.onSettled === 'function')
          const outcome = await runtime.executeBatch(calls as never, options as never).then(
            (results) => ({ results }),
            (error: unknown) => ({ error }),
          )
          if (valid) {
            expect('results' in outcome && outcome.results.map((r) => r.isError)).toEqual(
              (calls as unknown[]).map(() => false),
            )
            expect(runs).toBe((calls as unknown[]).length)
          } else {
            expect('error' in outcome && outcome.error).toBeInstanceOf(TypeError)
            const message = (outcome as { error: TypeError }).error.message
            expect(message).toMatch(/^executeBatch: (options|calls|unknown option)/)
            expect(runtime.session.events()).toEqual([])
            expect(runs).toBe(0)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('createRuntime: valid options build a runtime; invalid ones are a TypeError naming the option', () => {
    fc.assert(
      fc.property(
        fc.record(
          { maxParallel: anyValue, abortGraceMs: anyValue, listenerTimeoutMs: anyValue, timeouts: anyValue },
          { requiredKeys: [] },
        ),
        (options) => {
          const ms = (v: unknown, min: number, open: boolean) =>
            v === undefined ||
            (typeof v === 'number' && Number.isFinite(v) && (open ? v > min : v >= min) && v <= 2_147_483_647)
          const valid =
            (options.maxParallel === undefined ||
              (Number.isSafeInteger(options.maxParallel) && (options.maxParallel as number) >= 1)) &&
            ms(options.abortGraceMs, 0, false) &&
            ms(options.listenerTimeoutMs, 0, true) &&
            (options.timeouts === undefined || typeof options.timeouts === 'boolean')
          if (valid) expect(() => createRuntime(options as never)).not.toThrow()
          else expect(() => createRuntime(options as never)).toThrow(/^createRuntime: options\.\w+ must be /)
        },
      ),
      { numRuns: 300 },
    )
  })
})
