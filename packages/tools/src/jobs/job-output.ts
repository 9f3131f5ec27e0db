// job_output { job_id, wait?, timeout_ms? }: a background job's status, exit and bounded output.
// Waiting never kills the job: a timeout or a cancelled call returns the latest snapshot, the job
// keeps running (seed 001 §6.11: cancelling the call stops the waiting, not the work).

import { defineTool } from '@toolgate/core'
import { z } from 'zod'
import { findOwnJob, jobInfo } from './lookup.js'
import { renderJobOutput } from './render.js'
import { type JobOutputValue, jobOutputValueSchema } from './schemas.js'

export const DEFAULT_WAIT_MS = 30_000
export const MAX_WAIT_MS = 600_000

const parameters = z.object({
  job_id: z
    .string()
    .min(1)
    .describe('The job id, e.g. "bash-1" (from the call that started it or job_list).'),
  wait: z
    .boolean()
    .optional()
    .describe('Wait for the job to end before answering (up to timeout_ms). Default false: answer at once.'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_WAIT_MS)
    .optional()
    .describe(`With wait: how long to wait at most, in ms (default ${DEFAULT_WAIT_MS}, max ${MAX_WAIT_MS}).`),
})

export const jobOutputTool = defineTool({
  name: 'job_output',
  description:
    'Read a background job: its status (running, stopping, completed, killed, failed), exit information and its output so far (oldest output is dropped when it grows large). Set wait: true to wait for the job to end (up to timeout_ms); waiting never stops the job.',
  parameters,
  output: {
    schema: jobOutputValueSchema,
    render: (args, value: JobOutputValue) => [
      { type: 'text', text: renderJobOutput(args.timeout_ms ?? DEFAULT_WAIT_MS, value) },
    ],
  },
  isConcurrencySafe: () => true,
  async execute(args, exec): Promise<JobOutputValue> {
    findOwnJob(exec, args.job_id)
    // Even without `wait`, read through `wait` with a zero timeout: when the job has ended, the
    // model now sees that end, so no completion notice repeats it on the next step.
    const snapshot = args.wait
      ? await exec.jobs.wait(args.job_id, {
          signal: exec.signal,
          timeoutMs: args.timeout_ms ?? DEFAULT_WAIT_MS,
        })
      : await exec.jobs.wait(args.job_id, { timeoutMs: 0 })
    const job = snapshot ?? findOwnJob(exec, args.job_id)
    const ended = job.status !== 'running' && job.status !== 'stopping'
    const waited = !args.wait ? 'no-wait' : ended ? 'ended' : exec.signal.aborted ? 'cancelled' : 'timeout'
    return { ...jobInfo(job), output: job.output, droppedBytes: job.droppedBytes, waited }
  },
  presentCall: (args) => ({ card: 'generic', title: `job_output ${args.job_id}`, kind: 'job' }),
})
