// The job tools as one plugin: job_output, job_list, job_kill (DESIGN.md §4, seed 001 §6.11).

import type { Plugin } from '@toolgate/core'
import { jobKillTool } from './job-kill.js'
import { jobListTool } from './job-list.js'
import { jobOutputTool } from './job-output.js'

/** `runtime.use(jobTools())`: registers job_output, job_list and job_kill (disposed with the plugin). */
export function jobTools(): Plugin {
  return (ctx) => {
    ctx.register(jobOutputTool)
    ctx.register(jobListTool)
    ctx.register(jobKillTool)
  }
}

export { DEFAULT_KILL_REASON, jobKillTool } from './job-kill.js'
export { jobListTool } from './job-list.js'
export { DEFAULT_WAIT_MS, jobOutputTool, MAX_WAIT_MS } from './job-output.js'
export { describeJob, renderJobKill, renderJobList, renderJobOutput } from './render.js'
export type { JobInfo, JobKillValue, JobListValue, JobOutputValue } from './schemas.js'
export {
  jobInfoSchema,
  jobKillValueSchema,
  jobListValueSchema,
  jobOutputValueSchema,
  jobStatusSchema,
} from './schemas.js'
