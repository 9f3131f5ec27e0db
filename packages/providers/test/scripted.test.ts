import { collectTurn, ProviderAbortedError, scriptedModel, stopDecision } from '@toolgate/providers'
import { describe, expect, test } from 'vitest'

const request = { messages: [] }

describe('scriptedModel', () => {
  test('replays turns as deltas, deterministic call ids, then runs out loudly', async () => {
    const model = scriptedModel(
      [
        { text: 'Reading package.json', toolCalls: [{ name: 'read', arguments: { path: 'package.json' } }] },
        (req) => ({ text: `saw ${req.messages.length} messages` }),
      ],
      { chunkSize: 8 },
    )
    const events: string[] = []
    const first = await collectTurn(model.stream(request), (e) => events.push(e.type))
    expect(first.message).toEqual({
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Reading package.json' },
        { type: 'tool-call', callId: 'call_0_0', name: 'read', arguments: '{"path":"package.json"}' },
      ],
    })
    expect(first.decision).toEqual({ kind: 'run-tools' })
    expect(events).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-complete',
      'finish',
    ])
    const second = await collectTurn(model.stream({ messages: [{ role: 'system', content: 'x' }] }))
    expect(second.message.parts).toEqual([{ type: 'text', text: 'saw 1 messages' }])
    expect(second.decision).toEqual({ kind: 'done' })
    expect(model.requests).toHaveLength(2)
    await expect(collectTurn(model.stream(request))).rejects.toThrow(
      'scripted model: no turn left (2 played); the script expected the agent to stop',
    )
  })

  test('abort mid-stream', async () => {
    const model = scriptedModel([{ text: 'x'.repeat(100) }], { chunkSize: 10 })
    const controller = new AbortController()
    const seen: string[] = []
    await expect(
      (async () => {
        for await (const e of model.stream(request, controller.signal)) {
          seen.push(e.type)
          controller.abort()
        }
      })(),
    ).rejects.toBeInstanceOf(ProviderAbortedError)
    expect(seen).toEqual(['text-delta'])
  })
})

describe('stopDecision', () => {
  test('done with calls still runs them; tool_use without calls is an error', () => {
    expect(stopDecision('done', 1)).toEqual({ kind: 'run-tools' })
    expect(stopDecision('done', 0)).toEqual({ kind: 'done' })
    expect(stopDecision('tool_use', 0)).toEqual({
      kind: 'error',
      message: 'the model stopped for tool use but sent no complete tool call',
    })
    expect(stopDecision('max_tokens', 0)).toEqual({ kind: 'truncated', hasCalls: false })
    expect(stopDecision('pause', 0)).toEqual({ kind: 'continue' })
    expect(stopDecision('refusal', 0)).toEqual({ kind: 'refusal' })
  })
})
