// Linked child signals with disposable listeners. AbortSignal.any keeps its sources alive in
// some Node 20 releases; a long-lived session signal must not collect a listener per call.
// The common cases allocate nothing: no parent gives the shared never-aborting signal, one
// parent is returned as it is (nothing else can abort the child, so it *is* the parent).

export interface LinkedSignal {
  readonly signal: AbortSignal
  /** Remove the listeners this link added to its parents (idempotent). */
  dispose(): void
}

const NEVER = new AbortController().signal
const NOTHING = () => {}

/** A signal aborted when any parent aborts, with that parent's reason. */
export function linkSignals(...parents: (AbortSignal | undefined)[]): LinkedSignal {
  let only: AbortSignal | undefined
  let count = 0
  for (const parent of parents) {
    if (!parent || parent === NEVER || parent === only) continue
    only = parent
    count++
  }
  if (count === 0) return { signal: NEVER, dispose: NOTHING }
  if (count === 1) return { signal: only!, dispose: NOTHING }
  const controller = new AbortController()
  const listening: [AbortSignal, () => void][] = []
  const dispose = () => {
    for (const [parent, listener] of listening) parent.removeEventListener('abort', listener)
    listening.length = 0
  }
  for (const parent of parents) {
    if (!parent || parent === NEVER) continue
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
  return { signal: controller.signal, dispose }
}

/** The shared signal that never aborts (calls without any caller signal). */
export function neverAborted(): AbortSignal {
  return NEVER
}

/** A fan-out for many children of one parent: one listener on the parent, however many calls. */
export class SignalFanout {
  private readonly children = new Set<AbortController>()
  private readonly onAbort = () => {
    for (const child of this.children) child.abort(this.parent?.reason)
    this.children.clear()
  }
  constructor(private readonly parent: AbortSignal | undefined) {
    parent?.addEventListener('abort', this.onAbort, { once: true })
  }
  /** A child signal for one call; `release` forgets it once the call settled. */
  child(): { signal: AbortSignal | undefined; release(): void } {
    if (!this.parent) return { signal: undefined, release: NOTHING }
    const controller = new AbortController()
    if (this.parent.aborted) controller.abort(this.parent.reason)
    else this.children.add(controller)
    return { signal: controller.signal, release: () => this.children.delete(controller) }
  }
  dispose(): void {
    this.parent?.removeEventListener('abort', this.onAbort)
    this.children.clear()
  }
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
