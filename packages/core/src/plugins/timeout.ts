import type { Plugin } from '../runtime.js'

// The timeout policy (seed 000 §2): a tools/execute wrapper that asks for a deadline of the
// tool's declared `timeoutMs` (`next({ timeoutMs })`): the body's signal aborts with
// DeadlineExceeded then. The pipeline fuses the caller's signal back in, so a user's stop still
// reaches the body, and reports `timeout` (TOOL_TIMEOUT) only for this call's own deadline.

export function timeoutPolicy(): Plugin {
  return (ctx) => {
    ctx.on('tools/execute', (exec, next) => {
      const timeoutMs = ctx.toolOf(exec)?.timeoutMs
      return timeoutMs === undefined ? next() : next({ timeoutMs })
    })
  }
}
