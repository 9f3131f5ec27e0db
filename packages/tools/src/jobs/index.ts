// The job tools as one plugin: job_output, job_list, job_kill (DESIGN.md §4, seed 001 §6.11).

import type { Disposable } from '@toolgate/core'
import { jobKillTool } from './job-kill.js'
import { jobListTool } from './job-list.js'
import { jobOutputTool } from './job-output.js'

/** The part of a plugin context the job tools need. */
export interface ToolRegistrar {
  register(tool: typeof jobOutputTool | typeof jobListTool | typeof jobKillTool): Disposable
}

/** `runtime.use(jobTools())`: registers job_output, job_list and job_kill. */
export function jobTools(): (ctx: ToolRegistrar) => void {
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
