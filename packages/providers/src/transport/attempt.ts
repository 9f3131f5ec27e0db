// One HTTP attempt and the ways it can be stopped: the caller's abort, the request's total deadline,
// or a timer of the phase it is in. Stopping aborts the fetch (which closes the connection) and also
// rejects whatever the attempt is waiting for, so a fetch or a body that ignores its signal cannot
// keep a wait alive past its deadline.
import { ProviderAbortedError, type ProviderError, ProviderTimeoutError } from './errors.js'

export class Attempt {
  private readonly controller = new AbortController()
  private stopError: ProviderError | undefined
  private readonly waiters = new Set<(error: ProviderError) => void>()
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()
  private readonly onAbort: () => void

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    /** When the request's total deadline passes (performance.now() time). */
    deadlineAt: number,
    totalTimeoutMs: number,
  ) {
    this.onAbort = () => this.stop(new ProviderAbortedError(callerSignal?.reason))
    callerSignal?.addEventListener('abort', this.onAbort, { once: true })
    this.timer(
      Math.max(0, deadlineAt - performance.now()),
      () => new ProviderTimeoutError(totalTimeoutMs, 'total'),
    )
    if (callerSignal?.aborted) this.onAbort()
  }

  /** For fetch: aborted when the attempt stops. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Why the attempt stopped, if it did. */
  get stopped(): ProviderError | undefined {
    return this.stopError
  }

  /** Stop with this error (the first stop wins). */
  stop(error: ProviderError): void {
    if (this.stopError) return
    this.stopError = error
    this.controller.abort(error)
    for (const reject of [...this.waiters]) reject(error)
  }

  /** The promise's outcome, unless the attempt stops first: then its stop error. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.stopError) {
      promise.catch(() => {})
      return Promise.reject(this.stopError)
    }
    return new Promise<T>((resolve, reject) => {
      const onStop = (error: ProviderError) => reject(error)
      this.waiters.add(onStop)
      promise.then(
        (value) => {
          this.waiters.delete(onStop)
          resolve(value)
        },
        (error: unknown) => {
          this.waiters.delete(onStop)
          reject(this.stopError ?? error)
        },
      )
    })
  }

  /** Stop after `ms` unless cleared (the returned function clears it). */
  timer(ms: number, error: () => ProviderError): () => void {
    const handle = setTimeout(() => {
      this.timers.delete(handle)
      this.stop(error())
    }, ms)
    this.timers.add(handle)
    return () => {
      clearTimeout(handle)
      this.timers.delete(handle)
    }
  }

  /** The attempt is over: timers and listeners go, and an unfinished connection is closed. */
  dispose(): void {
    for (const handle of this.timers) clearTimeout(handle)
    this.timers.clear()
    this.callerSignal?.removeEventListener('abort', this.onAbort)
    this.waiters.clear()
    this.controller.abort()
  }
}
