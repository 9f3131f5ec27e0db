import type { ModelStreamEvent } from '@toolgate/providers'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TurnAssembler } from '../src/loop/assemble.js'
import { createChannel } from '../src/loop/channel.js'

// The specification of readyCalls, written as a walk over the whole stream seen so far: in model
// order, the complete calls; while streaming, only up to the first incomplete call and never the
// last block. The assembler answers incrementally; it must answer exactly this after every event.
function reference(events: readonly ModelStreamEvent[], sealedOnly: boolean): string[] {
  type Block = { kind: 'call'; id: string; done: boolean } | { kind: 'other' }
  const blocks: Block[] = []
  const calls = new Map<string, Extract<Block, { kind: 'call' }>>()
  for (const e of events) {
    const last = blocks[blocks.length - 1]
    if (e.type === 'text-delta') {
      if (!(last && 'text' in last)) blocks.push(Object.assign({ kind: 'other' as const }, { text: true }))
    } else if (e.type === 'server-block') blocks.push({ kind: 'other' })
    else if (e.type === 'tool-call-start' || e.type === 'tool-call-complete') {
      let call = calls.get(e.callId)
      if (!call) {
        call = { kind: 'call', id: e.callId, done: false }
        calls.set(e.callId, call)
        blocks.push(call)
      }
      if (e.type === 'tool-call-complete') call.done = true
    }
  }
  const out: string[] = []
  for (const [i, b] of blocks.entries()) {
    if (b.kind !== 'call') continue
    if (!b.done || (sealedOnly && i === blocks.length - 1)) {
      if (sealedOnly) break
      continue
    }
    out.push(b.id)
  }
  return out
}

const ids = ['a', 'b', 'c', 'd', 'e']
const event: fc.Arbitrary<ModelStreamEvent> = fc.oneof(
  fc.constant<ModelStreamEvent>({ type: 'text-delta', text: 't' }),
  fc.constant<ModelStreamEvent>({ type: 'server-block', provider: 'anthropic', block: { type: 'x' } }),
  fc
    .constantFrom(...ids)
    .map((id): ModelStreamEvent => ({ type: 'tool-call-start', callId: id, name: 'echo' })),
  fc.constantFrom(...ids).map(
    (id): ModelStreamEvent => ({
      type: 'tool-call-complete',
      callId: id,
      name: 'echo',
      arguments: `{"id":"${id}"}`,
      strict: false,
    }),
  ),
)

describe('TurnAssembler.readyCalls', () => {
  it('answers after every event exactly what a walk over the whole stream answers, only ever growing', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const assembler = new TurnAssembler()
        const seen: ModelStreamEvent[] = []
        let previous: string[] = []
        for (const e of events) {
          assembler.push(e)
          seen.push(e)
          const now = assembler.readyCalls(true).map((r) => r.part.callId)
          expect(now).toEqual(reference(seen, true))
          expect(now.slice(0, previous.length)).toEqual(previous)
          previous = now
        }
        const all = assembler.readyCalls(false).map((r) => r.part.callId)
        expect(all).toEqual(reference(seen, false))
        expect(all).toEqual(assembler.orderedCalls().map((p) => p.callId))
      }),
    )
  })

  it('hands each call over with its own arguments and strictness', () => {
    const assembler = new TurnAssembler()
    assembler.push({
      type: 'tool-call-complete',
      callId: 'a',
      name: 'echo',
      arguments: '{"x":1}',
      strict: true,
    })
    assembler.push({ type: 'tool-call-complete', callId: 'b', name: 'note', arguments: '{}', strict: false })
    expect(assembler.readyCalls(true)).toEqual([
      { part: { type: 'tool-call', callId: 'a', name: 'echo', arguments: '{"x":1}' }, strict: true },
    ])
    expect(assembler.readyCalls(false)).toEqual([
      { part: { type: 'tool-call', callId: 'a', name: 'echo', arguments: '{"x":1}' }, strict: true },
      { part: { type: 'tool-call', callId: 'b', name: 'note', arguments: '{}' }, strict: false },
    ])
  })
})

describe('the event channel', () => {
  it('delivers every event once, in order, however many wait unread', async () => {
    const channel = createChannel<number>()
    const iterator = channel[Symbol.asyncIterator]()
    const got: number[] = []
    let next = 0
    // Bursts larger than the compaction threshold, read in part between bursts.
    for (const burst of [3000, 10, 2500]) {
      for (let i = 0; i < burst; i++) channel.push(next++)
      for (let i = 0; i < burst - 7; i++) got.push((await iterator.next()).value as number)
    }
    channel.close()
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) got.push(r.value)
    expect(got).toEqual(Array.from({ length: next }, (_, i) => i))
  })

  it('a waiting reader gets the next push; after close it is done', async () => {
    const channel = createChannel<string>()
    const iterator = channel[Symbol.asyncIterator]()
    const pending = iterator.next()
    channel.push('x')
    expect(await pending).toEqual({ value: 'x', done: false })
    const last = iterator.next()
    channel.close()
    expect(await last).toEqual({ value: undefined, done: true })
  })
})
