import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createRuntime, defineTool, textOutput } from '../src/index.js'
import { Deadlines } from '../src/signal/deadlines.js'
import { gate } from './helpers.js'

// Call deadlines share one timer per deadline length (signal/deadlines.ts).

describe('Deadlines: shared lists, no timer per call', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('deadlines of one length share one timer and expire in the order they were added', async () => {
    vi.useFakeTimers()
    const deadlines = new Deadlines()
    const expired: string[] = []
    deadlines.add(100, () => expired.push(`a@${Date.now() - start}`))
    const start = Date.now()
    await vi.advanceTimersByTimeAsync(10)
    deadlines.add(100, () => expired.push(`b@${Date.now() - start}`))
    await vi.advanceTimersByTimeAsync(10)
    deadlines.add(100, () => expired.push(`c@${Date.now() - start}`))
    expect(vi.getTimerCount()).toBe(1)
    await vi.advanceTimersByTimeAsync(80)
    expect(expired).toEqual(['a@100'])
    await vi.advanceTimersByTimeAsync(20)
    expect(expired).toEqual(['a@100', 'b@110', 'c@120'])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a cancelled deadline never fires; the next live one still does, on time', async () => {
    vi.useFakeTimers()
    const deadlines = new Deadlines()
    const start = Date.now()
    const expired: string[] = []
    const a = deadlines.add(100, () => expired.push('a'))
    await vi.advanceTimersByTimeAsync(30)
    deadlines.add(100, () => expired.push(`b@${Date.now() - start}`))
    a.cancel()
    a.cancel() // idempotent
    await vi.advanceTimersByTimeAsync(100)
    expect(expired).toEqual(['b@130'])
  })

  it('lengths are kept apart: a short deadline is not held up behind a long one', async () => {
    vi.useFakeTimers()
    const deadlines = new Deadlines()
    const expired: string[] = []
    deadlines.add(1000, () => expired.push('long'))
    deadlines.add(50, () => expired.push('short'))
    expect(vi.getTimerCount()).toBe(2)
    await vi.advanceTimersByTimeAsync(50)
    expect(expired).toEqual(['short'])
    await vi.advanceTimersByTimeAsync(950)
    expect(expired).toEqual(['short', 'long'])
  })

  it('an expiry callback may cancel and add deadlines of the same length', async () => {
    vi.useFakeTimers()
    const deadlines = new Deadlines()
    const start = Date.now()
    const expired: string[] = []
    let b: ReturnType<Deadlines['add']> | undefined
    deadlines.add(100, () => {
      expired.push(`a@${Date.now() - start}`)
      b?.cancel()
      deadlines.add(100, () => expired.push(`c@${Date.now() - start}`))
    })
    await vi.advanceTimersByTimeAsync(10)
    b = deadlines.add(100, () => expired.push('b'))
    await vi.advanceTimersByTimeAsync(100)
    expect(expired).toEqual(['a@100'])
    await vi.advanceTimersByTimeAsync(100)
    expect(expired).toEqual(['a@100', 'c@200'])
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('timeouts in the runtime hold the process only while a call runs', () => {
  const referencedTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

  it('a call with a 60 s timeout leaves no referenced timer once it settles', async () => {
    const runtime = createRuntime()
    const release = gate<string>()
    runtime.register(
      defineTool({
        name: 'wait',
        description: 'Waits.',
        parameters: z.object({}),
        output: textOutput(),
        timeoutMs: 60_000,
        execute: () => release.promise,
      }),
    )
    const before = referencedTimers()
    const pending = runtime.execute({ callId: 'w1', name: 'wait', arguments: {} })
    expect(referencedTimers()).toBe(before + 1)
    release.resolve('done')
    const result = await pending
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    // The list keeps its timer for the next call, but no longer keeps the process alive.
    expect(referencedTimers()).toBe(before)
    // A second call re-references the same timer instead of creating another.
    const again = gate<string>()
    runtime.register(
      defineTool({
        name: 'wait2',
        description: 'Waits.',
        parameters: z.object({}),
        output: textOutput(),
        timeoutMs: 60_000,
        execute: () => again.promise,
      }),
    )
    const second = runtime.execute({ callId: 'w2', name: 'wait2', arguments: {} })
    expect(referencedTimers()).toBe(before + 1)
    again.resolve('ok')
    await second
    expect(referencedTimers()).toBe(before)
  })
})
