// Fold a model stream into the assistant message that goes into the history.
import type { AssistantMessage, AssistantPart } from './messages.js'
import type { ModelStreamEvent, Usage } from './model.js'
import { type StopDecision, type StopReason, stopDecision } from './stop-reasons.js'

export interface CollectedTurn {
  readonly message: AssistantMessage
  readonly stopReason: StopReason
  readonly rawStopReason: string | null
  readonly usage?: Usage
  /** What the agent does next (run the calls, stop, reply to truncated calls, ...). */
  readonly decision: StopDecision
  /** Call ids of complete calls whose tool was sent strict (apply normalizeArgs before validation). */
  readonly strictCalls: ReadonlySet<string>
}

type Slot =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; signature?: string }
  | { kind: 'call'; callId: string; name: string; arguments?: string }
  | { kind: 'server'; part: Extract<AssistantPart, { type: 'server-block' }> }

/**
 * Collect a stream into the final assistant message (parts in stream order; a tool call keeps the
 * position where it started). Calls that started but never completed are left out. Throws whatever
 * the stream throws, and if it ends without a `finish` event.
 */
export async function collectTurn(
  events: AsyncIterable<ModelStreamEvent>,
  onEvent?: (event: ModelStreamEvent) => void,
): Promise<CollectedTurn> {
  const slots: Slot[] = []
  const calls = new Map<string, Extract<Slot, { kind: 'call' }>>()
  const strictCalls = new Set<string>()
  let finish: Extract<ModelStreamEvent, { type: 'finish' }> | undefined
  for await (const event of events) {
    onEvent?.(event)
    const last = slots[slots.length - 1]
    switch (event.type) {
      case 'text-delta':
        if (last?.kind === 'text') last.text += event.text
        else slots.push({ kind: 'text', text: event.text })
        break
      case 'reasoning-delta':
        if (last?.kind === 'reasoning' && last.signature === undefined) last.text += event.text
        else slots.push({ kind: 'reasoning', text: event.text })
        break
      case 'reasoning-signature': {
        const r = [...slots].reverse().find((s) => s.kind === 'reasoning')
        if (r?.kind === 'reasoning') r.signature = event.signature
        break
      }
      case 'tool-call-start': {
        const slot = { kind: 'call' as const, callId: event.callId, name: event.name }
        calls.set(event.callId, slot)
        slots.push(slot)
        break
      }
      case 'tool-call-delta':
        break
      case 'server-block':
        slots.push({
          kind: 'server',
          part: { type: 'server-block', provider: event.provider, block: event.block },
        })
        break
      case 'tool-call-complete': {
        let slot = calls.get(event.callId)
        if (!slot) {
          slot = { kind: 'call', callId: event.callId, name: event.name }
          calls.set(event.callId, slot)
          slots.push(slot)
        }
        slot.arguments = event.arguments
        if (event.strict) strictCalls.add(event.callId)
        break
      }
      case 'finish':
        finish = event
        break
      default: {
        const never: never = event
        throw new Error(`unknown stream event ${JSON.stringify(never)}`)
      }
    }
  }
  if (!finish) throw new Error('the model stream ended without a finish event')
  const parts: AssistantPart[] = []
  for (const s of slots) {
    if (s.kind === 'text') parts.push({ type: 'text', text: s.text })
    else if (s.kind === 'reasoning')
      parts.push({
        type: 'reasoning',
        text: s.text,
        ...(s.signature !== undefined ? { signature: s.signature } : {}),
      })
    else if (s.kind === 'server') parts.push(s.part)
    else if (s.arguments !== undefined)
      parts.push({ type: 'tool-call', callId: s.callId, name: s.name, arguments: s.arguments })
  }
  const callCount = parts.filter((p) => p.type === 'tool-call').length
  return {
    message: { role: 'assistant', parts },
    stopReason: finish.stopReason,
    rawStopReason: finish.rawStopReason,
    ...(finish.usage ? { usage: finish.usage } : {}),
    decision: stopDecision(finish.stopReason, callCount, finish.rawStopReason),
    strictCalls,
  }
}
