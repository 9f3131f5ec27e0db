// Background jobs (seed 001 §6.11, issue 3 §3).

export type { JobsErrorCode } from './errors.js'
export { JobsError } from './errors.js'
export type { JobNotice } from './notices.js'
export { renderJobNotices } from './notices.js'
export { OutputBuffer } from './output-buffer.js'
export type { InProcessJobsService, JobsServiceOptions, JobsTeardownReport } from './service.js'
export { createJobsService } from './service.js'
export { utf8Length } from './utf8.js'
