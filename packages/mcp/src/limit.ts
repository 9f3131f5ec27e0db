/** At most `n` tasks at once; the rest wait in order (seed 003 §12.3 (5): local 3, remote 20). */
export function concurrencyLimit(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve))
    running++
    try {
      return await task()
    } finally {
      running--
      waiting.shift()?.()
    }
  }
}
