// Calls from an MCP client arrive as independent requests, possibly at once. The runtime's batch
// scheduler orders calls within one batch; across requests this gate keeps the same rule
// (DESIGN §5 invariant 5): calls the runtime says are parallel-safe may overlap, an exclusive
// call runs alone. Admission is FIFO, so an exclusive call is never starved by a stream of
// parallel ones.

export type GateKind = 'parallel' | 'exclusive'

interface Waiter {
  readonly kind: GateKind
  readonly admit: () => void
}

export class CallGate {
  private parallel = 0
  private exclusive = false
  private readonly queue: Waiter[] = []

  /** Run `fn` when the gate admits a call of this kind; a signal aborted while waiting skips the wait. */
  async run<T>(kind: GateKind, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const admitted = await this.enter(kind, signal)
    try {
      return await fn()
    } finally {
      if (admitted) this.leave(kind)
    }
  }

  /** Resolves true once admitted, false when the signal aborted first (the caller runs unadmitted:
   * an aborted call never reaches a tool body, the runtime answers it at once). */
  private enter(kind: GateKind, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false)
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const i = this.queue.indexOf(waiter)
        if (i >= 0) {
          this.queue.splice(i, 1)
          resolve(false)
          this.pump()
        }
      }
      const waiter: Waiter = {
        kind,
        admit: () => {
          signal.removeEventListener('abort', onAbort)
          resolve(true)
        },
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.queue.push(waiter)
      this.pump()
    })
  }

  private leave(kind: GateKind): void {
    if (kind === 'exclusive') this.exclusive = false
    else this.parallel--
    this.pump()
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.exclusive) {
      const head = this.queue[0]!
      if (head.kind === 'exclusive') {
        if (this.parallel > 0) return
        this.queue.shift()
        this.exclusive = true
        head.admit()
        return
      }
      this.queue.shift()
      this.parallel++
      head.admit()
    }
  }
}
