import type { Message } from '@toolgate/providers'
import { scriptedModel, truncatedCallText } from '@toolgate/providers'
import { describe, expect, it } from 'vitest'
import { collectAgent, emptyArgsHint, runAgent } from '../src/index.js'
import { assertValidHistory, drain, gate, testRuntime } from './helpers.js'

const task: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'do it' }] }]

describe('runAgent: turns and batches', () => {
  it('runs a parallel batch, sends the results back in model order, then finishes', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([
      {
        text: 'Two echoes.',
        toolCalls: [
          { name: 'echo', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'echo', arguments: { text: 'b' }, callId: 'c2' },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
      { text: 'All done.', usage: { inputTokens: 30, outputTokens: 3 } },
    ])
    const run = runAgent({ model, runtime, messages: task })
    const events = await drain(run)
    const result = await run.result

    expect(events.map((e) => e.type)).toEqual([
      'turn-start',
      'text-delta',
      'tool-call',
      'tool-call',
      'tool-result',
      'tool-result',
      'turn-end',
      'turn-start',
      'text-delta',
      'turn-end',
      'done',
    ])
    const call = events.find((e) => e.type === 'tool-call')
    expect(call).toEqual({
      type: 'tool-call',
      turn: 1,
      callId: 'c1',
      name: 'echo',
      arguments: '{"text":"a"}',
      view: { card: 'generic', title: 'echo a' },
    })
    const settled = events.filter((e) => e.type === 'tool-result')
    expect(settled.map((e) => e.type === 'tool-result' && e.view)).toEqual([
      { card: 'generic', title: 'echoed a', summary: 'ok' },
      { card: 'generic', title: 'echoed b', summary: 'ok' },
    ])
    expect(result.reason).toBe('completed')
    expect(result.turns).toBe(2)
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 8, promptTokens: 40 })
    expect(result.appended).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Two echoes.' },
          { type: 'tool-call', callId: 'c1', name: 'echo', arguments: '{"text":"a"}' },
          { type: 'tool-call', callId: 'c2', name: 'echo', arguments: '{"text":"b"}' },
        ],
      },
      { role: 'tool', callId: 'c1', name: 'echo', content: [{ type: 'text', text: 'a' }], isError: false },
      { role: 'tool', callId: 'c2', name: 'echo', content: [{ type: 'text', text: 'b' }], isError: false },
      { role: 'assistant', parts: [{ type: 'text', text: 'All done.' }] },
    ])
    // The second request carried the whole history, with tools declared every turn.
    expect(model.requests[1]!.messages).toEqual([...task, ...result.appended.slice(0, 3)])
    expect(model.requests[1]!.tools!.map((t) => t.name)).toEqual(['echo', 'note', 'wait'])
    assertValidHistory(result.messages)
  })

  it('sends the system prompt first in every request, outside the returned history', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([{ text: 'hi' }])
    const result = await collectAgent({ model, runtime, messages: task, system: 'Be brief.' })
    expect(model.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
    expect(result.messages[0]).toEqual(task[0])
  })

  it('delivers additionalContexts FIFO after all results of the batch', async () => {
    const { runtime } = testRuntime()
    const { defineTool, textOutput } = await import('@toolgate/core')
    const { z } = await import('zod')
    runtime.register(
      defineTool({
        name: 'ctx',
        description: 'Defers a context message.',
        parameters: z.object({ n: z.number() }),
        output: textOutput(),
        isConcurrencySafe: () => true,
        execute(args, exec) {
          exec.deferContext({ role: 'user', content: [{ type: 'text', text: `context ${args.n}` }] })
          return `ok ${args.n}`
        },
      }),
    )
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'ctx', arguments: { n: 1 }, callId: 'a' },
          { name: 'ctx', arguments: { n: 2 }, callId: 'b' },
        ],
      },
      { text: 'ok' },
    ])
    const result = await collectAgent({ model, runtime, messages: task })
    expect(result.appended.slice(1, 5).map((m) => m.role)).toEqual(['tool', 'tool', 'user', 'user'])
    expect(result.appended[3]).toEqual({ role: 'user', content: [{ type: 'text', text: 'context 1' }] })
    expect(result.appended[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'context 2' }] })
  })

  it('runs the calls of a reply that says done but still holds calls (seed 003 §4.5 F2)', async () => {
    const { runtime, log } = testRuntime()
    const model = scriptedModel([
      {
        toolCalls: [{ name: 'note', arguments: { text: 'x' }, callId: 'n1' }],
        stopReason: 'done',
        rawStopReason: 'stop',
      },
      { text: 'finished' },
    ])
    const result = await collectAgent({ model, runtime, messages: task })
    expect(log.order).toEqual(['note:x'])
    expect(result.reason).toBe('completed')
    expect(result.turns).toBe(2)
  })
})

describe('runAgent: stop reasons', () => {
  it('never runs the calls of a reply cut by max_tokens; answers them and lets the model re-issue', async () => {
    const { runtime, log } = testRuntime()
    const model = scriptedModel([
      {
        toolCalls: [{ name: 'note', arguments: '{"text":"cut', callId: 't1' }],
        stopReason: 'max_tokens',
        rawStopReason: 'length',
      },
      { toolCalls: [{ name: 'note', arguments: { text: 'whole' }, callId: 't2' }] },
      { text: 'ok' },
    ])
    const run = runAgent({ model, runtime, messages: task })
    const events = await drain(run)
    const result = await run.result
    expect(log.started).toEqual(['note:whole'])
    expect(result.appended[1]).toEqual({
      role: 'tool',
      callId: 't1',
      name: 'note',
      content: [{ type: 'text', text: truncatedCallText('note') }],
      isError: true,
    })
    const truncated = events.find((e) => e.type === 'tool-result' && e.callId === 't1')
    expect(truncated?.type === 'tool-result' && truncated.result.error?.code).toBe('TRUNCATED_BY_TOKEN_LIMIT')
    expect(runtime.session.events().find((e) => e.type === 'agent/truncated-calls')).toMatchObject({
      callIds: ['t1'],
    })
    // The truncated call never reached the pipeline: no tool/call for it.
    expect(
      runtime.session
        .events()
        .filter((e) => e.type === 'tool/call')
        .map((e) => e.callId),
    ).toEqual(['t2'])
    expect(result.reason).toBe('completed')
    assertValidHistory(result.messages)
  })

  it('bounds the re-issue of truncated calls', async () => {
    const { runtime } = testRuntime()
    const cut = {
      toolCalls: [{ name: 'note', arguments: '{"te' }],
      stopReason: 'max_tokens' as const,
      rawStopReason: 'length',
    }
    const model = scriptedModel([cut, cut, cut])
    const result = await collectAgent({ model, runtime, messages: task, maxTruncatedRetries: 2 })
    expect(result.reason).toBe('max_tokens')
    expect(result.message).toBe('the reply hit the output token limit 3 times in a row with tool calls in it')
    expect(result.turns).toBe(3)
    assertValidHistory(result.messages)
  })

  it('ends with max_tokens when a text reply is cut', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([{ text: 'half an ans', stopReason: 'max_tokens', rawStopReason: 'length' }])
    const result = await collectAgent({ model, runtime, messages: task })
    expect(result.reason).toBe('max_tokens')
    expect(result.appended).toEqual([{ role: 'assistant', parts: [{ type: 'text', text: 'half an ans' }] }])
  })

  it('treats an unknown stop reason as an error, never a silent done, and answers its calls', async () => {
    const { runtime, log } = testRuntime()
    const model = scriptedModel([
      {
        toolCalls: [{ name: 'note', arguments: { text: 'x' }, callId: 'u1' }],
        stopReason: 'error',
        rawStopReason: 'weird',
      },
    ])
    const run = runAgent({ model, runtime, messages: task })
    const events = await drain(run)
    const result = await run.result
    expect(result.reason).toBe('error')
    expect(result.message).toBe('unknown stop reason "weird"; not treated as done')
    expect(events.at(-1)).toEqual({
      type: 'done',
      reason: 'error',
      message: 'unknown stop reason "weird"; not treated as done',
      failure: { source: 'stop-reason', rawStopReason: 'weird' },
      turns: 1,
      usage: { inputTokens: 0, outputTokens: 0 },
    })
    expect(log.started).toEqual([])
    expect(result.appended[1]).toMatchObject({ role: 'tool', callId: 'u1', isError: true })
    assertValidHistory(result.messages)
  })

  it('treats a missing stop reason as an error', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([{ text: 'hm', stopReason: 'error', rawStopReason: null }])
    const result = await collectAgent({ model, runtime, messages: task })
    expect(result).toMatchObject({
      reason: 'error',
      message: 'the provider sent no stop reason; the reply may be incomplete',
    })
  })

  it('ends with refusal', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([{ text: 'no', stopReason: 'refusal', rawStopReason: 'content_filter' }])
    expect((await collectAgent({ model, runtime, messages: task })).reason).toBe('refusal')
  })

  it('a provider failure ends the run with error, not a crash', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([])
    const result = await collectAgent({ model, runtime, messages: task })
    expect(result.reason).toBe('error')
    expect(result.message).toMatch(/^the model request failed: scripted model: no turn left/)
  })
})

describe('runAgent: termination guards', () => {
  const loopForever = () => ({
    toolCalls: [{ name: 'echo', arguments: { text: 'again' } }],
    usage: { inputTokens: 100, outputTokens: 20 },
  })

  it('stops after maxTurns model requests', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([loopForever, loopForever, loopForever])
    const result = await collectAgent({ model, runtime, messages: task, maxTurns: 2 })
    expect(result).toMatchObject({
      reason: 'max_turns',
      turns: 2,
      message: 'stopped after 2 model requests (maxTurns)',
    })
    expect(model.requests).toHaveLength(2)
    assertValidHistory(result.messages)
  })

  it('stops before a request that would exceed the token budget', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([loopForever, loopForever, loopForever])
    const result = await collectAgent({ model, runtime, messages: task, tokenBudget: 250 })
    // Turn 1 used 120; turn 2 would resend at least 120 more (240 <= 250): it runs. Then 240 + 120 > 250.
    expect(result).toMatchObject({
      reason: 'token_budget',
      turns: 2,
      usage: { inputTokens: 200, outputTokens: 40 },
      message:
        'stopped before request 3: 240 tokens used, the next request resends at least 120 more, and the budget is 250',
    })
    expect(model.requests).toHaveLength(2)
  })

  it('hints an empty-arguments call at most maxEmptyArgRetries times; the next one gets the validator and stops the run', async () => {
    const { runtime } = testRuntime()
    const empty = { toolCalls: [{ name: 'echo', arguments: {} }] }
    const model = scriptedModel([
      empty,
      { toolCalls: [{ name: 'echo', arguments: '' }] },
      empty,
      { text: 'giving up' },
    ])
    const result = await collectAgent({ model, runtime, messages: task, maxEmptyArgRetries: 2 })
    const tools = result.appended.filter((m) => m.role === 'tool')
    const hint = emptyArgsHint('echo', ['text'])
    expect(hint).toBe(
      'Your echo call arrived with empty arguments, so it was not run. echo requires: text. Call echo again with every required argument written out.',
    )
    expect(tools.map((m) => m.role === 'tool' && m.content)).toEqual([
      [{ type: 'text', text: hint }],
      [{ type: 'text', text: hint }],
      (runtime.session.events().filter((e) => e.type === 'tool/result')[2] as unknown as { content: unknown })
        .content,
    ])
    expect(tools.every((m) => m.role === 'tool' && m.isError)).toBe(true)
    expect(
      runtime.session
        .events()
        .filter((e) => e.type === 'agent/empty-args-hint')
        .map((e) => e.attempt),
    ).toEqual([1, 2])
    // The calls went through the pipeline (logged, INVALID_ARGS) each time.
    const logged = runtime.session.events().filter((e) => e.type === 'tool/result')
    expect(logged.map((e) => (e.error as { code: string }).code)).toEqual([
      'INVALID_ARGS',
      'INVALID_ARGS',
      'INVALID_ARGS',
    ])
    // The third call still got its (validator's) result, and the run stopped with its own reason.
    expect(result.reason).toBe('empty_arguments')
    expect(result.message).toBe(
      'stopped: the model sent a call with empty arguments again after 2 hints (empty-arguments cap)',
    )
    expect(model.remaining).toBe(1)
    assertValidHistory(result.messages)
  })

  it('a tool without required fields called with {} is a normal call', async () => {
    const { runtime, log } = testRuntime()
    const { defineTool, textOutput } = await import('@toolgate/core')
    const { z } = await import('zod')
    runtime.register(
      defineTool({
        name: 'ping',
        description: 'ping',
        parameters: z.object({ n: z.number().optional() }),
        output: textOutput(),
        execute: () => {
          log.started.push('ping')
          return 'pong'
        },
      }),
    )
    const model = scriptedModel([{ toolCalls: [{ name: 'ping', arguments: {} }] }, { text: 'ok' }])
    const result = await collectAgent({ model, runtime, messages: task })
    expect(log.started).toEqual(['ping'])
    expect(result.appended[1]).toMatchObject({ content: [{ type: 'text', text: 'pong' }], isError: false })
  })
})

describe('runAgent: abort', () => {
  it('aborted while a batch runs: every call gets exactly one result and the history stays valid', async () => {
    const started = gate()
    const { runtime } = testRuntime({}, { onWaitStart: () => started.open() })
    const controller = new AbortController()
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'a' }, callId: 'a' },
          { name: 'wait', arguments: {}, callId: 'w' },
          { name: 'note', arguments: { text: 'never' }, callId: 'n' },
        ],
      },
      { text: 'unreachable' },
    ])
    const run = runAgent({ model, runtime, messages: task, signal: controller.signal })
    void started.promise.then(() => controller.abort(new Error('user pressed ESC')))
    const events = await drain(run)
    const result = await run.result
    expect(result.reason).toBe('aborted')
    const results = result.appended.filter((m) => m.role === 'tool')
    expect(results.map((m) => m.role === 'tool' && [m.callId, m.isError])).toEqual([
      ['a', false],
      ['w', true],
      ['n', true],
    ])
    const logged = runtime.session.events().filter((e) => e.type === 'tool/result')
    expect(logged.map((e) => [e.callId, (e.error as { kind?: string } | undefined)?.kind ?? 'ok'])).toEqual([
      ['a', 'ok'],
      ['w', 'aborted'],
      ['n', 'cancelled'],
    ])
    expect(events.filter((e) => e.type === 'tool-result')).toHaveLength(3)
    expect(model.requests).toHaveLength(1)
    assertValidHistory(result.messages)
  })

  it('aborted mid-stream: complete calls get cancelled results, the partial call is dropped', async () => {
    const { runtime, log } = testRuntime()
    const controller = new AbortController()
    const model = scriptedModel(
      [
        {
          text: 'Working.',
          toolCalls: [
            { name: 'echo', arguments: { text: 'first' }, callId: 'c1' },
            { name: 'echo', arguments: { text: 'second, a longer argument' }, callId: 'c2' },
          ],
        },
      ],
      { chunkSize: 4 },
    )
    const run = runAgent({ model, runtime, messages: task, signal: controller.signal })
    const events = []
    for await (const e of run) {
      events.push(e)
      if (e.type === 'tool-call' && e.callId === 'c1') controller.abort(new Error('stop'))
    }
    const result = await run.result
    expect(result.reason).toBe('aborted')
    expect(log.started).toEqual([])
    expect(result.appended).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Working.' },
          { type: 'tool-call', callId: 'c1', name: 'echo', arguments: '{"text":"first"}' },
        ],
      },
      {
        role: 'tool',
        callId: 'c1',
        name: 'echo',
        content: (
          runtime.session.events().find((e) => e.type === 'tool/result') as unknown as { content: never }
        ).content,
        isError: true,
      },
    ])
    expect(runtime.session.events().find((e) => e.type === 'tool/result')).toMatchObject({
      callId: 'c1',
      error: { kind: 'cancelled', code: 'CANCELLED_BEFORE_START' },
    })
    expect(events.at(-2)).toEqual({ type: 'turn-end', turn: 1, stopReason: 'aborted', rawStopReason: null })
    assertValidHistory(result.messages)
  })

  it('breaking out of the iteration aborts the run', async () => {
    const started = gate()
    const { runtime } = testRuntime({}, { onWaitStart: () => started.open() })
    const model = scriptedModel([{ toolCalls: [{ name: 'wait', arguments: {}, callId: 'w' }] }])
    const run = runAgent({ model, runtime, messages: task })
    for await (const e of run) if (e.type === 'tool-call') break
    const result = await run.result
    expect(result.reason).toBe('aborted')
    assertValidHistory(result.messages)
  })

  it('an already aborted signal makes no request', async () => {
    const { runtime } = testRuntime()
    const model = scriptedModel([{ text: 'x' }])
    const result = await collectAgent({ model, runtime, messages: task, signal: AbortSignal.abort() })
    expect(result).toMatchObject({ reason: 'aborted', turns: 0 })
    expect(model.requests).toHaveLength(0)
  })
})
