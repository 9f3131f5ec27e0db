// job_list {}: the caller's background jobs, one line each `<jobId> <status> <label>`.

import { defineTool } from '@toolgate/core'
import { z } from 'zod'
import { jobInfo, ownJobs } from './lookup.js'
import { renderJobList } from './render.js'
import { type JobListValue, jobListValueSchema } from './schemas.js'

export const jobListTool = defineTool({
  name: 'job_list',
  description:
    'List your background jobs with their ids, statuses and labels. Use job_output to read one and job_kill to stop one.',
  parameters: z.object({}),
  output: {
    schema: jobListValueSchema,
    render: (_args, value: JobListValue) => [{ type: 'text', text: renderJobList(value) }],
  },
  isConcurrencySafe: () => true,
  execute(_args, exec): JobListValue {
    return { jobs: ownJobs(exec).map(jobInfo) }
  },
  presentCall: () => ({ card: 'generic', title: 'job_list', kind: 'job' }),
})
