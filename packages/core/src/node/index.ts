// Node-only adapters of @toolgate/core (the main entry runs in browsers and edge runtimes too).

export type { JsonlSink, SessionLogReadResult } from './jsonl-sink.js'
export { jsonlSink, readSessionLog, SessionLogError } from './jsonl-sink.js'
