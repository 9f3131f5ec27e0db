// Node-only adapters of @toolgate/core (the main entry runs in browsers and edge runtimes too).

export type { JsonlSink } from './jsonl-sink.js'
export { jsonlSink } from './jsonl-sink.js'
export type {
  ReadSessionLogOptions,
  SessionLogEntry,
  SessionLogIssue,
  SessionLogIssueKind,
  SessionLogReadResult,
} from './session-log-reader.js'
export {
  readSessionEntries,
  readSessionLog,
  SESSION_LOG_READ_DEFAULTS,
  SessionLogError,
} from './session-log-reader.js'
