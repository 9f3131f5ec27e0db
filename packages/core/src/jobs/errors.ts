// Why `jobs.start` refused. Messages are written for the model (what happened + what to do next);
// `code` lets a tool map the refusal to its own failure without parsing the message.

export type JobsErrorCode =
  | 'JOB_CALL_ABORTED' // the call's signal aborted before the job was published: there is no job
  | 'JOB_LIMIT' // the owner already has maxRunningPerOwner running jobs
  | 'JOBS_DISPOSED' // the service was torn down
  | 'JOB_INVALID_KIND' // the kind cannot form an id `<kind>-N`

export class JobsError extends Error {
  override readonly name = 'JobsError'
  readonly code: JobsErrorCode

  constructor(code: JobsErrorCode, message: string) {
    super(message)
    this.code = code
  }
}
