// Model-visible renderings of the job tools (seed 001 §6.11; seed 003 §9.1: empty output is said,
// never sent empty). Pure functions of (args, value): stable text, no timestamps, replay-safe.

import type { JobInfo, JobKillValue, JobListValue, JobOutputValue } from './schemas.js'

const LABEL_MAX = 80

/** A label on one line (labels are often commands with newlines), cut to LABEL_MAX characters. */
function oneLine(label: string): string {
  const flat = label.replace(/\s+/g, ' ').trim()
  return flat.length > LABEL_MAX ? `${flat.slice(0, LABEL_MAX - 1)}…` : flat
}

function name(job: JobInfo): string {
  return `Job ${job.jobId} (${oneLine(job.label)})`
}

/** One sentence saying where the job stands. */
export function describeJob(job: JobInfo): string {
  switch (job.status) {
    case 'running':
      return `${name(job)} is running.`
    case 'stopping':
      return `${name(job)} is stopping (kill requested: ${job.killReason ?? 'no reason given'}).`
    case 'completed':
      return job.exit === undefined
        ? `${name(job)} completed.`
        : `${name(job)} completed with exit ${JSON.stringify(job.exit)}.`
    case 'failed':
      return `${name(job)} failed: ${job.error ?? 'unknown error'}`
    case 'killed':
      return `${name(job)} was killed: ${job.killReason ?? 'no reason given'}`
    default: {
      const never: never = job.status
      return never
    }
  }
}

export function renderJobOutput(timeoutMs: number, value: JobOutputValue): string {
  let head = describeJob(value)
  if (value.status === 'running' || value.status === 'stopping') {
    if (value.waited === 'timeout') {
      head = `${name(value)} is still ${value.status} after waiting ${timeoutMs} ms. Call job_output again to keep waiting, or job_kill to stop it.`
    } else if (value.waited === 'cancelled') {
      head = `${name(value)} is still ${value.status} (the wait was cancelled; the job keeps running).`
    }
  }
  const ended = value.status !== 'running' && value.status !== 'stopping'
  const lines = [head, 'Output:']
  if (value.droppedBytes > 0) lines.push(`[${value.droppedBytes} earlier bytes dropped]`)
  if (value.output !== '') lines.push(value.output.endsWith('\n') ? value.output.slice(0, -1) : value.output)
  else if (value.droppedBytes === 0) lines.push(ended ? '(no output)' : '(no output yet)')
  return lines.join('\n')
}

export function renderJobList(value: JobListValue): string {
  if (value.jobs.length === 0) return '(no background jobs)'
  return value.jobs.map((job) => `${job.jobId} ${job.status} ${oneLine(job.label)}`).join('\n')
}

export function renderJobKill(value: JobKillValue): string {
  switch (value.outcome) {
    case 'killed':
      return `Killed job ${value.jobId} (${oneLine(value.label)}).`
    case 'stopping':
      return `Asked job ${value.jobId} (${oneLine(value.label)}) to stop; it has not exited yet (status: stopping). Check it with job_output.`
    case 'already-ended':
      return `Job ${value.jobId} (${oneLine(value.label)}) had already ended (${value.status}); nothing to kill.`
    default: {
      const never: never = value.outcome
      return never
    }
  }
}
