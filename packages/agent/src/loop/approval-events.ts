// The session-tap stage: approvals happen inside the pipeline and land in the session log
// (`approval/asked`, `approval/decided`); the run streams the ones of its own calls as `approval`
// events. With a tap (context/session-tap.ts) they arrive live; without one the run reads the log
// after each settled call and each turn, only the events past its cursor (a poll per call must not
// re-read the whole log).
import type { Disposable, JsonValue, Runtime } from '@toolgate/core'
import type { RunState } from './run-state.js'

export interface ApprovalEvents extends Disposable {
  /** A call of this run: its approval events are forwarded. */
  track(callId: string): void
  /** Forward what the log holds past the cursor (no-op with a live tap). */
  poll(): void
}

export function approvalEvents(run: RunState): ApprovalEvents {
  const { runtime } = run
  const ours = new Set<string>()
  let cursor = lastSeq(runtime)
  const onSessionEvent = (e: { seq: number; type: string; [k: string]: JsonValue }) => {
    if (e.seq <= cursor) return
    cursor = e.seq
    if (e.type !== 'approval/asked' && e.type !== 'approval/decided') return
    const callId = typeof e.callId === 'string' ? e.callId : undefined
    if (callId === undefined || !ours.has(callId)) return
    run.emit({
      type: 'approval',
      turn: run.turn,
      phase: e.type === 'approval/asked' ? 'asked' : 'decided',
      callId,
      ...str('toolName', e.toolName),
      ...str('reason', e.reason),
      ...str('displayReason', e.displayReason),
      ...str('outcome', e.outcome),
    })
  }
  const subscription = run.o.sessionTap?.subscribe(onSessionEvent)
  const dispose = () => subscription?.dispose()
  return {
    track: (callId) => void ours.add(callId),
    poll() {
      if (subscription) return
      const events = runtime.session.events()
      let i = events.length
      while (i > 0 && events[i - 1]!.seq > cursor) i--
      for (; i < events.length; i++) onSessionEvent(events[i]!)
    },
    dispose,
    [Symbol.dispose]: dispose,
  }
}

function str(key: string, value: JsonValue | undefined): Record<string, string> {
  return typeof value === 'string' ? { [key]: value } : {}
}

function lastSeq(runtime: Runtime): number {
  const events = runtime.session.events()
  return events.length === 0 ? 0 : events[events.length - 1]!.seq
}
