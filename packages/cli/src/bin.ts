#!/usr/bin/env node
// The `toolgate` executable. The first SIGINT aborts the run (every call still gets its result and
// the log is flushed, then exit 130); a second one exits at once. The interactive session claims
// SIGINT for itself (Ctrl-C cancels a turn there, not the process).
//
// Start-up (issue 15 §3): Node's compile cache (Node >= 22.1) keeps the compiled code of the CLI and
// its packages between runs, and `main` is imported after it is on, so every module benefits.
import * as nodeModule from 'node:module'
import { EXIT } from './exit-codes.js'

;(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.()

const controller = new AbortController()
let claimant: (() => void) | undefined
process.on('SIGINT', () => {
  if (claimant) return claimant()
  if (controller.signal.aborted) process.exit(EXIT.interrupted)
  process.stderr.write('\ntoolgate: interrupted — stopping the run (press Ctrl-C again to quit at once)\n')
  controller.abort(new Error('SIGINT'))
})
const interrupts = {
  claim(listener: () => void) {
    claimant = listener
    return () => {
      if (claimant === listener) claimant = undefined
    }
  },
}

const { main } = await import('./main.js')
const { nodeIO } = await import('./io.js')
main(process.argv.slice(2), nodeIO(controller.signal, interrupts)).then(
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
