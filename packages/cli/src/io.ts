// What a command talks to. `main(argv, io)` gets these so tests can drive it without a process.

export interface OutStream {
  write(text: string): unknown
  readonly isTTY?: boolean
  readonly columns?: number
}

/** Standard input: a readable stream, with the TTY controls when it is a terminal (process.stdin satisfies it). */
export type InStream = NodeJS.ReadableStream & {
  readonly isTTY?: boolean
  readonly isRaw?: boolean
  setRawMode?(raw: boolean): unknown
}

/** Ctrl-C as a stream of events, for a command that handles it itself (the interactive session). */
export interface Interrupts {
  /** While claimed, every SIGINT calls `listener` and nothing else happens. Returns the release. */
  claim(listener: () => void): () => void
}

export interface CliIO {
  readonly stdout: OutStream
  readonly stderr: OutStream
  readonly stdin?: InStream
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /** Aborted on SIGINT by bin.ts: the run aborts, every call still gets its result, the log is flushed. */
  readonly interrupt?: AbortSignal
  readonly interrupts?: Interrupts
  /** The terminal stream behind `stdout`, for line editing (readline) in the interactive session. */
  readonly terminalOutput?: NodeJS.WritableStream
}

export function nodeIO(interrupt?: AbortSignal, interrupts?: Interrupts): CliIO {
  return {
    stdout: guarded(process.stdout),
    stderr: guarded(process.stderr),
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    ...(interrupt ? { interrupt } : {}),
    ...(interrupts ? { interrupts } : {}),
    terminalOutput: process.stdout,
  }
}

/**
 * An output that a closed reader cannot crash: `toolgate demo | head` closes the pipe after ten
 * lines; the next write fails with EPIPE (asynchronously, as an 'error' event). From then on
 * writes are dropped — the run goes on to its end and its session log is complete.
 */
function guarded(stream: NodeJS.WriteStream): OutStream {
  let closed = false
  stream.on('error', () => {
    // EPIPE, EIO, a destroyed stream: the output is gone, the run is not.
    closed = true
  })
  return {
    get isTTY() {
      return stream.isTTY
    },
    get columns() {
      return stream.columns
    },
    write(text: string) {
      if (closed) return false
      try {
        return stream.write(text)
      } catch {
        closed = true
        return false
      }
    },
  }
}
