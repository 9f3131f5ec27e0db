// Test IO: captured stdout/stderr, not a TTY unless asked.
import type { CliIO, OutStream } from '../src/io.js'

export interface Captured extends OutStream {
  readonly text: () => string
}

function captured(isTTY = false): Captured {
  let buffer = ''
  return {
    isTTY,
    columns: 100,
    write(text: string) {
      buffer += text
      return true
    },
    text: () => buffer,
  }
}

export function testIO(env: Record<string, string | undefined> = {}, cwd = process.cwd()) {
  const stdout = captured()
  const stderr = captured()
  const io: CliIO = { stdout, stderr, env: { NO_COLOR: '1', ...env }, cwd }
  return { io, stdout, stderr }
}
