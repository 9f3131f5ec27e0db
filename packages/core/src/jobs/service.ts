// The in-process background jobs service (seed 001 §6.11, issue 3 §3). Plain TypeScript with
// AbortController and setTimeout only: core runs in browsers and edge runtimes too (DESIGN.md §2).
// A durable backend (a queue that survives restarts) can implement the same `JobsService` later
// (DESIGN.md §9); nothing here leaks into the contract.
//
// Lifetimes, kept apart on purpose:
// - the *call* that starts a job only matters until the job is published: a call already aborted gets
//   an error (there is no job, its id could not satisfy the tool's output schema); afterwards the job
//   runs on its own AbortController, so cancelling the call stops waiting, not the work;
// - the *job* ends when its run settles; it is stopped only by `kill` (job_kill), `disposeOwner`
//   (the owning agent went away) or `dispose` (runtime teardown);
// - *waiting* (job_output with wait) never stops a job: a wait that times out or whose signal aborts
//   returns the latest snapshot with the job still running.

import type {
  JobContext,
  JobHandle,
  JobSnapshot,
  JobStartOptions,
  JobStatus,
  JobsService,
  JsonValue,
} from '../types.js'
import { JobsError } from './errors.js'
import type { JobNotice } from './notices.js'
import { OutputBuffer } from './output-buffer.js'

export interface JobsServiceOptions {
  /** Running jobs one owner may have at once; the next `start` throws (issue 3 §3). Default 10. */
  readonly maxRunningPerOwner?: number
  /** Output kept per job, in UTF-8 bytes; the oldest bytes are dropped and counted. Default 1 MiB. */
  readonly maxOutputBytes?: number
  /**
   * How long `kill`, `disposeOwner` and `dispose` wait for a run to settle after its signal aborted.
   * A run that ignores its signal cannot hang teardown: after the grace it is reported as unsettled
   * and stays `stopping` until it does settle. Default 2000 ms.
   */
  readonly killGraceMs?: number
  /**
   * Ended jobs kept for job_output / job_list (with their output), across owners. The model starts
   * jobs at will: past this many, the oldest ended job is forgotten (its pending notice too).
   * Default 64.
   */
  readonly maxEndedJobs?: number
  /** Clock for `startedAt` / `endedAt`. Default `Date.now`. */
  readonly now?: () => number
}

/** What a teardown left behind: jobs whose run had not settled within the grace. */
export interface JobsTeardownReport {
  readonly unsettled: readonly JobSnapshot[]
}

/** The in-process service: the `JobsService` contract plus what the runtime and agent loop need. */
export interface InProcessJobsService extends JobsService {
  /** Kill every job and wait (bounded by the grace) for them to settle; later `start`s throw. */
  dispose(): Promise<JobsTeardownReport>
  /** Kill the owner's jobs, drop its pending notices and forget its ended jobs. */
  disposeOwner(owner: string | undefined): Promise<JobsTeardownReport>
  /** Observe every job end (all statuses), e.g. for the session log. Returns the unsubscribe function. */
  onEnded(listener: (snapshot: JobSnapshot) => void): () => void
  /** The owner's pending completion notices, in end order; taking them clears them. */
  takeNotices(owner: string | undefined): readonly JobNotice[]
}

const DEFAULT_MAX_RUNNING_PER_OWNER = 10
const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
const DEFAULT_KILL_GRACE_MS = 2000
const DEFAULT_MAX_ENDED_JOBS = 64
// setTimeout fires at once for delays above 2^31-1 ms; such waits are treated as "no timeout".
const MAX_TIMER_MS = 2_147_483_647
const KIND_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

interface JobRecord {
  readonly jobId: string
  readonly kind: string
  readonly label: string
  readonly owner: string | undefined
  readonly startedAt: number
  readonly buffer: OutputBuffer
  readonly controller: AbortController
  /** Called once when the run settles; each waiter removes itself when it stops waiting. */
  readonly waiters: Set<() => void>
  status: JobStatus
  settled: boolean
  /** The model saw the end (a wait that observed it, or job_kill on an ended job): no notice. */
  observed: boolean
  endedAt?: number
  exit?: JsonValue
  error?: string
  killReason?: string
}

function errorMessage(reason: unknown): string {
  if (reason instanceof Error) return reason.message || reason.name
  if (typeof reason === 'string') return reason
  try {
    return JSON.stringify(reason) ?? String(reason)
  } catch {
    return String(reason)
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/** The run's exit summary as a detached, frozen JSON value (JSON semantics: undefined fields vanish). */
function toExit(value: unknown): { ok: true; exit: JsonValue | undefined } | { ok: false; error: string } {
  if (value === undefined) return { ok: true, exit: undefined }
  try {
    const text = JSON.stringify(value)
    if (text === undefined)
      return { ok: false, error: 'the job finished with an exit value that is not JSON' }
    return { ok: true, exit: deepFreeze(JSON.parse(text) as JsonValue) }
  } catch (err) {
    return { ok: false, error: `the job finished with an exit value that is not JSON (${errorMessage(err)})` }
  }
}

function abortError(reason: string): Error {
  const err = new Error(`background job killed: ${reason}`)
  err.name = 'AbortError'
  return err
}

export function createJobsService(options: JobsServiceOptions = {}): InProcessJobsService {
  const maxRunning = options.maxRunningPerOwner ?? DEFAULT_MAX_RUNNING_PER_OWNER
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  const now = options.now ?? Date.now
  const maxEnded = options.maxEndedJobs ?? DEFAULT_MAX_ENDED_JOBS
  if (!Number.isInteger(maxRunning) || maxRunning < 1) {
    throw new RangeError(`maxRunningPerOwner must be a positive integer, got ${maxRunning}`)
  }
  if (!Number.isInteger(maxEnded) || maxEnded < 0) {
    throw new RangeError(`maxEndedJobs must be a non-negative integer, got ${maxEnded}`)
  }
  new OutputBuffer(maxOutputBytes) // validates the limit once, up front

  const jobs = new Map<string, JobRecord>()
  const counters = new Map<string, number>()
  const notices = new Map<string | undefined, JobNotice[]>()
  /** Ended jobs still kept, in end order. */
  const ended: JobRecord[] = []
  const endedListeners = new Set<(snapshot: JobSnapshot) => void>()
  let disposed = false

  function snapshot(r: JobRecord): JobSnapshot {
    const s: {
      -readonly [K in keyof JobSnapshot]: JobSnapshot[K]
    } = {
      jobId: r.jobId,
      kind: r.kind,
      label: r.label,
      status: r.status,
      startedAt: r.startedAt,
      output: r.buffer.text(),
      droppedBytes: r.buffer.droppedBytes,
    }
    if (r.owner !== undefined) s.owner = r.owner
    if (r.endedAt !== undefined) s.endedAt = r.endedAt
    if (r.exit !== undefined) s.exit = r.exit
    if (r.error !== undefined) s.error = r.error
    if (r.killReason !== undefined) s.killReason = r.killReason
    return Object.freeze(s)
  }

  function markObserved(r: JobRecord): void {
    r.observed = true
    dropNotice(r)
  }

  function dropNotice(r: JobRecord): void {
    const pending = notices.get(r.owner)
    if (pending === undefined) return
    const i = pending.findIndex((n) => n.jobId === r.jobId)
    if (i >= 0) pending.splice(i, 1)
    if (pending.length === 0) notices.delete(r.owner)
  }

  function end(r: JobRecord, outcome: { ok: true; value: unknown } | { ok: false; reason: unknown }): void {
    r.settled = true
    r.endedAt = now()
    if (r.status === 'stopping') {
      r.status = 'killed'
    } else if (outcome.ok) {
      const exit = toExit(outcome.value)
      if (exit.ok) {
        r.status = 'completed'
        if (exit.exit !== undefined) r.exit = exit.exit
      } else {
        r.status = 'failed'
        r.error = exit.error
      }
    } else {
      r.status = 'failed'
      r.error = errorMessage(outcome.reason)
    }
    // Waiters first: a wait that sees the end marks the job observed, which suppresses the notice.
    for (const waiter of [...r.waiters]) waiter()
    r.waiters.clear()
    if ((r.status === 'completed' || r.status === 'failed') && !r.observed) {
      const notice: JobNotice = {
        jobId: r.jobId,
        kind: r.kind,
        label: r.label,
        ...(r.owner === undefined ? {} : { owner: r.owner }),
        status: r.status,
        ...(r.exit === undefined ? {} : { exit: r.exit }),
        ...(r.error === undefined ? {} : { error: r.error }),
        outputBytes: r.buffer.bytes,
        droppedBytes: r.buffer.droppedBytes,
      }
      const list = notices.get(r.owner)
      if (list === undefined) notices.set(r.owner, [Object.freeze(notice)])
      else list.push(Object.freeze(notice))
    }
    retain(r)
    const last = snapshot(r)
    for (const listener of [...endedListeners]) {
      try {
        listener(last)
      } catch {
        // Observers never change an outcome (DESIGN.md §5.9).
      }
    }
  }

  /** Keep at most `maxEnded` ended jobs: forget the oldest (and its notice, if still pending). */
  function retain(r: JobRecord): void {
    ended.push(r)
    while (ended.length > maxEnded) {
      const oldest = ended.shift()!
      jobs.delete(oldest.jobId)
      dropNotice(oldest)
    }
  }

  function forgetEnded(which: (r: JobRecord) => boolean): void {
    let kept = 0
    for (const r of ended) if (!which(r)) ended[kept++] = r
    ended.length = kept
  }

  function requestStop(r: JobRecord, reason: string): void {
    if (r.status !== 'running') return
    r.status = 'stopping'
    r.killReason = reason
    r.controller.abort(abortError(reason))
  }

  /** Resolves with the records still unsettled when all settled or the grace ran out. */
  function settleWithinGrace(records: readonly JobRecord[]): Promise<JobRecord[]> {
    const pending = records.filter((r) => !r.settled)
    if (pending.length === 0) return Promise.resolve([])
    return new Promise((resolve) => {
      let left = pending.length
      let finished = false
      const finish = (): void => {
        if (finished) return
        finished = true
        clearTimeout(timer)
        for (const r of pending) r.waiters.delete(onSettled)
        resolve(pending.filter((r) => !r.settled))
      }
      const onSettled = (): void => {
        left -= 1
        if (left === 0) finish()
      }
      for (const r of pending) r.waiters.add(onSettled)
      const timer = setTimeout(finish, graceMs)
    })
  }

  async function teardown(records: readonly JobRecord[], reason: string): Promise<JobsTeardownReport> {
    for (const r of records) requestStop(r, reason)
    const unsettled = await settleWithinGrace(records)
    return { unsettled: unsettled.map(snapshot) }
  }

  function runningOf(owner: string | undefined): JobRecord[] {
    return [...jobs.values()].filter((r) => r.owner === owner && r.status === 'running')
  }

  return {
    start(opts: JobStartOptions, signal?: AbortSignal): JobHandle {
      if (disposed) {
        throw new JobsError('JOBS_DISPOSED', 'Background jobs are shut down; no new job can start.')
      }
      if (signal?.aborted) {
        throw new JobsError(
          'JOB_CALL_ABORTED',
          'The call was cancelled before the background job started, so there is no job. Start it again if it is still needed.',
        )
      }
      if (!KIND_PATTERN.test(opts.kind)) {
        throw new JobsError(
          'JOB_INVALID_KIND',
          `Job kind ${JSON.stringify(opts.kind)} cannot name a job id: use letters, digits, '_', '.' or '-'.`,
        )
      }
      const running = runningOf(opts.owner)
      if (running.length >= maxRunning) {
        const names = running.map((r) => `${r.jobId} (${r.label})`).join(', ')
        throw new JobsError(
          'JOB_LIMIT',
          `Too many background jobs: ${running.length} are already running (the limit is ${maxRunning}): ${names}. ` +
            'Wait for one to finish with job_output (wait: true) or stop one with job_kill, then start this job again.',
        )
      }
      const n = (counters.get(opts.kind) ?? 0) + 1
      counters.set(opts.kind, n)
      const r: JobRecord = {
        jobId: `${opts.kind}-${n}`,
        kind: opts.kind,
        label: opts.label,
        owner: opts.owner,
        startedAt: now(),
        buffer: new OutputBuffer(maxOutputBytes),
        controller: new AbortController(),
        waiters: new Set(),
        status: 'running',
        settled: false,
        observed: false,
      }
      jobs.set(r.jobId, r)
      // Published. From here on the job's own controller rules; the call's signal is not consulted.
      const ctx: JobContext = {
        signal: r.controller.signal,
        write(chunk: string): void {
          if (!r.settled) r.buffer.write(typeof chunk === 'string' ? chunk : String(chunk))
        },
      }
      let run: Promise<JsonValue | undefined>
      try {
        run = Promise.resolve(opts.run(ctx))
      } catch (err) {
        run = Promise.reject(err)
      }
      run.then(
        (value) => end(r, { ok: true, value }),
        (reason: unknown) => end(r, { ok: false, reason }),
      )
      return Object.freeze({ kind: 'background', jobId: r.jobId })
    },

    get(jobId) {
      const r = jobs.get(jobId)
      return r === undefined ? undefined : snapshot(r)
    },

    list(owner) {
      const all = [...jobs.values()]
      return (owner === undefined ? all : all.filter((r) => r.owner === owner)).map(snapshot)
    },

    async kill(jobId, reason) {
      const r = jobs.get(jobId)
      if (r === undefined) return undefined
      if (r.settled) {
        markObserved(r)
        return snapshot(r)
      }
      // The model stopped it: whatever happens next, no completion notice (r.status becomes killed).
      requestStop(r, reason ?? 'killed on request')
      await settleWithinGrace([r])
      return snapshot(r)
    },

    wait(jobId, waitOptions = {}) {
      const r = jobs.get(jobId)
      if (r === undefined) return Promise.resolve(undefined)
      if (r.settled) {
        markObserved(r)
        return Promise.resolve(snapshot(r))
      }
      const { signal, timeoutMs } = waitOptions
      if (signal?.aborted || (timeoutMs !== undefined && timeoutMs <= 0)) return Promise.resolve(snapshot(r))
      return new Promise<JobSnapshot>((resolve) => {
        let timer: ReturnType<typeof setTimeout> | undefined
        const done = (): void => {
          r.waiters.delete(onEnd)
          signal?.removeEventListener('abort', done)
          if (timer !== undefined) clearTimeout(timer)
          resolve(snapshot(r))
        }
        const onEnd = (): void => {
          r.observed = true
          done()
        }
        r.waiters.add(onEnd)
        signal?.addEventListener('abort', done, { once: true })
        if (timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS) timer = setTimeout(done, timeoutMs)
      })
    },

    async dispose() {
      disposed = true
      notices.clear()
      const records = [...jobs.values()]
      const report = await teardown(records, 'the jobs service shut down')
      return report
    },

    async disposeOwner(owner) {
      notices.delete(owner)
      const records = [...jobs.values()].filter((r) => r.owner === owner)
      const report = await teardown(records, 'its owner was disposed')
      // Nobody can read an ended job of a gone owner; keep only what is still stopping (honest listing).
      for (const r of records) if (r.settled) jobs.delete(r.jobId)
      forgetEnded((r) => r.owner === owner)
      notices.delete(owner)
      return report
    },

    onEnded(listener) {
      endedListeners.add(listener)
      return () => {
        endedListeners.delete(listener)
      }
    },

    takeNotices(owner) {
      const pending = notices.get(owner)
      if (pending === undefined) return []
      notices.delete(owner)
      return Object.freeze(pending)
    },
  }
}
