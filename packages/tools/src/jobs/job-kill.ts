// job_kill { job_id, reason? }: stop a background job. The model stopped it itself, so it gets no
// completion notice for it later (seed 001 §6.11). Killing an ended job is not an error: the model
// learns it had already ended and how.

import { defineTool } from '@toolgate/core'
import { z } from 'zod'
import { findOwnJob, jobInfo } from './lookup.js'
import { renderJobKill } from './render.js'
import { type JobKillValue, jobKillValueSchema } from './schemas.js'

export const DEFAULT_KILL_REASON = 'killed with job_kill'

export const jobKillTool = defineTool({
  name: 'job_kill',
  description:
    'Stop a background job. Its output so far stays readable with job_output. Killing a job that already ended does nothing.',
  parameters: z.object({
    job_id: z.string().min(1).describe('The job id, e.g. "bash-1".'),
    reason: z.string().optional().describe('Why it is stopped (kept with the job).'),
  }),
  output: {
    schema: jobKillValueSchema,
    render: (_args, value: JobKillValue) => [{ type: 'text', text: renderJobKill(value) }],
  },
  async execute(args, exec): Promise<JobKillValue> {
    const before = findOwnJob(exec, args.job_id)
    if (before.status !== 'running' && before.status !== 'stopping') {
      const ended = (await exec.jobs.kill(args.job_id)) ?? before
      return { ...jobInfo(ended), outcome: 'already-ended' }
    }
    const after = (await exec.jobs.kill(args.job_id, args.reason ?? DEFAULT_KILL_REASON)) ?? before
    if (after.status === 'stopping' || after.status === 'running')
      return { ...jobInfo(after), outcome: 'stopping' }
    // It may have ended on its own between the check and the kill: say what really happened.
    return { ...jobInfo(after), outcome: after.status === 'killed' ? 'killed' : 'already-ended' }
  },
  presentCall: (args) => ({ card: 'generic', title: `job_kill ${args.job_id}`, kind: 'job' }),
})
