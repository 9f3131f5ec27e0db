// An unbounded single-consumer queue: the loop (and batch callbacks firing mid-batch) push events,
// the consumer pulls them with for-await. Events are small and a run is bounded, so no backpressure.
// The buffer is read through a head index (Array#shift moves every element left: a turn of N
// calls buffered ahead of a slow consumer would cost O(N^2)); it is compacted once half is read.

export interface Channel<T> extends AsyncIterable<T> {
  push(value: T): void
  close(): void
  /** Called once when the consumer stops iterating early (break / return). */
  onCancel(fn: () => void): void
}

export function createChannel<T>(): Channel<T> {
  let buffer: T[] = []
  let head = 0
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
          if (head < buffer.length) {
            const value = buffer[head]!
            buffer[head++] = undefined as T // the consumer owns it now; do not keep it alive
            if (head === buffer.length) {
              buffer.length = 0
              head = 0
            } else if (head >= 1024 && head * 2 >= buffer.length) {
              buffer = buffer.slice(head)
              head = 0
            }
            return Promise.resolve({ value, done: false })
          }
          if (closed) return Promise.resolve({ value: undefined, done: true })
          return new Promise((resolve) => waiters.push(resolve))
        },
        return() {
          if (!cancelled && !closed) {
            cancelled = true
            cancel?.()
          }
          buffer = []
          head = 0
          return Promise.resolve({ value: undefined, done: true })
        },
      }
    },
  }
}
