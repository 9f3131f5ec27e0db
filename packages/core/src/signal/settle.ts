import { neverAborted, whenAborted } from './link.js'

/**
 * Await `work`, but once `signal` aborts give it only `graceMs` more: code that ignores its
 * signal cannot hang the agent. Returns `{ settled: false }` when the grace ran out; the caller
 * keeps tracking the promise (it is never dropped).
 */
export async function settleWithin<T>(
  work: Promise<T>,
  signal: AbortSignal,
  graceMs: number,
): Promise<{ settled: true; value: T } | { settled: false }> {
  if (signal === neverAborted()) return { settled: true, value: await work }
  const aborted = whenAborted(signal)
  let timer: ReturnType<typeof setTimeout> | undefined
  let done = false
  const gaveUp = aborted.promise.then(
    () =>
      new Promise<{ settled: false }>((resolve) => {
        if (!done) timer = setTimeout(() => resolve({ settled: false }), graceMs)
      }),
  )
  try {
    return await Promise.race([work.then((value) => ({ settled: true as const, value })), gaveUp])
  } finally {
    done = true
    aborted.cancel()
    if (timer !== undefined) clearTimeout(timer)
  }
}
