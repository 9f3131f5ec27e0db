// How much model output one reply may assemble: text, reasoning, signatures and tool arguments,
// plus 64 characters per tool call (so an endless run of empty calls meets the same cap). What it
// counts is what a consumer accumulates (collectTurn, the agent, a terminal view), so holding it
// bounds them all. It also decides what is progress for the idle timer: an event that carries
// output. Keep-alives (comments, pings, events that decode to nothing) never reach it.
import { assertNever } from '@toolgate/core'
import type { AssistantPart } from '../messages.js'
import type { ModelStreamEvent } from '../model.js'
import { ProviderLimitError } from './errors.js'

/** Bookkeeping charged per tool call on top of its name, id and arguments. */
const CALL_COST = 64

export class OutputBudget {
  private used = 0
  /** Argument characters already charged per call (a complete event may repeat them). */
  private readonly argsSeen = new Map<string, number>()

  constructor(private readonly max: number) {}

  /** Charge one event; throws ProviderLimitError past the cap. True when the event is progress. */
  charge(event: ModelStreamEvent): boolean {
    switch (event.type) {
      case 'text-delta':
      case 'reasoning-delta':
        return this.add(event.text.length)
      case 'reasoning-signature':
        return this.add(event.signature.length)
      case 'tool-call-start':
        this.argsSeen.set(event.callId, 0)
        return this.add(CALL_COST + event.callId.length + event.name.length)
      case 'tool-call-delta':
        this.argsSeen.set(event.callId, (this.argsSeen.get(event.callId) ?? 0) + event.argumentsDelta.length)
        return this.add(event.argumentsDelta.length)
      case 'tool-call-complete': {
        // Only what the deltas did not already bring (a done event carries the whole text).
        const seen = this.argsSeen.get(event.callId)
        this.argsSeen.delete(event.callId)
        const extra = Math.max(0, event.arguments.length - (seen ?? 0))
        this.add(extra + (seen === undefined ? CALL_COST + event.callId.length + event.name.length : 0))
        return true
      }
      case 'server-block':
        // A provider-side block (tool search) is kept and replayed whole: its JSON is output too.
        return this.add(JSON.stringify(event.block).length)
      case 'finish':
        return true
      default:
        return assertNever(event)
    }
  }

  /** Charge one part of a non-streamed reply. */
  chargePart(part: AssistantPart): void {
    switch (part.type) {
      case 'text':
        this.add(part.text.length)
        return
      case 'reasoning':
        this.add(part.text.length + (part.signature?.length ?? 0))
        return
      case 'tool-call':
        this.add(CALL_COST + part.callId.length + part.name.length + part.arguments.length)
        return
      case 'server-block':
        this.add(JSON.stringify(part.block).length)
        return
      default:
        assertNever(part)
    }
  }

  private add(chars: number): boolean {
    this.used += chars
    if (this.used > this.max) throw new ProviderLimitError('maxOutputChars', this.max)
    return chars > 0
  }
}
