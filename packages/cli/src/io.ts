// What a command talks to. `main(argv, io)` gets these so tests can drive it without a process.

export interface OutStream {
  write(text: string): unknown
  readonly isTTY?: boolean
  readonly columns?: number
}

/** The subset of a TTY stdin the approval prompt needs (process.stdin satisfies it). */
export interface InStream {
  readonly isTTY?: boolean
  setRawMode?(raw: boolean): unknown
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  resume(): unknown
  pause(): unknown
}

export interface CliIO {
  readonly stdout: OutStream
  readonly stderr: OutStream
  readonly stdin?: InStream
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /** Aborted on SIGINT by bin.ts: the run aborts, every call still gets its result, the log is flushed. */
  readonly interrupt?: AbortSignal
}

export function nodeIO(interrupt?: AbortSignal): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    ...(interrupt ? { interrupt } : {}),
  }
}
