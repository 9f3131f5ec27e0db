// overlapProbe measures real concurrency: gated bodies make the overlap deterministic.
import { createRuntime, defineTool, textOutput } from '@toolgate/core'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { overlapProbe } from '../src/session/overlap.js'

test('calls whose bodies ran at the same time are marked; a call that ran alone is not', async () => {
  const runtime = createRuntime()
  const probe = overlapProbe()
  runtime.use(probe.plugin)
  let release!: () => void
  const gate = new Promise<void>((r) => {
    release = r
  })
  let started = 0
  let bothStarted!: () => void
  const both = new Promise<void>((r) => {
    bothStarted = r
  })
  runtime.register(
    defineTool({
      name: 'wait',
      description: 'Wait for the gate.',
      parameters: z.object({}),
      output: textOutput(),
      isConcurrencySafe: () => true,
      execute: async () => {
        if (++started === 2) bothStarted()
        await gate
        return 'ok'
      },
    }),
  )
  const batch = runtime.executeBatch([
    { callId: 'a', name: 'wait', arguments: {} },
    { callId: 'b', name: 'wait', arguments: {} },
  ])
  await both // both bodies are running now
  release()
  await batch
  await runtime.execute({ callId: 'c', name: 'wait', arguments: {} })
  expect(['a', 'b', 'c'].map((id) => probe.overlapped(id))).toEqual([true, true, false])
  expect(probe.peak()).toBe(2)
})
