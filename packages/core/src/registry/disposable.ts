import type { Disposable } from '../types.js'

/** A Disposable that runs `dispose` at most once. */
export function disposable(dispose: () => void): Disposable {
  let done = false
  const run = () => {
    if (done) return
    done = true
    dispose()
  }
  return { dispose: run, [Symbol.dispose]: run }
}
