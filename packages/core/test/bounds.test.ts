import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createJobsService,
  createRuntime,
  defineTool,
  discardSink,
  textOutput,
  UNKNOWN_TOOLS,
} from '../src/index.js'
import { Registry } from '../src/registry/registry.js'
import { Deadlines } from '../src/signal/deadlines.js'
import { echoTool } from './helpers.js'

// Issue 13 §2: names a model invents cannot grow memory forever. Every table keyed by something a
// call carries is bounded; each test feeds it 100,000 distinct values and checks the bound.

const N = 100_000

describe('tables keyed by call input are bounded', () => {
  it('metrics: 100,000 invented tool names make one shared entry, next to the registered tools', async () => {
    const runtime = createRuntime({ session: discardSink() })
    runtime.register(echoTool)
    for (let i = 0; i < N; i++)
      await runtime.execute({ callId: `c${i}`, name: `made_up_${i}`, arguments: {} })
    await runtime.execute({ callId: 'e', name: 'echo', arguments: { text: 'a' } })
    const metrics = runtime.metrics()
    expect(Object.keys(metrics)).toEqual([UNKNOWN_TOOLS, 'echo'])
    expect(metrics[UNKNOWN_TOOLS]).toMatchObject({
      calls: N,
      successes: 0,
      failures: N,
      failuresByKind: { unknown_tool: N },
    })
    expect(metrics.echo).toMatchObject({ calls: 1, successes: 1 })
  }, 120_000)

  it('registry: views for 100,000 agent ids stay at most 256 cached', () => {
    const registry = new Registry()
    for (let i = 0; i < N; i++) registry.view(`agent-${i}`)
    expect(registry.cachedViews).toBeLessThanOrEqual(256)
    // A view dropped from the cache is rebuilt on demand, equal to what it was.
    expect(registry.view('agent-0').tools.size).toBe(0)
  })

  it('deadlines: 100,000 distinct lengths (say, a model’s timeout_ms) keep at most 32 idle lists', () => {
    const deadlines = new Deadlines()
    for (let i = 0; i < N; i++) deadlines.add(1000 + i, () => {}).cancel()
    expect(deadlines.size).toBeLessThanOrEqual(32)
    // Lists with a live deadline are never dropped.
    const live = Array.from({ length: 40 }, (_, i) => deadlines.add(5_000_000 + i, () => {}))
    for (let i = 0; i < 1000; i++) deadlines.add(9_000_000 + i, () => {}).cancel()
    expect(deadlines.size).toBeGreaterThanOrEqual(40)
    expect(deadlines.size).toBeLessThanOrEqual(40 + 32)
    for (const d of live) d.cancel()
  })

  it('orphans: past 1,024 they are counted, not kept (their late outcome is still logged)', async () => {
    const runtime = createRuntime({ abortGraceMs: 0, session: discardSink() })
    runtime.register(
      defineTool({
        name: 'stuck',
        description: 'Never ends.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => new Promise<string>(() => {}),
      }),
    )
    for (let i = 0; i < 2000; i++) {
      const controller = new AbortController()
      const pending = runtime.execute({
        callId: `s${i}`,
        name: 'stuck',
        arguments: {},
        signal: controller.signal,
      })
      controller.abort() // the body already started: it ignores the abort and is orphaned at once
      expect((await pending).error?.code).toBe('ABORTED')
    }
    const report = await runtime.dispose()
    expect(report.pendingOrphans).toHaveLength(1024)
    expect(report.untrackedOrphans).toBe(2000 - 1024)
  })

  it('jobs: ended jobs are kept up to maxEndedJobs (64 by default), oldest forgotten with its notice', async () => {
    const jobs = createJobsService()
    for (let i = 0; i < 1000; i++) {
      const { jobId } = jobs.start({ kind: 'bash', label: `job ${i}`, owner: 'a', run: async () => ({ i }) })
      expect(jobId).toBe(`bash-${i + 1}`)
      await Promise.resolve()
      await Promise.resolve()
    }
    const kept = jobs.list()
    expect(kept).toHaveLength(64)
    expect(kept[0]?.jobId).toBe('bash-937')
    expect(jobs.get('bash-1')).toBe(undefined)
    const notices = jobs.takeNotices('a')
    expect(notices.map((n) => n.jobId)).toEqual(kept.map((j) => j.jobId))
    expect(() => createJobsService({ maxEndedJobs: -1 })).toThrow(
      new RangeError('maxEndedJobs must be a non-negative integer, got -1'),
    )
  })

  it('an invented name of 100,000 characters is quoted in 64 characters, escaped', async () => {
    const runtime = createRuntime()
    const name = `${'x'.repeat(60)}\u001b[2J${'y'.repeat(N)}`
    const result = await runtime.execute({ callId: 'c', name, arguments: {} })
    expect(result.error?.message).toBe(
      `No tool named "${'x'.repeat(60)}\\u001b[2J…" is available. Call one of the tools listed in your tool definitions.`,
    )
  })
})
