// Which jobs a call may see, and the model-facing error for an id it cannot. A call sees the jobs
// its own agent owns (bash starts jobs with `owner: exec.agent`): a sub-agent cannot read or kill
// the main agent's jobs, and the "known jobs" it is told about are the ones it can use.

import { type JobSnapshot, ToolError, type ToolRunContext } from '@toolgate/core'
import type { JobInfo } from './schemas.js'

export function ownJobs(exec: ToolRunContext): JobSnapshot[] {
  return exec.jobs.list().filter((job) => job.owner === exec.agent)
}

/** The caller's job `jobId`, or a ToolError naming the jobs it has and pointing at job_list. */
export function findOwnJob(exec: ToolRunContext, jobId: string): JobSnapshot {
  const job = exec.jobs.get(jobId)
  if (job !== undefined && job.owner === exec.agent) return job
  const known = ownJobs(exec).map((j) => j.jobId)
  const message =
    known.length === 0
      ? `No background job "${jobId}": there are no background jobs. Call job_list to check.`
      : `No background job "${jobId}". Known jobs: ${known.join(', ')}. Call job_list to see them.`
  throw new ToolError(message, { info: { jobId, knownJobIds: known } })
}

/** The fields the tools report for a job (no timestamps, no output). */
export function jobInfo(job: JobSnapshot): JobInfo {
  const info: JobInfo = { jobId: job.jobId, kind: job.kind, label: job.label, status: job.status }
  if (job.exit !== undefined) info.exit = job.exit as JobInfo['exit']
  if (job.error !== undefined) info.error = job.error
  if (job.killReason !== undefined) info.killReason = job.killReason
  return info
}
