// Watching a signal without an EventTarget listener per watcher. On Node 20 adding and removing
// an abort listener costs ~0.6 µs, and many calls of one batch or one run_code program share
// their caller's signal: each would add its own listener (and past ten, Node warns of a leak).
// Instead a signal gets one real listener, the first time anyone watches it, and its watchers
// live in a set: watching and unwatching cost a WeakMap lookup and a set operation. (The WeakMap
// is keyed by long-lived signals, not by calls: its GC bookkeeping does not grow per call.)

export type AbortWatcher = (reason: unknown) => void

const watchers = new WeakMap<AbortSignal, Set<AbortWatcher>>()

/**
 * Call `watcher` once with the signal's reason when `signal` aborts. The signal must not be
 * aborted yet (check `signal.aborted` first). Undo with `unwatchAbort`.
 */
export function watchAbort(signal: AbortSignal, watcher: AbortWatcher): void {
  let set = watchers.get(signal)
  if (set === undefined) {
    set = new Set()
    watchers.set(signal, set)
    const own = set
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal)
        for (const watch of own) {
          try {
            watch(signal.reason)
          } catch (error) {
            // One watcher's bug must not starve the others; it surfaces like a listener's would.
            queueMicrotask(() => {
              throw error
            })
          }
        }
      },
      { once: true },
    )
  }
  set.add(watcher)
}

export function unwatchAbort(signal: AbortSignal, watcher: AbortWatcher): void {
  watchers.get(signal)?.delete(watcher)
}
