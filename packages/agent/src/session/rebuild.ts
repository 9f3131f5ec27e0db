// The conversation of a session, rebuilt from its log (`transcript: true` runs write it): every
// message the runs appended (`agent/message`), with tool results taken from their `tool/result`
// events when the message says so, elisions (`agent/elided`) and compactions (`agent/compacted`)
// replayed as they happened, `session/clear` starting over. Fed one event at a time, so a log of
// any size is read as a stream; memory holds the history and the results not yet placed.
//
// A call whose result never made it into the conversation (the process died while it ran, or
// before its result was appended) gets one: the `tool/result` from the log when there is one,
// otherwise an "interrupted" error result. The rebuilt history is therefore always valid for every
// wire format: each call answered once, in order.
import type { ContentBlock, JsonValue } from '@toolgate/core'
import type { AssistantMessage, Message, ToolResultMessage } from '@toolgate/providers'
import { toolCallsOf } from '@toolgate/providers'

/** The result a call gets when the session ended while it ran (model-visible). */
export const INTERRUPTED_TEXT =
  'This call was interrupted: the session ended while it was running, so whether it took effect is unknown. Check before you repeat it.'

/** Results remembered for placement; the oldest are forgotten past this (bounded memory). */
const RESULT_CAP = 2000

type EventLike = { readonly type: string; readonly [key: string]: JsonValue }

export interface RebuiltHistory {
  readonly messages: readonly Message[]
  /** Results added for calls that had none in the conversation, in order (to log on resume). */
  readonly completed: readonly ToolResultMessage[]
}

export class HistoryBuilder {
  private history: Message[] = []
  /** Top-level tool/result contents by call id, until placed. */
  private readonly results = new Map<string, { content: readonly ContentBlock[]; isError: boolean }>()
  /** Calls of the last assistant message still without a tool message. */
  private open: { callId: string; name: string }[] = []

  push(event: EventLike): void {
    switch (event.type) {
      case 'tool/result': {
        if (typeof event.parentCallId === 'string' || typeof event.callId !== 'string') return
        this.results.set(event.callId, {
          content: (Array.isArray(event.content) ? event.content : []) as unknown as ContentBlock[],
          isError: event.isError === true,
        })
        if (this.results.size > RESULT_CAP) this.results.delete(this.results.keys().next().value!)
        return
      }
      case 'agent/message':
        this.message(event)
        return
      case 'agent/elided': {
        const stubs = new Map<string, string>()
        for (const r of Array.isArray(event.results) ? event.results : []) {
          const x = r as { callId?: unknown; stub?: unknown }
          if (typeof x.callId === 'string' && typeof x.stub === 'string') stubs.set(x.callId, x.stub)
        }
        this.history = this.history.map((m) =>
          m.role === 'tool' && stubs.has(m.callId)
            ? { ...m, content: [{ type: 'text', text: stubs.get(m.callId)! }] }
            : m,
        )
        return
      }
      case 'agent/compacted': {
        const summarized = typeof event.summarized === 'number' ? event.summarized : 0
        const summary = typeof event.summary === 'string' ? event.summary : ''
        const replayed = (Array.isArray(event.replayed) ? event.replayed : []) as unknown as Message[]
        this.history.splice(
          0,
          summarized,
          { role: 'user', content: [{ type: 'text', text: summary }] },
          ...replayed,
        )
        return
      }
      case 'session/clear':
        this.closeOpen([])
        this.history = []
        this.open = []
        return
      default:
        return
    }
  }

  /** The history, with every call answered (see the file comment). */
  finish(): RebuiltHistory {
    const completed: ToolResultMessage[] = []
    this.closeOpen(completed)
    return { messages: this.history, completed }
  }

  private message(event: EventLike): void {
    const m = event.message as unknown as Message | undefined
    if (m === undefined || typeof m !== 'object') return
    if (m.role === 'tool') {
      const content =
        event.content === 'tool/result'
          ? (this.results.get(m.callId)?.content ?? [
              { type: 'text' as const, text: 'The result of this call is missing from the session log.' },
            ])
          : m.content
      this.results.delete(m.callId)
      this.history.push({ role: 'tool', callId: m.callId, name: m.name, content, isError: m.isError })
      this.open = this.open.filter((c) => c.callId !== m.callId)
      return
    }
    if (m.role === 'assistant') {
      // A new reply: calls of the previous one that were never answered get their results first.
      this.closeOpen([])
      this.open = toolCallsOf(m as AssistantMessage).map((c) => ({ callId: c.callId, name: c.name }))
    } else if (this.open.length > 0) {
      // A user message can follow results only once every call is answered.
      this.closeOpen([])
    }
    this.history.push(m)
  }

  private closeOpen(completed: ToolResultMessage[]): void {
    for (const call of this.open) {
      const logged = this.results.get(call.callId)
      this.results.delete(call.callId)
      const message: ToolResultMessage = logged
        ? {
            role: 'tool',
            callId: call.callId,
            name: call.name,
            content: logged.content,
            isError: logged.isError,
          }
        : {
            role: 'tool',
            callId: call.callId,
            name: call.name,
            content: [{ type: 'text', text: INTERRUPTED_TEXT }],
            isError: true,
          }
      // Results go right after their calls' results block (before any message appended later).
      this.history.push(message)
      completed.push(message)
    }
    this.open = []
  }
}

/** Rebuild from a list of events (a log read whole; see HistoryBuilder for streams). */
export function rebuildHistory(events: Iterable<EventLike>): RebuiltHistory {
  const builder = new HistoryBuilder()
  for (const e of events) builder.push(e)
  return builder.finish()
}
