#!/usr/bin/env node
// The `toolgate` executable. The first SIGINT aborts the run (every call still gets its result and
// the log is flushed, then exit 130); a second one exits at once.
import { EXIT } from './exit-codes.js'
import { main } from './index.js'
import { nodeIO } from './io.js'

const controller = new AbortController()
process.on('SIGINT', () => {
  if (controller.signal.aborted) process.exit(EXIT.interrupted)
  process.stderr.write('\ntoolgate: interrupted — stopping the run (press Ctrl-C again to quit at once)\n')
  controller.abort(new Error('SIGINT'))
})

main(process.argv.slice(2), nodeIO(controller.signal)).then(
  (code) => {
    process.exitCode = code
    // Whatever is left (a stray handle) must not keep a finished CLI alive.
    setTimeout(() => process.exit(code), 2000).unref()
  },
  (error: unknown) => {
    process.stderr.write(
      `toolgate: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    process.exitCode = EXIT.failed
  },
)
