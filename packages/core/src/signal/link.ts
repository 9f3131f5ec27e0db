import { unwatchAbort, watchAbort } from './watch.js'

// Linked child signals with disposable watches (signal/watch.ts: one listener per parent, however
// many links). AbortSignal.any keeps its sources alive in some Node 20 releases; a long-lived
// session signal must not collect a listener per call.
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
  if (count === 0) return UNLINKED
  if (count === 1) return { signal: only!, dispose: NOTHING }
  const controller = new AbortController()
  const watched: AbortSignal[] = []
  const abort = (reason: unknown) => {
    dispose()
    controller.abort(reason)
  }
  const dispose = () => {
    for (const parent of watched) unwatchAbort(parent, abort)
    watched.length = 0
  }
  for (const parent of parents) {
    if (!parent || parent === NEVER || watched.includes(parent)) continue
    if (parent.aborted) {
      abort(parent.reason)
      break
    }
    watchAbort(parent, abort)
    watched.push(parent)
  }
  return { signal: controller.signal, dispose }
}

const UNLINKED: LinkedSignal = Object.freeze({ signal: NEVER, dispose: NOTHING })

/** The shared signal that never aborts (calls without any caller signal). */
export function neverAborted(): AbortSignal {
  return NEVER
}
