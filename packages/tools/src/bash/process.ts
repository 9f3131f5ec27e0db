import { spawn } from 'node:child_process'

// One command in its own process group and session (`detached: true` = setsid: no controlling
// terminal, so nothing can stop on a tty read), stdin closed so prompts fail fast. Timeout, the
// caller's abort and processes left behind all end in the same place: the whole group gets SIGTERM,
// then SIGKILL after a grace period. Left behind means: still in the group once the shell exited
// (`cmd >/dev/null 2>&1 &` holds no output, so waiting for the pipes to close would miss it).
// A process that left the group (`setsid`) is only ended by a pid namespace around the command:
// bubblewrap's, or `contain.ts` without bubblewrap (issue 11 §7).

export interface ProcessSink {
  /** false: pause the pipe until `onDrain` calls back. */
  write(chunk: Buffer): boolean
  onDrain(resume: () => void): void
}

export interface RunProcessOptions {
  readonly argv: readonly string[]
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  readonly signal: AbortSignal
  /** Kill the group after this long (undefined: no deadline, e.g. background jobs). */
  readonly timeoutMs?: number
  readonly killGraceMs: number
  readonly stdout: ProcessSink
  readonly stderr: ProcessSink
  /** Open descriptors passed as fd 3, 4, ... (the sandbox's seccomp program). */
  readonly fds?: readonly number[]
  /**
   * The command runs in a pid namespace of its own (bubblewrap, or `contain`): when it exits, the
   * kernel ends everything it started, so the group is not searched for processes left behind
   * (bubblewrap's init may still be tearing the namespace down at that moment).
   */
  readonly pidNamespace?: boolean
}

export interface ProcessOutcome {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly aborted: boolean
  /** The shell exited but processes it left behind were still running: they were stopped. */
  readonly stoppedLeftovers: boolean
  readonly pid: number
}

/** How long stdio may stay open after the shell exited before the leftovers are stopped. */
const STDIO_GRACE_MS = 250

export function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const [program, ...rest] = options.argv
    if (program === undefined) {
      reject(new TypeError('runProcess: empty argv'))
      return
    }
    if (options.signal.aborted) {
      reject(options.signal.reason)
      return
    }
    const child = spawn(program, rest, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe', ...(options.fds ?? [])],
      detached: true,
    })
    let timedOut = false
    let aborted = false
    let stoppedLeftovers = false
    let exit: { code: number | null; signal: string | null } | undefined
    let terminating = false
    const timers: NodeJS.Timeout[] = []
    let escalation: NodeJS.Timeout | undefined

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, sig)
      } catch {
        // ESRCH: the group is already gone.
      }
    }
    const terminate = () => {
      if (terminating) return
      terminating = true
      killGroup('SIGTERM')
      escalation = setTimeout(() => killGroup('SIGKILL'), options.killGraceMs)
    }
    const onAbort = () => {
      aborted = true
      terminate()
    }

    const groupAlive = () => {
      if (child.pid === undefined) return false
      try {
        process.kill(-child.pid, 0)
        return true
      } catch {
        return false
      }
    }

    const pipe = (stream: NodeJS.ReadableStream & { pause(): void; resume(): void }, sink: ProcessSink) => {
      stream.on('data', (chunk: Buffer) => {
        if (!sink.write(chunk)) {
          stream.pause()
          sink.onDrain(() => stream.resume())
        }
      })
    }
    pipe(child.stdout!, options.stdout)
    pipe(child.stderr!, options.stderr)

    child.once('error', (error) => {
      cleanup()
      reject(error)
    })
    child.once('exit', (code, signal) => {
      exit = { code, signal }
      // Processes the command left in its group are stopped now, whether or not they hold the
      // output (SIGTERM, then SIGKILL after the grace period).
      if (options.pidNamespace !== true && !terminating && groupAlive()) {
        stoppedLeftovers = true
        terminate()
        return
      }
      // Background processes the command started may still hold stdout/stderr open.
      timers.push(
        setTimeout(() => {
          stoppedLeftovers = true
          terminate()
        }, STDIO_GRACE_MS),
      )
    })
    child.once('close', (code, signal) => {
      cleanup()
      const final = exit ?? { code, signal }
      resolve({
        exitCode: final.code,
        signal: final.signal,
        timedOut,
        aborted,
        stoppedLeftovers: stoppedLeftovers && !timedOut && !aborted,
        pid: child.pid ?? -1,
      })
    })

    const cleanup = () => {
      for (const t of timers) clearTimeout(t)
      options.signal.removeEventListener('abort', onAbort)
      // Once started, the SIGKILL still comes for group members that closed their stdio, but
      // it does not keep the agent process alive.
      escalation?.unref()
    }

    options.signal.addEventListener('abort', onAbort, { once: true })
    if (options.timeoutMs !== undefined) {
      timers.push(
        setTimeout(() => {
          timedOut = true
          terminate()
        }, options.timeoutMs),
      )
    }
  })
}
