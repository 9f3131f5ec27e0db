// Canonical values of the job tools: practical programmatic APIs (seed 001 §6.10), so a Code Mode
// program reads `status`, `exit` and `output` as fields and never parses the rendered text.
// Field names follow the job handle `{ kind: 'background', jobId }` (seed 001 §6.11).

import { z } from 'zod'

export const jobStatusSchema = z.enum(['running', 'stopping', 'completed', 'killed', 'failed'])

/** One job as the tools report it: identity, state and how it ended. No timestamps (stable replay). */
export const jobInfoSchema = z.object({
  jobId: z.string(),
  kind: z.string(),
  label: z.string(),
  status: jobStatusSchema,
  /** The run's exit summary (e.g. bash's `{ exitCode }`), once completed. */
  exit: z.json().optional(),
  /** Why the job failed. */
  error: z.string().optional(),
  /** Why the job was (or is being) killed. */
  killReason: z.string().optional(),
})
export type JobInfo = z.infer<typeof jobInfoSchema>

/** What `wait: true` did: the job ended, the timeout passed, or the call was cancelled. */
const waitOutcomeSchema = z.enum(['no-wait', 'ended', 'timeout', 'cancelled'])

export const jobOutputValueSchema = jobInfoSchema.extend({
  /** The kept output, oldest first (bounded; see droppedBytes). */
  output: z.string(),
  /** UTF-8 bytes dropped from the start of the output to keep it bounded. */
  droppedBytes: z.number().int().min(0),
  waited: waitOutcomeSchema,
})
export type JobOutputValue = z.infer<typeof jobOutputValueSchema>

export const jobListValueSchema = z.object({ jobs: z.array(jobInfoSchema) })
export type JobListValue = z.infer<typeof jobListValueSchema>

/** `killed`: stopped by this call; `stopping`: asked to stop, not exited within the grace; `already-ended`. */
const killOutcomeSchema = z.enum(['killed', 'stopping', 'already-ended'])

export const jobKillValueSchema = jobInfoSchema.extend({ outcome: killOutcomeSchema })
export type JobKillValue = z.infer<typeof jobKillValueSchema>
