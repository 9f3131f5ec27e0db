import { DeadlineExceeded } from '../errors/tool-error.js'
import type { Plugin } from '../runtime.js'

// The timeout policy (seed 000 §2): a tools/execute wrapper that gives the body a signal which
// aborts with DeadlineExceeded after the tool's declared `timeoutMs`. The pipeline fuses the
// caller's signal back in, so a user's stop still reaches the body, and reports `timeout`
// (TOOL_TIMEOUT) only for this call's own deadline.

export function timeoutPolicy(): Plugin {
  return (ctx) => {
    ctx.on('tools/execute', async (exec, next) => {
      const timeoutMs = ctx.toolOf(exec)?.timeoutMs
      if (timeoutMs === undefined) return next()
      const deadline = new AbortController()
      const timer = setTimeout(() => deadline.abort(new DeadlineExceeded(timeoutMs)), timeoutMs)
      try {
        return await next({ signal: deadline.signal })
      } finally {
        clearTimeout(timer)
      }
    })
  }
}
