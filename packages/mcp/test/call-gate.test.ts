// The gate `toolgate mcp serve` puts between concurrent client requests: parallel-safe calls
// overlap, an exclusive call runs alone, admission is FIFO, an aborted waiter leaves the queue.
// Every interleaving is driven by promise gates (no timers).
import { describe, expect, test } from 'vitest'
import { CallGate, type GateKind } from '../src/server/call-gate.js'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** Start a call that records when it runs and finishes when its gate is opened. */
function start(
  gate: CallGate,
  trace: string[],
  name: string,
  kind: GateKind,
  signal = new AbortController().signal,
) {
  const release = deferred()
  const done = gate.run(kind, signal, async () => {
    trace.push(`start ${name}`)
    await release.promise
    trace.push(`end ${name}`)
    return name
  })
  return { release: release.resolve, done }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('CallGate', () => {
  test('parallel calls overlap; an exclusive call waits for them and runs alone', async () => {
    const gate = new CallGate()
    const trace: string[] = []
    const a = start(gate, trace, 'a', 'parallel')
    const b = start(gate, trace, 'b', 'parallel')
    const x = start(gate, trace, 'x', 'exclusive')
    const c = start(gate, trace, 'c', 'parallel')
    await tick()
    expect(trace).toEqual(['start a', 'start b'])
    a.release()
    await tick()
    expect(trace).toEqual(['start a', 'start b', 'end a'])
    b.release()
    await tick()
    // c came after x: FIFO, so it waits for x even though it is parallel-safe.
    expect(trace).toEqual(['start a', 'start b', 'end a', 'end b', 'start x'])
    x.release()
    await tick()
    c.release()
    expect(await Promise.all([a.done, b.done, x.done, c.done])).toEqual(['a', 'b', 'x', 'c'])
    expect(trace).toEqual(['start a', 'start b', 'end a', 'end b', 'start x', 'end x', 'start c', 'end c'])
  })

  test('two exclusive calls never overlap', async () => {
    const gate = new CallGate()
    const trace: string[] = []
    const x = start(gate, trace, 'x', 'exclusive')
    const y = start(gate, trace, 'y', 'exclusive')
    await tick()
    expect(trace).toEqual(['start x'])
    x.release()
    await tick()
    y.release()
    await Promise.all([x.done, y.done])
    expect(trace).toEqual(['start x', 'end x', 'start y', 'end y'])
  })

  test('a waiter whose signal aborts leaves the queue at once and runs unadmitted', async () => {
    const gate = new CallGate()
    const trace: string[] = []
    const x = start(gate, trace, 'x', 'exclusive')
    const controller = new AbortController()
    const y = start(gate, trace, 'y', 'exclusive', controller.signal)
    const z = start(gate, trace, 'z', 'exclusive')
    await tick()
    controller.abort()
    await tick()
    // y runs at once (the runtime answers an aborted call without running its body).
    expect(trace).toEqual(['start x', 'start y'])
    y.release()
    await y.done
    x.release()
    await x.done
    await tick()
    z.release()
    await z.done
    expect(trace).toEqual(['start x', 'start y', 'end y', 'end x', 'start z', 'end z'])
  })

  test('a call that throws releases the gate', async () => {
    const gate = new CallGate()
    const signal = new AbortController().signal
    await expect(gate.run('exclusive', signal, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    )
    expect(await gate.run('exclusive', signal, async () => 'next')).toBe('next')
  })
})
