// Approvals happen inside the pipeline and are recorded in the session log (`approval/asked`,
// `approval/decided`). To stream them as they happen, the run needs to hear the log: a tap is a
// session sink that forwards to an inner sink and tells subscribers about each event. Without a
// tap, the run reads `runtime.session.events()` by sequence number whenever a call settles.

import type { Disposable } from '@toolgate/core'
import { memorySink, type SessionEvent, type SessionSink } from '@toolgate/core'

export interface SessionTap extends SessionSink {
  subscribe(listener: (event: SessionEvent) => void): Disposable
  events(): readonly SessionEvent[]
}

/** Wrap a sink (default: in memory) so runs can observe approval events live. */
export function sessionTap(inner: SessionSink = memorySink()): SessionTap {
  const listeners = new Set<(event: SessionEvent) => void>()
  return {
    write(event) {
      inner.write(event)
      for (const listener of [...listeners]) {
        try {
          listener(event)
        } catch {
          // An observer never breaks the log.
        }
      }
    },
    events: () => inner.events?.() ?? [],
    subscribe(listener) {
      listeners.add(listener)
      const dispose = () => void listeners.delete(listener)
      return { dispose, [Symbol.dispose]: dispose }
    },
  }
}
