// Linked child signals with disposable listeners. AbortSignal.any keeps its sources alive in
// some Node 20 releases; a long-lived session signal must not collect a listener per call.

export interface LinkedSignal {
  readonly signal: AbortSignal
  readonly controller: AbortController
  /** Remove the listeners this link added to its parents (idempotent). */
  dispose(): void
}

const NEVER = new AbortController().signal

/** A child signal aborted when any parent aborts (with that parent's reason) or by its own controller. */
export function linkSignals(...parents: (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController()
  const listening: [AbortSignal, () => void][] = []
  const dispose = () => {
    for (const [parent, listener] of listening) parent.removeEventListener('abort', listener)
    listening.length = 0
  }
  for (const parent of parents) {
    if (!parent) continue
    if (parent.aborted) {
      controller.abort(parent.reason)
      dispose()
      break
    }
    const listener = () => {
      controller.abort(parent.reason)
      dispose()
    }
    parent.addEventListener('abort', listener, { once: true })
    listening.push([parent, listener])
  }
  return { signal: controller.signal, controller, dispose }
}

/** A signal that never aborts (shared; for calls without a caller signal). */
export function neverAborted(): AbortSignal {
  return NEVER
}

/**
 * Resolve when `signal` aborts (never rejects); the returned `cancel` removes the listener, so a
 * race against a promise that settles first leaves nothing behind.
 */
export function whenAborted(signal: AbortSignal): { promise: Promise<void>; cancel(): void } {
  if (signal.aborted) return { promise: Promise.resolve(), cancel() {} }
  let listener: () => void = () => {}
  const promise = new Promise<void>((resolve) => {
    listener = () => resolve()
    signal.addEventListener('abort', listener, { once: true })
  })
  return { promise, cancel: () => signal.removeEventListener('abort', listener) }
}
