import { afterEach, describe, expect, it, vi } from 'vitest'
import type { JobContext, JobSnapshot, JsonValue } from '../src/index.js'
import {
  createJobsService,
  type InProcessJobsService,
  JobsError,
  renderJobNotices,
} from '../src/jobs/index.js'

/** A promise the test settles by hand. */
function gate<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** A clock that ticks 1 per reading: stable, exact timestamps. */
function ticking(start = 1000) {
  let t = start
  return () => t++
}

/** Resolves with the snapshot of `jobId` when it ends (observes through onEnded, not wait). */
function endOf(jobs: InProcessJobsService, jobId: string): Promise<JobSnapshot> {
  return new Promise((resolve) => {
    const off = jobs.onEnded((s) => {
      if (s.jobId === jobId) {
        off()
        resolve(s)
      }
    })
  })
}

/** A job whose run the test controls: it records its context and settles when the test says. */
function controlled() {
  const g = gate<JsonValue | undefined>()
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

afterEach(() => {
  vi.useRealTimers()
})

describe('ids and handles', () => {
  it('numbers ids per kind from 1 and returns a frozen typed handle', () => {
    const jobs = createJobsService()
    const never = () => new Promise<undefined>(() => {})
    const a = jobs.start({ kind: 'bash', label: 'a', run: never })
    const b = jobs.start({ kind: 'bash', label: 'b', run: never })
    const c = jobs.start({ kind: 'run_code', label: 'c', run: never })
    expect([a, b, c]).toEqual([
      { kind: 'background', jobId: 'bash-1' },
      { kind: 'background', jobId: 'bash-2' },
      { kind: 'background', jobId: 'run_code-1' },
    ])
    expect(Object.isFrozen(a)).toBe(true)
    expect(jobs.list().map((s) => s.jobId)).toEqual(['bash-1', 'bash-2', 'run_code-1'])
  })

  it('refuses a kind that cannot form an id', () => {
    const jobs = createJobsService()
    expect(() => jobs.start({ kind: 'my job', label: 'x', run: async () => undefined })).toThrow(
      `Job kind "my job" cannot name a job id: use letters, digits, '_', '.' or '-'.`,
    )
    expect(jobs.list()).toEqual([])
  })
})

describe('statuses and snapshots', () => {
  it('running -> completed with the exit summary, exact snapshots', async () => {
    const jobs = createJobsService({ now: ticking() })
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'npm test', owner: 'main', run: job.run })
    job.ctx.write('ok 1\n')
    expect(jobs.get(jobId)).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'npm test',
      owner: 'main',
      status: 'running',
      startedAt: 1000,
      output: 'ok 1\n',
      droppedBytes: 0,
    })
    const ended = endOf(jobs, jobId)
    job.gate.resolve({ exitCode: 0 })
    const final = await ended
    expect(final).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'npm test',
      owner: 'main',
      status: 'completed',
      startedAt: 1000,
      endedAt: 1001,
      output: 'ok 1\n',
      droppedBytes: 0,
      exit: { exitCode: 0 },
    })
    expect(Object.isFrozen(final)).toBe(true)
    expect(Object.isFrozen(final.exit)).toBe(true)
    // Writes after the end are ignored: the final output is final.
    job.ctx.write('late\n')
    expect(jobs.get(jobId)?.output).toBe('ok 1\n')
  })

  it('running -> failed with the rejection message', async () => {
    const jobs = createJobsService({ now: ticking() })
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'build', run: job.run })
    const ended = endOf(jobs, jobId)
    job.gate.reject(new Error('spawn ENOENT'))
    expect(await ended).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'build',
      status: 'failed',
      startedAt: 1000,
      endedAt: 1001,
      output: '',
      droppedBytes: 0,
      error: 'spawn ENOENT',
    })
  })

  it('a run that throws synchronously is a failed job, not a throw from start', async () => {
    const jobs = createJobsService()
    const ended = endOf(jobs, 'x-1')
    const handle = jobs.start({
      kind: 'x',
      label: 'boom',
      run: () => {
        throw new Error('boom')
      },
    })
    expect(handle.jobId).toBe('x-1')
    expect((await ended).status).toBe('failed')
    expect(jobs.get('x-1')?.error).toBe('boom')
  })

  it('an exit value that is not JSON fails the job', async () => {
    const jobs = createJobsService()
    const ended = endOf(jobs, 'x-1')
    jobs.start({ kind: 'x', label: 'bad', run: async () => ({ n: 1n }) as unknown as JsonValue })
    const s = await ended
    expect(s.status).toBe('failed')
    expect(s.error).toMatch(/^the job finished with an exit value that is not JSON \(/)
  })

  it('keeps output bounded per job with the drop counted', async () => {
    const jobs = createJobsService({ maxOutputBytes: 8 })
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'noisy', run: job.run })
    job.ctx.write('12345')
    job.ctx.write('67890')
    job.ctx.write('ab')
    expect(jobs.get(jobId)).toMatchObject({ output: '567890ab', droppedBytes: 4 })
  })
})

describe('cancellation', () => {
  it('a call signal already aborted: throws, no job published, no id consumed, run never called', () => {
    const jobs = createJobsService()
    const call = new AbortController()
    call.abort()
    const run = vi.fn(async () => undefined)
    let caught: unknown
    try {
      jobs.start({ kind: 'bash', label: 'x', run }, call.signal)
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(JobsError)
    expect(caught).toMatchObject({
      code: 'JOB_CALL_ABORTED',
      message:
        'The call was cancelled before the background job started, so there is no job. Start it again if it is still needed.',
    })
    expect(run).not.toHaveBeenCalled()
    expect(jobs.list()).toEqual([])
    expect(jobs.start({ kind: 'bash', label: 'y', run }).jobId).toBe('bash-1')
  })

  it('aborting the call after publishing does not stop the job (its own signal)', async () => {
    const jobs = createJobsService()
    const call = new AbortController()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', run: job.run }, call.signal)
    call.abort()
    expect(job.ctx.signal).not.toBe(call.signal)
    expect(job.ctx.signal.aborted).toBe(false)
    expect(jobs.get(jobId)?.status).toBe('running')
    job.gate.resolve({ exitCode: 0 })
    expect((await jobs.wait(jobId))?.status).toBe('completed')
  })

  it('kill: running -> stopping (signal aborted with the reason) -> killed when the run settles', async () => {
    const jobs = createJobsService({ now: ticking() })
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'server', owner: 'main', run: job.run })
    job.ctx.signal.addEventListener('abort', () => job.ctx.write('got SIGTERM\n'))
    const killing = jobs.kill(jobId, 'no longer needed')
    expect(job.ctx.signal.aborted).toBe(true)
    expect((job.ctx.signal.reason as Error).message).toBe('background job killed: no longer needed')
    expect(jobs.get(jobId)).toMatchObject({ status: 'stopping', killReason: 'no longer needed' })
    job.gate.resolve({ exitCode: 143 }) // the run settles as it likes; the job was killed
    expect(await killing).toStrictEqual({
      jobId: 'bash-1',
      kind: 'bash',
      label: 'server',
      owner: 'main',
      status: 'killed',
      startedAt: 1000,
      endedAt: 1001,
      output: 'got SIGTERM\n',
      droppedBytes: 0,
      killReason: 'no longer needed',
    })
  })

  it('kill without a reason, kill of an unknown job, kill of an ended job', async () => {
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', run: job.run })
    const killing = jobs.kill(jobId)
    job.gate.reject(new Error('terminated'))
    expect(await killing).toMatchObject({ status: 'killed', killReason: 'killed on request' })
    expect(await jobs.kill('bash-99')).toBeUndefined()

    const done = jobs.start({ kind: 'bash', label: 'y', run: async () => ({ exitCode: 0 }) })
    await jobs.wait(done.jobId)
    expect(await jobs.kill(done.jobId, 'late')).toMatchObject({ status: 'completed', exit: { exitCode: 0 } })
    expect(jobs.get(done.jobId)?.killReason).toBeUndefined()
  })

  it('disposeOwner kills only that owner, forgets its ended jobs, drops its notices', async () => {
    const jobs = createJobsService()
    const a = controlled()
    const b = controlled()
    const done = jobs.start({ kind: 'bash', label: 'done', owner: 'sub', run: async () => undefined })
    await endOf(jobs, done.jobId)
    expect(jobs.takeNotices('sub')).toHaveLength(1)
    const done2 = jobs.start({ kind: 'bash', label: 'done2', owner: 'sub', run: async () => undefined })
    await endOf(jobs, done2.jobId)
    const ja = jobs.start({ kind: 'bash', label: 'a', owner: 'sub', run: a.run })
    const jb = jobs.start({ kind: 'bash', label: 'b', owner: 'main', run: b.run })
    const disposing = jobs.disposeOwner('sub')
    expect(a.ctx.signal.aborted).toBe(true)
    expect(b.ctx.signal.aborted).toBe(false)
    a.gate.resolve(undefined)
    expect(await disposing).toEqual({ unsettled: [] })
    expect(jobs.takeNotices('sub')).toEqual([])
    expect(jobs.get(ja.jobId)).toBeUndefined()
    expect(jobs.list().map((s) => [s.jobId, s.status])).toEqual([[jb.jobId, 'running']])
    expect(jobs.list('sub')).toEqual([])
  })

  it('dispose kills every job, waits for them, and refuses later starts', async () => {
    const jobs = createJobsService()
    const a = controlled()
    const b = controlled()
    jobs.start({ kind: 'bash', label: 'a', owner: 'main', run: a.run })
    jobs.start({ kind: 'bash', label: 'b', run: b.run })
    const disposing = jobs.dispose()
    expect([a.ctx.signal.aborted, b.ctx.signal.aborted]).toEqual([true, true])
    a.gate.resolve(undefined)
    b.gate.reject(new Error('aborted'))
    expect(await disposing).toEqual({ unsettled: [] })
    expect(jobs.list().map((s) => [s.jobId, s.status, s.killReason])).toEqual([
      ['bash-1', 'killed', 'the jobs service shut down'],
      ['bash-2', 'killed', 'the jobs service shut down'],
    ])
    expect(() => jobs.start({ kind: 'bash', label: 'c', run: async () => undefined })).toThrow(
      new JobsError('JOBS_DISPOSED', 'Background jobs are shut down; no new job can start.'),
    )
    expect(jobs.takeNotices('main')).toEqual([])
  })

  it('dispose does not hang on a run that ignores its signal: reported after the grace, killed when it settles', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService({ killGraceMs: 2000, now: ticking() })
    const stubborn = controlled() // never looks at its signal
    const polite = controlled()
    jobs.start({ kind: 'bash', label: 'stubborn', run: stubborn.run })
    jobs.start({ kind: 'bash', label: 'polite', run: polite.run })
    polite.ctx.signal.addEventListener('abort', () => polite.gate.resolve(undefined))
    const ended: string[] = []
    jobs.onEnded((s) => ended.push(`${s.jobId}:${s.status}`))
    let report: Awaited<ReturnType<InProcessJobsService['dispose']>> | undefined
    void jobs.dispose().then((r) => {
      report = r
    })
    await vi.advanceTimersByTimeAsync(1999)
    expect(report).toBeUndefined()
    expect(ended).toEqual(['bash-2:killed'])
    await vi.advanceTimersByTimeAsync(1)
    expect(report).toStrictEqual({
      unsettled: [
        {
          jobId: 'bash-1',
          kind: 'bash',
          label: 'stubborn',
          status: 'stopping',
          startedAt: 1000,
          output: '',
          droppedBytes: 0,
          killReason: 'the jobs service shut down',
        },
      ],
    })
    expect(vi.getTimerCount()).toBe(0)
    stubborn.gate.resolve({ exitCode: 0 })
    await vi.advanceTimersByTimeAsync(0)
    expect(ended).toEqual(['bash-2:killed', 'bash-1:killed'])
    expect(jobs.get('bash-1')?.status).toBe('killed')
  })

  it('kill returns after the grace with status stopping when the run ignores its signal', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService({ killGraceMs: 500 })
    const stubborn = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', run: stubborn.run })
    const killing = jobs.kill(jobId, 'stop')
    await vi.advanceTimersByTimeAsync(500)
    expect(await killing).toMatchObject({ status: 'stopping', killReason: 'stop' })
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('owner cap', () => {
  it('the 11th running job of one owner gets a clear error naming the running ones', async () => {
    const jobs = createJobsService()
    const runs = Array.from({ length: 10 }, () => controlled())
    runs.forEach((c, i) => {
      jobs.start({ kind: 'bash', label: `task ${i + 1}`, owner: 'main', run: c.run })
    })
    const names = runs.map((_, i) => `bash-${i + 1} (task ${i + 1})`).join(', ')
    const eleventh = () =>
      jobs.start({ kind: 'bash', label: 'task 11', owner: 'main', run: async () => undefined })
    expect(eleventh).toThrow(
      new JobsError(
        'JOB_LIMIT',
        `Too many background jobs: 10 are already running (the limit is 10): ${names}. ` +
          'Wait for one to finish with job_output (wait: true) or stop one with job_kill, then start this job again.',
      ),
    )
    // Other owners are not affected; the refused start consumed no id.
    expect(jobs.start({ kind: 'bash', label: 'other', owner: 'sub', run: async () => undefined }).jobId).toBe(
      'bash-11',
    )
    runs[0]!.gate.resolve(undefined)
    await jobs.wait('bash-1')
    expect(eleventh().jobId).toBe('bash-12')
  })

  it('is configurable', () => {
    const jobs = createJobsService({ maxRunningPerOwner: 1 })
    jobs.start({ kind: 'k', label: 'one', run: () => new Promise(() => {}) })
    expect(() => jobs.start({ kind: 'k', label: 'two', run: async () => undefined })).toThrow(
      /the limit is 1\): k-1 \(one\)/,
    )
    expect(() => createJobsService({ maxRunningPerOwner: 0 })).toThrow(
      'maxRunningPerOwner must be a positive integer, got 0',
    )
  })
})

describe('wait', () => {
  /** An AbortSignal whose listener registrations are counted. */
  function countedSignal() {
    const controller = new AbortController()
    const { signal } = controller
    const counts = { added: 0, removed: 0 }
    const add = signal.addEventListener.bind(signal)
    const remove = signal.removeEventListener.bind(signal)
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      counts.added++
      add(...args)
    }) as typeof signal.addEventListener
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      counts.removed++
      remove(...args)
    }) as typeof signal.removeEventListener
    return { controller, signal, counts }
  }

  it('resolves with the final snapshot when the job ends, and cleans up its listener and timer', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', run: job.run })
    const s = countedSignal()
    const waiting = jobs.wait(jobId, { signal: s.signal, timeoutMs: 60_000 })
    expect(vi.getTimerCount()).toBe(1)
    job.gate.resolve({ exitCode: 0 })
    expect(await waiting).toMatchObject({ status: 'completed', exit: { exitCode: 0 } })
    expect(s.counts).toEqual({ added: 1, removed: 1 })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a timeout returns the running snapshot and never kills the job', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', run: job.run })
    job.ctx.write('partial')
    const s = countedSignal()
    let result: JobSnapshot | undefined
    void jobs.wait(jobId, { signal: s.signal, timeoutMs: 5000 }).then((r) => {
      result = r
    })
    await vi.advanceTimersByTimeAsync(4999)
    expect(result).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(result).toMatchObject({ status: 'running', output: 'partial' })
    expect(job.ctx.signal.aborted).toBe(false)
    expect(s.counts).toEqual({ added: 1, removed: 1 })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('an aborting signal returns the running snapshot and never kills the job', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', run: job.run })
    const s = countedSignal()
    const waiting = jobs.wait(jobId, { signal: s.signal, timeoutMs: 5000 })
    s.controller.abort()
    expect(await waiting).toMatchObject({ status: 'running' })
    expect(job.ctx.signal.aborted).toBe(false)
    expect(s.counts).toEqual({ added: 1, removed: 1 })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('many waits on a long-lived signal leave no listeners behind', async () => {
    const jobs = createJobsService()
    const s = countedSignal()
    for (let i = 0; i < 50; i++) {
      const job = controlled()
      const { jobId } = jobs.start({ kind: 'bash', label: `${i}`, run: job.run })
      const waiting = jobs.wait(jobId, { signal: s.signal })
      job.gate.resolve(undefined)
      await waiting
    }
    expect(s.counts).toEqual({ added: 50, removed: 50 })
  })

  it('returns at once (no listener, no timer) for an ended job, an aborted signal, timeout 0, an unknown id', async () => {
    vi.useFakeTimers()
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', run: job.run })
    const s = countedSignal()
    s.controller.abort()
    expect(await jobs.wait(jobId, { signal: s.signal })).toMatchObject({ status: 'running' })
    expect(await jobs.wait(jobId, { timeoutMs: 0 })).toMatchObject({ status: 'running' })
    expect(await jobs.wait('bash-7')).toBeUndefined()
    job.gate.resolve(undefined)
    await endOf(jobs, jobId)
    expect(await jobs.wait(jobId, { signal: countedSignal().signal })).toMatchObject({ status: 'completed' })
    expect(s.counts).toEqual({ added: 0, removed: 0 })
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('completion notices', () => {
  it('a job that ends on its own leaves a notice for its owner; taking clears; end order', async () => {
    const jobs = createJobsService()
    const a = controlled()
    const b = controlled()
    jobs.start({ kind: 'bash', label: 'first started', owner: 'main', run: a.run })
    jobs.start({ kind: 'bash', label: 'second started', owner: 'main', run: b.run })
    jobs.start({ kind: 'bash', label: 'elsewhere', owner: 'sub', run: async () => undefined })
    const endedB = endOf(jobs, 'bash-2')
    b.gate.reject(new Error('exit 2'))
    await endedB
    const endedA = endOf(jobs, 'bash-1')
    a.ctx.write('hello')
    a.gate.resolve({ exitCode: 0 })
    await endedA
    expect(jobs.takeNotices('main')).toStrictEqual([
      {
        jobId: 'bash-2',
        kind: 'bash',
        label: 'second started',
        owner: 'main',
        status: 'failed',
        error: 'exit 2',
        outputBytes: 0,
        droppedBytes: 0,
      },
      {
        jobId: 'bash-1',
        kind: 'bash',
        label: 'first started',
        owner: 'main',
        status: 'completed',
        exit: { exitCode: 0 },
        outputBytes: 5,
        droppedBytes: 0,
      },
    ])
    expect(jobs.takeNotices('main')).toEqual([])
    expect(jobs.takeNotices('sub').map((n) => n.jobId)).toEqual(['bash-3'])
  })

  it('ownerless jobs keep their notices under the undefined owner', async () => {
    const jobs = createJobsService()
    jobs.start({ kind: 'bash', label: 'x', run: async () => undefined })
    await endOf(jobs, 'bash-1')
    expect(jobs.takeNotices(undefined).map((n) => n.jobId)).toEqual(['bash-1'])
  })

  it('no notice when the model killed the job', async () => {
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', owner: 'main', run: job.run })
    const killing = jobs.kill(jobId)
    job.gate.resolve({ exitCode: 0 })
    await killing
    expect(jobs.takeNotices('main')).toEqual([])
  })

  it('no notice when a wait observed the end', async () => {
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', owner: 'main', run: job.run })
    const waiting = jobs.wait(jobId)
    job.gate.resolve({ exitCode: 0 })
    await waiting
    expect(jobs.takeNotices('main')).toEqual([])
  })

  it('a wait that gave up before the end does not count as observing it', async () => {
    const jobs = createJobsService()
    const job = controlled()
    const { jobId } = jobs.start({ kind: 'bash', label: 'x', owner: 'main', run: job.run })
    const call = new AbortController()
    const waiting = jobs.wait(jobId, { signal: call.signal })
    call.abort()
    expect((await waiting)?.status).toBe('running')
    const ended = endOf(jobs, jobId)
    job.gate.resolve({ exitCode: 0 })
    await ended
    expect(jobs.takeNotices('main').map((n) => n.jobId)).toEqual(['bash-1'])
  })

  it('seeing the end later (wait or kill on an ended job) withdraws the pending notice', async () => {
    const jobs = createJobsService()
    jobs.start({ kind: 'bash', label: 'a', owner: 'main', run: async () => undefined })
    jobs.start({ kind: 'bash', label: 'b', owner: 'main', run: async () => undefined })
    jobs.start({ kind: 'bash', label: 'c', owner: 'main', run: async () => undefined })
    await endOf(jobs, 'bash-3')
    await jobs.wait('bash-1', { timeoutMs: 0 })
    await jobs.kill('bash-3')
    expect(jobs.takeNotices('main').map((n) => n.jobId)).toEqual(['bash-2'])
  })

  it('an onEnded listener that throws does not affect others or the job', async () => {
    const jobs = createJobsService()
    const seen: string[] = []
    jobs.onEnded(() => {
      throw new Error('observer bug')
    })
    const off = jobs.onEnded((s) => seen.push(s.status))
    jobs.start({ kind: 'bash', label: 'x', run: async () => undefined })
    expect((await jobs.wait('bash-1'))?.status).toBe('completed')
    off()
    jobs.start({ kind: 'bash', label: 'y', run: async () => undefined })
    await jobs.wait('bash-2')
    expect(seen).toEqual(['completed'])
  })
})

describe('renderJobNotices', () => {
  it('renders one stable context message in end order, nothing when empty', () => {
    expect(renderJobNotices([])).toBeUndefined()
    expect(
      renderJobNotices([
        {
          jobId: 'bash-2',
          kind: 'bash',
          label: 'npm run build',
          status: 'failed',
          error: 'spawn sh ENOENT',
          outputBytes: 0,
          droppedBytes: 0,
        },
        {
          jobId: 'bash-1',
          kind: 'bash',
          label: 'npm test',
          status: 'completed',
          exit: { exitCode: 0 },
          outputBytes: 120,
          droppedBytes: 0,
        },
        { jobId: 'x-1', kind: 'x', label: 'sync', status: 'completed', outputBytes: 0, droppedBytes: 0 },
      ]),
    ).toStrictEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: [
            'Background jobs finished since your last step:',
            '- bash-2 (npm run build) failed: spawn sh ENOENT; read its output with job_output {"job_id":"bash-2"}.',
            '- bash-1 (npm test) completed with {"exitCode":0}; read its output with job_output {"job_id":"bash-1"}.',
            '- x-1 (sync) completed; read its output with job_output {"job_id":"x-1"}.',
          ].join('\n'),
        },
      ],
    })
  })
})
