import {
  createJobsService,
  createRuntime,
  type InProcessJobsService,
  type JobContext,
  type ToolRunContext,
} from '@toolgate/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { jobKillTool, jobListTool, jobOutputTool, jobTools } from '../src/jobs/index.js'

function gate<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** A job run the test settles by hand. */
function controlled() {
  const g = gate<{ exitCode: number } | undefined>()
  let ctx: JobContext | undefined
  return {
    gate: g,
    get ctx(): JobContext {
      if (ctx === undefined) throw new Error('run not called')
      return ctx
    },
    run: (c: JobContext) => {
      ctx = c
      return g.promise
    },
  }
}

/** Resolves when every listed job has ended (observed through onEnded, which marks nothing as seen). */
function ended(jobs: InProcessJobsService, ...jobIds: string[]): Promise<void> {
  const left = new Set(jobIds)
  return new Promise((resolve) => {
    const off = jobs.onEnded((s) => {
      left.delete(s.jobId)
      if (left.size === 0) {
        off()
        resolve()
      }
    })
  })
}

function execFor(
  jobs: InProcessJobsService,
  options: { agent?: string; signal?: AbortSignal } = {},
): ToolRunContext {
  return {
    callId: 'call-1',
    name: 'job_tool',
    arguments: {},
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    signal: options.signal ?? new AbortController().signal,
    token: Symbol('call-1'),
    deferContext() {},
    concludeTurn() {},
    parentToken() {
      throw new Error('job tools dispatch no sub-calls')
    },
    jobs,
    emit() {},
  }
}

type AnyTool = typeof jobOutputTool | typeof jobListTool | typeof jobKillTool

/**
 * Runs a tool the way the pipeline does: parameters validated, body run, value checked against the
 * output schema, then rendered. Returns the value and the model-visible text.
 */
async function call<T extends AnyTool>(tool: T, rawArgs: unknown, exec: ToolRunContext) {
  const parameters = tool.parameters as { parse(v: unknown): Parameters<T['execute']>[0] }
  const args = parameters.parse(rawArgs)
  const value = await (tool.execute as (a: unknown, e: ToolRunContext) => unknown)(args, exec)
  const schema = tool.output.schema as { parse(v: unknown): unknown }
  expect(schema.parse(value)).toStrictEqual(value)
  const render = tool.output.render as (a: unknown, v: unknown) => readonly { type: string; text?: string }[]
  const blocks = render(args, value)
  expect(blocks).toHaveLength(1)
  return { value, text: blocks[0]!.text }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('job_output', () => {
  it('a running job without output', async () => {
    const jobs = createJobsService()
    const job = controlled()
    jobs.start({ kind: 'bash', label: 'npm test', run: job.run })
    const r = await call(jobOutputTool, { job_id: 'bash-1' }, execFor(jobs))
    expect(r.value).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'npm test',
      status: 'running',
      output: '',
      droppedBytes: 0,
      waited: 'no-wait',
    })
    expect(r.text).toBe('Job bash-1 (npm test) is running.\nOutput:\n(no output yet)')
  })

  it('a completed job with output and the dropped bytes said', async () => {
    const jobs = createJobsService({ maxOutputBytes: 12 })
    const job = controlled()
    jobs.start({ kind: 'bash', label: 'npm test', run: job.run })
    job.ctx.write('compiling\n')
    job.ctx.write('ok 1\nok 2\n')
    job.gate.resolve({ exitCode: 0 })
    const r = await call(jobOutputTool, { job_id: 'bash-1', wait: true }, execFor(jobs))
    expect(r.value).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'npm test',
      status: 'completed',
      exit: { exitCode: 0 },
      output: 'g\nok 1\nok 2\n',
      droppedBytes: 8,
      waited: 'ended',
    })
    expect(r.text).toBe(
      'Job bash-1 (npm test) completed with exit {"exitCode":0}.\nOutput:\n[8 earlier bytes dropped]\ng\nok 1\nok 2',
    )
    // The model saw the end: no completion notice repeats it.
    expect(jobs.takeNotices(undefined)).toEqual([])
  })

  it('failed and killed jobs; an ended job without output says so', async () => {
    const jobs = createJobsService()
    const a = controlled()
    const b = controlled()
    jobs.start({ kind: 'bash', label: 'build', run: a.run })
    jobs.start({ kind: 'bash', label: 'serve', run: b.run })
    a.gate.reject(new Error('spawn sh ENOENT'))
    const killing = jobs.kill('bash-2', 'port clash')
    b.gate.resolve(undefined)
    await killing
    const exec = execFor(jobs)
    expect((await call(jobOutputTool, { job_id: 'bash-1', wait: true }, exec)).text).toBe(
      'Job bash-1 (build) failed: spawn sh ENOENT\nOutput:\n(no output)',
    )
    expect((await call(jobOutputTool, { job_id: 'bash-2' }, exec)).text).toBe(
      'Job bash-2 (serve) was killed: port clash\nOutput:\n(no output)',
    )
  })

  it('reading an ended job without waiting also withdraws its completion notice', async () => {
    const jobs = createJobsService()
    const bothEnded = ended(jobs, 'bash-1', 'bash-2')
    jobs.start({ kind: 'bash', label: 'a', owner: 'main', run: async () => ({ exitCode: 1 }) })
    jobs.start({ kind: 'bash', label: 'b', owner: 'main', run: async () => ({ exitCode: 0 }) })
    const exec = execFor(jobs, { agent: 'main' })
    await bothEnded
    expect(jobs.get('bash-1')?.status).toBe('completed')
    await call(jobOutputTool, { job_id: 'bash-1' }, exec)
    expect(jobs.takeNotices('main').map((n) => n.jobId)).toEqual(['bash-2'])
  })

  it('a wait that times out says the job is still running and never stops it', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService()
    const job = controlled()
    jobs.start({ kind: 'bash', label: 'npm run dev', run: job.run })
    job.ctx.write('listening on :3000\n')
    const pending = call(jobOutputTool, { job_id: 'bash-1', wait: true, timeout_ms: 5000 }, execFor(jobs))
    await vi.advanceTimersByTimeAsync(5000)
    const r = await pending
    expect(r.value).toMatchObject({ status: 'running', waited: 'timeout' })
    expect(r.text).toBe(
      'Job bash-1 (npm run dev) is still running after waiting 5000 ms. Call job_output again to keep waiting, or job_kill to stop it.\nOutput:\nlistening on :3000',
    )
    expect(job.ctx.signal.aborted).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('the default wait is 30000 ms', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService()
    jobs.start({ kind: 'bash', label: 'x', run: controlled().run })
    let done = false
    const pending = call(jobOutputTool, { job_id: 'bash-1', wait: true }, execFor(jobs)).then((r) => {
      done = true
      return r
    })
    await vi.advanceTimersByTimeAsync(29_999)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect((await pending).text).toMatch(/^Job bash-1 \(x\) is still running after waiting 30000 ms\./)
  })

  it('cancelling the call stops the waiting, not the job', async () => {
    const jobs = createJobsService()
    const job = controlled()
    jobs.start({ kind: 'bash', label: 'x', run: job.run })
    const callSignal = new AbortController()
    const pending = call(
      jobOutputTool,
      { job_id: 'bash-1', wait: true },
      execFor(jobs, { signal: callSignal.signal }),
    )
    callSignal.abort()
    const r = await pending
    expect(r.value).toMatchObject({ status: 'running', waited: 'cancelled' })
    expect(r.text).toBe(
      'Job bash-1 (x) is still running (the wait was cancelled; the job keeps running).\nOutput:\n(no output yet)',
    )
    expect(job.ctx.signal.aborted).toBe(false)
  })

  it('rejects a timeout above the maximum', () => {
    const parameters = jobOutputTool.parameters as { safeParse(v: unknown): { success: boolean } }
    expect(parameters.safeParse({ job_id: 'bash-1', wait: true, timeout_ms: 600_001 }).success).toBe(false)
    expect(parameters.safeParse({ job_id: 'bash-1', wait: true, timeout_ms: 600_000 }).success).toBe(true)
  })
})

describe('unknown job ids', () => {
  it('name the known jobs and point at job_list, for every job tool', async () => {
    const jobs = createJobsService()
    jobs.start({ kind: 'bash', label: 'a', run: controlled().run })
    jobs.start({ kind: 'bash', label: 'b', run: controlled().run })
    const exec = execFor(jobs)
    for (const tool of [jobOutputTool, jobKillTool]) {
      await expect(call(tool, { job_id: 'bash-9' }, exec)).rejects.toMatchObject({
        name: 'ToolError',
        message: 'No background job "bash-9". Known jobs: bash-1, bash-2. Call job_list to see them.',
        info: { jobId: 'bash-9', knownJobIds: ['bash-1', 'bash-2'] },
      })
    }
  })

  it('with no jobs at all', async () => {
    const jobs = createJobsService()
    await expect(call(jobOutputTool, { job_id: 'bash-1' }, execFor(jobs))).rejects.toThrow(
      'No background job "bash-1": there are no background jobs. Call job_list to check.',
    )
  })

  it("another agent's jobs are not visible: not listed, not readable, not killable", async () => {
    const jobs = createJobsService()
    const theirs = controlled()
    jobs.start({ kind: 'bash', label: 'main job', run: theirs.run })
    jobs.start({ kind: 'bash', label: 'sub job', owner: 'sub', run: controlled().run })
    const sub = execFor(jobs, { agent: 'sub' })
    expect((await call(jobListTool, {}, sub)).text).toBe('bash-2 running sub job')
    await expect(call(jobKillTool, { job_id: 'bash-1' }, sub)).rejects.toThrow(
      'No background job "bash-1". Known jobs: bash-2. Call job_list to see them.',
    )
    expect(theirs.ctx.signal.aborted).toBe(false)
  })
})

describe('job_list', () => {
  it('says when there are none', async () => {
    const r = await call(jobListTool, {}, execFor(createJobsService()))
    expect(r.value).toStrictEqual({ jobs: [] })
    expect(r.text).toBe('(no background jobs)')
  })

  it('one line per job: id, status, label on one line', async () => {
    const jobs = createJobsService()
    const a = controlled()
    jobs.start({ kind: 'bash', label: 'npm test', run: a.run })
    jobs.start({ kind: 'bash', label: 'for f in *; do\n  echo $f\ndone', run: controlled().run })
    a.gate.resolve({ exitCode: 2 })
    await jobs.wait('bash-1')
    const r = await call(jobListTool, {}, execFor(jobs))
    expect(r.value).toStrictEqual({
      jobs: [
        { jobId: 'bash-1', kind: 'bash', label: 'npm test', status: 'completed', exit: { exitCode: 2 } },
        { jobId: 'bash-2', kind: 'bash', label: 'for f in *; do\n  echo $f\ndone', status: 'running' },
      ],
    })
    expect(r.text).toBe('bash-1 completed npm test\nbash-2 running for f in *; do echo $f done')
  })

  it('cuts long labels to 80 characters', async () => {
    const jobs = createJobsService()
    jobs.start({ kind: 'bash', label: 'x'.repeat(200), run: controlled().run })
    expect((await call(jobListTool, {}, execFor(jobs))).text).toBe(`bash-1 running ${'x'.repeat(79)}…`)
  })
})

describe('job_kill', () => {
  it('kills a running job, keeps the reason, and leaves no completion notice', async () => {
    const jobs = createJobsService()
    const job = controlled()
    jobs.start({ kind: 'bash', label: 'npm run dev', owner: 'main', run: job.run })
    job.ctx.signal.addEventListener('abort', () => job.gate.resolve({ exitCode: 143 }))
    const r = await call(
      jobKillTool,
      { job_id: 'bash-1', reason: 'done testing' },
      execFor(jobs, { agent: 'main' }),
    )
    expect(r.value).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'npm run dev',
      status: 'killed',
      killReason: 'done testing',
      outcome: 'killed',
    })
    expect(r.text).toBe('Killed job bash-1 (npm run dev).')
    expect(jobs.takeNotices('main')).toEqual([])
  })

  it('without a reason records that job_kill stopped it', async () => {
    const jobs = createJobsService()
    const job = controlled()
    jobs.start({ kind: 'bash', label: 'x', run: job.run })
    job.ctx.signal.addEventListener('abort', () => job.gate.resolve(undefined))
    const r = await call(jobKillTool, { job_id: 'bash-1' }, execFor(jobs))
    expect(r.value).toMatchObject({ status: 'killed', killReason: 'killed with job_kill', outcome: 'killed' })
  })

  it('an ended job: nothing to kill, said plainly, notice withdrawn', async () => {
    const jobs = createJobsService()
    const done = ended(jobs, 'bash-1')
    jobs.start({ kind: 'bash', label: 'npm test', owner: 'main', run: async () => ({ exitCode: 0 }) })
    await done
    const r = await call(jobKillTool, { job_id: 'bash-1' }, execFor(jobs, { agent: 'main' }))
    expect(r.value).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'npm test',
      status: 'completed',
      exit: { exitCode: 0 },
      outcome: 'already-ended',
    })
    expect(r.text).toBe('Job bash-1 (npm test) had already ended (completed); nothing to kill.')
    expect(jobs.takeNotices('main')).toEqual([])
  })

  it('a job that ignores its signal is reported as still stopping after the grace', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService({ killGraceMs: 2000 })
    jobs.start({ kind: 'bash', label: 'stubborn', run: controlled().run })
    const pending = call(jobKillTool, { job_id: 'bash-1' }, execFor(jobs))
    await vi.advanceTimersByTimeAsync(2000)
    const r = await pending
    expect(r.value).toMatchObject({ status: 'stopping', outcome: 'stopping' })
    expect(r.text).toBe(
      'Asked job bash-1 (stubborn) to stop; it has not exited yet (status: stopping). Check it with job_output.',
    )
    expect((await call(jobOutputTool, { job_id: 'bash-1' }, execFor(jobs))).text).toBe(
      'Job bash-1 (stubborn) is stopping (kill requested: killed with job_kill).\nOutput:\n(no output yet)',
    )
  })
})

describe('jobTools plugin', () => {
  it('registers job_output, job_list and job_kill with snake_case parameters', () => {
    const runtime = createRuntime()
    runtime.use(jobTools())
    const schemas = runtime.schemas()
    expect(
      Object.fromEntries(
        schemas.map((s) => [s.name, Object.keys((s.parameters.properties ?? {}) as object)]),
      ),
    ).toEqual({ job_output: ['job_id', 'wait', 'timeout_ms'], job_list: [], job_kill: ['job_id', 'reason'] })
  })

  it('job_output and job_list are concurrency-safe; job_kill is exclusive', () => {
    expect(jobOutputTool.isConcurrencySafe?.({ job_id: 'x' })).toBe(true)
    expect(jobListTool.isConcurrencySafe?.({})).toBe(true)
    expect(jobKillTool.isConcurrencySafe).toBeUndefined()
  })
})

describe('through the runtime pipeline', () => {
  it('job_output waits, job_list lists, job_kill kills; unknown ids are tool errors; notices follow the rules', async () => {
    const runtime = createRuntime()
    runtime.use(jobTools())
    const a = controlled()
    const b = controlled()
    // What bash does for run_in_background: publish with the call's signal, owner = exec.agent.
    runtime.jobs.start({ kind: 'bash', label: 'npm test', run: a.run }, new AbortController().signal)
    runtime.jobs.start({ kind: 'bash', label: 'npm run dev', run: b.run })
    b.ctx.signal.addEventListener('abort', () => b.gate.resolve(undefined))
    a.ctx.write('1 passed\n')

    const waiting = runtime.execute({
      callId: 'c1',
      name: 'job_output',
      arguments: '{"job_id":"bash-1","wait":true}',
    })
    a.gate.resolve({ exitCode: 0 })
    const out = await waiting
    expect(out.isError).toBe(false)
    expect(out.content).toEqual([
      { type: 'text', text: 'Job bash-1 (npm test) completed with exit {"exitCode":0}.\nOutput:\n1 passed' },
    ])
    expect(out.value).toMatchObject({ jobId: 'bash-1', status: 'completed', waited: 'ended' })

    const list = await runtime.execute({ callId: 'c2', name: 'job_list', arguments: {} })
    expect(list.content).toEqual([
      { type: 'text', text: 'bash-1 completed npm test\nbash-2 running npm run dev' },
    ])

    const kill = await runtime.execute({ callId: 'c3', name: 'job_kill', arguments: { job_id: 'bash-2' } })
    expect(kill.content).toEqual([{ type: 'text', text: 'Killed job bash-2 (npm run dev).' }])

    const unknown = await runtime.execute({
      callId: 'c4',
      name: 'job_output',
      arguments: { job_id: 'bash-7' },
    })
    expect(unknown.isError).toBe(true)
    expect(unknown.error).toMatchObject({
      kind: 'tool_error',
      message: 'No background job "bash-7". Known jobs: bash-1, bash-2. Call job_list to see them.',
    })
    // bash-1 was awaited and bash-2 killed by the model: nothing to notify.
    expect(runtime.jobs.takeNotices(undefined)).toEqual([])
    await runtime.dispose()
  })

  it('runtime teardown kills running jobs', async () => {
    const runtime = createRuntime()
    const job = controlled()
    runtime.jobs.start({ kind: 'bash', label: 'server', run: job.run })
    job.ctx.signal.addEventListener('abort', () => job.gate.resolve(undefined))
    await runtime.dispose()
    expect(runtime.jobs.get('bash-1')).toMatchObject({
      status: 'killed',
      killReason: 'the jobs service shut down',
    })
  })
})
