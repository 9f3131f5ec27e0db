// Completion notices (seed 001 §6.11, issue 3 §3): when a background job ends on its own, its owner
// learns about it as context on its next step — unless the model itself killed the job or already
// saw its end through a wait. The agent loop takes the notices (`takeNotices(owner)`) and delivers
// `renderJobNotices(...)` as one context message.

import type { ContextMessage, JsonValue } from '../types.js'

export interface JobNotice {
  readonly jobId: string
  readonly kind: string
  readonly label: string
  readonly owner?: string
  readonly status: 'completed' | 'failed'
  readonly exit?: JsonValue
  readonly error?: string
  /** Output bytes kept in the buffer when the job ended. */
  readonly outputBytes: number
  readonly droppedBytes: number
}

function describe(notice: JobNotice): string {
  const head = `- ${notice.jobId} (${notice.label})`
  const read = `read its output with job_output {"job_id":"${notice.jobId}"}`
  if (notice.status === 'failed') return `${head} failed: ${notice.error ?? 'unknown error'}; ${read}.`
  const exit = notice.exit === undefined ? '' : ` with ${JSON.stringify(notice.exit)}`
  return `${head} completed${exit}; ${read}.`
}

/** One context message listing the notices in end order; `undefined` when there are none. */
export function renderJobNotices(notices: readonly JobNotice[]): ContextMessage | undefined {
  if (notices.length === 0) return undefined
  const lines = ['Background jobs finished since your last step:', ...notices.map(describe)]
  return { role: 'user', content: [{ type: 'text', text: lines.join('\n') }] }
}
