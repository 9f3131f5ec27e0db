// An unbounded single-consumer queue: the loop (and batch callbacks firing mid-batch) push events,
// the consumer pulls them with for-await. Events are small and a run is bounded, so no backpressure.

export interface Channel<T> extends AsyncIterable<T> {
  push(value: T): void
  close(): void
  /** Called once when the consumer stops iterating early (break / return). */
  onCancel(fn: () => void): void
}

export function createChannel<T>(): Channel<T> {
  const buffer: T[] = []
  const waiters: ((r: IteratorResult<T>) => void)[] = []
  let closed = false
  let cancel: (() => void) | undefined
  let cancelled = false
  return {
    push(value) {
      if (closed) return
      const waiter = waiters.shift()
      if (waiter) waiter({ value, done: false })
      else buffer.push(value)
    },
    close() {
      closed = true
      for (const w of waiters.splice(0)) w({ value: undefined, done: true })
    },
    onCancel(fn) {
      cancel = fn
    },
    [Symbol.asyncIterator](): AsyncIterator<T> {
      return {
        next() {
          if (buffer.length > 0) return Promise.resolve({ value: buffer.shift()!, done: false })
          if (closed) return Promise.resolve({ value: undefined, done: true })
          return new Promise((resolve) => waiters.push(resolve))
        },
        return() {
          if (!cancelled && !closed) {
            cancelled = true
            cancel?.()
          }
          buffer.length = 0
          return Promise.resolve({ value: undefined, done: true })
        },
      }
    },
  }
}
