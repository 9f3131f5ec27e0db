import { materializeInto } from '../json/materialize.js'
import type { JsonObject, JsonValue } from '../types.js'

// The session log is the record a replay is built from. Every payload is checked lossless at
// the source (seed 000 §7: a non-serializable meta is rejected by append, naming the path), and
// `tool/call` is appended before anything of the call runs.

export type SessionEventType =
  | 'tool/call'
  | 'tool/result'
  | 'tool/late-settle'
  | 'tool/code-dispatch'
  | 'approval/asked'
  | 'approval/decided'
  | 'listener/error'
  | (string & {})

export type SessionEvent = { readonly seq: number; readonly type: SessionEventType } & {
  readonly [key: string]: JsonValue
}

/** Where events go. A sink may keep them (memory) or only write them (a file, a database). */
export interface SessionSink {
  write(event: SessionEvent): void
  /** Events kept by this sink, oldest first; sinks that keep nothing return []. */
  events?(): readonly SessionEvent[]
}

export interface SessionLog {
  /** Append an event; the payload is checked lossless (and copied) first. */
  append(type: SessionEventType, payload: JsonObject): SessionEvent
  events(): readonly SessionEvent[]
}

/** The runtime's own log: it also appends payloads it built from materialized parts, unchecked. */
export interface RuntimeSessionLog extends SessionLog {
  appendTrusted(type: SessionEventType, payload: JsonObject): SessionEvent
  /**
   * Like appendTrusted for an event the runtime built itself, as a literal `{ seq: 0, type, ... }`:
   * it becomes the event (seq set, then frozen). Copying a payload key by key into a new event
   * and freezing it costs four times as much, and this runs twice per call.
   */
  appendFresh(event: FreshEvent): SessionEvent
  /** `append` of a tool's own event: `callId` is the emitting call's, whatever the payload says. */
  appendFor(callId: string, type: SessionEventType, payload: JsonObject): SessionEvent
}

/** An event under construction: `seq` is a placeholder until it is appended. */
export type FreshEvent = { seq: number; readonly type: SessionEventType } & { [key: string]: JsonValue }

export class SessionPayloadError extends Error {
  override readonly name = 'SessionPayloadError'
}

export function memorySink(): SessionSink & { events(): readonly SessionEvent[] } {
  const events: SessionEvent[] = []
  return {
    write: (event) => void events.push(event),
    events: () => events,
  }
}

/** A sink that keeps nothing (benchmarks, hosts that log elsewhere). */
export function discardSink(): SessionSink {
  return { write() {} }
}

export function createSessionLog(sink: SessionSink = memorySink()): RuntimeSessionLog {
  let seq = 0
  const appendTrusted = (type: SessionEventType, payload: JsonObject): SessionEvent => {
    seq++
    // A key copy into a literal; seq and type always win. A `__proto__` key (JSON allows it) is
    // defined as data: assigning it would replace the event's prototype.
    const event: Record<string, JsonValue> = { seq, type }
    for (const key in payload) {
      if (key === 'seq' || key === 'type') continue
      if (key === '__proto__')
        Object.defineProperty(event, key, {
          value: payload[key],
          enumerable: true,
          writable: true,
          configurable: true,
        })
      else event[key] = payload[key]!
    }
    Object.freeze(event)
    sink.write(event as unknown as SessionEvent)
    return event as unknown as SessionEvent
  }
  const appendFresh = (fresh: FreshEvent): SessionEvent => {
    seq++
    fresh.seq = seq
    const event = Object.freeze(fresh) as SessionEvent
    sink.write(event)
    return event
  }
  // The payload is checked and copied straight into the event (one copy, not two); the fields
  // the log owns are set again afterwards, so a payload cannot override them.
  const appendChecked = (type: SessionEventType, payload: JsonObject, callId?: string): SessionEvent => {
    const event: Record<string, JsonValue> =
      callId === undefined ? { seq: 0, type } : { seq: 0, type, callId }
    const checked = materializeInto(event, payload)
    if (!checked.ok) {
      throw new SessionPayloadError(
        `session event ${type} is not lossless JSON: ${checked.path.replace(/^\$/, 'payload')} ${checked.problem}`,
      )
    }
    event.type = type
    if (callId !== undefined) event.callId = callId
    return appendFresh(event as FreshEvent)
  }
  return {
    appendFresh,
    append: (type, payload) => appendChecked(type, payload),
    appendFor: (callId, type, payload) => appendChecked(type, payload, callId),
    appendTrusted,
    events: () => sink.events?.() ?? [],
  }
}
