import { createApprovalService, defineTool, type SessionEvent, ToolError, textOutput } from '@toolgate/core'
import {
  type Message,
  type ModelClient,
  type ScriptedTurn,
  scriptedModel,
  truncatedCallText,
} from '@toolgate/providers'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../src/index.js'
import { assertValidHistory, drain, testRuntime } from './helpers.js'

const task: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'do it' }] }]

const transcript: ScriptedTurn[] = [
  {
    text: 'Several things at once.',
    toolCalls: [
      { name: 'echo', arguments: { text: 'a' }, callId: 'a' },
      { name: 'echo', arguments: { text: 'b' }, callId: 'b' },
      { name: 'note', arguments: { text: 'needs approval' }, callId: 'n' },
      { name: 'echo', arguments: { text: 'c' }, callId: 'c' },
      { name: 'flaky', arguments: { n: 1 }, callId: 'f1' },
      { name: 'echo', arguments: { text: 'd' }, callId: 'd' },
      { name: 'flaky', arguments: { n: 2 }, callId: 'f2' },
      { name: 'echo', arguments: {}, callId: 'e' },
    ],
  },
  { toolCalls: [{ name: 'note', arguments: { text: 'second turn' }, callId: 'n2' }] },
  { text: 'Done.' },
]

/** Records whether the model's reply had finished when each tool body started. */
function instrumented(model: ModelClient, marks: { finished: boolean }): ModelClient {
  return {
    provider: model.provider,
    model: model.model,
    async *stream(request, signal) {
      marks.finished = false
      for await (const event of model.stream(request, signal)) {
        if (event.type === 'finish') marks.finished = true
        yield event
      }
    },
  }
}

async function play(streamingExecution: boolean) {
  const approval = createApprovalService()
  let asked = 0
  approval.answer(() => {
    asked++
    return 'allowed-once'
  })
  const { runtime } = testRuntime({ approval })
  const marks = { finished: false }
  const startedBeforeFinish: string[] = []
  let preExecuteCalls = 0
  runtime.on('tools/pre-execute', (exec, next) => {
    preExecuteCalls++
    if (!marks.finished) startedBeforeFinish.push(exec.callId)
    return exec.name === 'note' ? { kind: 'ask', reason: 'writes' } : next()
  })
  runtime.register(
    defineTool({
      name: 'flaky',
      description: 'Fails; later same-tool siblings are skipped.',
      parameters: z.object({ n: z.number() }),
      output: textOutput(),
      cascadeOnFailure: true,
      execute(args) {
        throw new ToolError(`flaky ${args.n} failed`)
      },
    }),
  )
  const model = instrumented(scriptedModel(transcript, { chunkSize: 3 }), marks)
  const run = runAgent({ model, runtime, messages: task, streamingExecution })
  const events = await drain(run)
  const result = await run.result
  const toolEvents = runtime.session
    .events()
    .map((e: SessionEvent) => `${e.type}:${typeof e.callId === 'string' ? e.callId : ''}`)
  return { result, events, toolEvents, asked, preExecuteCalls, startedBeforeFinish }
}

describe('streaming execution (seed 003 §7)', () => {
  it('gives the same results, history, agent events and session events as batch mode', async () => {
    const batch = await play(false)
    const streaming = await play(true)

    expect(streaming.result.reason).toBe('completed')
    expect(streaming.result.appended).toEqual(batch.result.appended)
    expect(streaming.toolEvents).toEqual(batch.toolEvents)
    const shape = (events: typeof batch.events) =>
      events.map((e) =>
        e.type === 'tool-result'
          ? `result:${e.callId}:${e.result.error?.code ?? 'ok'}`
          : e.type === 'tool-call'
            ? `call:${e.callId}`
            : e.type,
      )
    // The same events; results and approvals interleave with the stream at other moments (that is
    // the point), so they are compared as a multiset, everything else in order.
    const sorted = (events: typeof batch.events) => [...shape(events)].sort()
    expect(sorted(streaming.events)).toEqual(sorted(batch.events))
    const timeless = (events: typeof batch.events) =>
      shape(events).filter((s) => !s.startsWith('result:') && s !== 'approval')
    expect(timeless(streaming.events)).toEqual(timeless(batch.events))
    const approvals = (events: typeof batch.events) =>
      events.flatMap((e) => (e.type === 'approval' ? [`${e.phase}:${e.callId}`] : []))
    expect(approvals(streaming.events)).toEqual(approvals(batch.events))
    // Hooks and approvals fire exactly once per call in both modes.
    expect(batch.preExecuteCalls).toBe(streaming.preExecuteCalls)
    expect(batch.asked).toBe(2)
    expect(streaming.asked).toBe(2)
    // The cascade behaves as in one batch: f2 is skipped after f1 failed.
    const codes = streaming.result.appended.flatMap((m) => (m.role === 'tool' ? [[m.callId, m.isError]] : []))
    expect(codes).toEqual([
      ['a', false],
      ['b', false],
      ['n', false],
      ['c', false],
      ['f1', true],
      ['d', false],
      ['f2', true],
      ['e', true],
      ['n2', false],
    ])
    expect(streaming.toolEvents).toContain('tool/result:f2')
    expect(batch.result.appended.find((m) => m.role === 'tool' && m.callId === 'f2')).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('f1') }],
    })
    // Streaming really started work while the reply was still streaming; batch mode never does.
    expect(batch.startedBeforeFinish).toEqual([])
    expect(streaming.startedBeforeFinish).toEqual(['a', 'b', 'n'])
    assertValidHistory(streaming.result.messages)
  })

  it('a reply cut by max_tokens: calls already started keep their real result, the rest are not run', async () => {
    const { runtime, log } = testRuntime()
    const model = scriptedModel(
      [
        {
          toolCalls: [
            { name: 'note', arguments: { text: 'early' }, callId: 'n1' },
            { name: 'note', arguments: '{"text":"cu', callId: 'n2' },
          ],
          stopReason: 'max_tokens',
          rawStopReason: 'length',
        },
        { text: 'ok' },
      ],
      { chunkSize: 2 },
    )
    const result = await (await runAgent({ model, runtime, messages: task, streamingExecution: true })).result
    expect(log.started).toEqual(['note:early'])
    expect(result.appended.slice(1, 3)).toEqual([
      {
        role: 'tool',
        callId: 'n1',
        name: 'note',
        content: [{ type: 'text', text: 'noted early' }],
        isError: false,
      },
      {
        role: 'tool',
        callId: 'n2',
        name: 'note',
        content: [{ type: 'text', text: truncatedCallText('note') }],
        isError: true,
      },
    ])
    assertValidHistory(result.messages)
  })
})
