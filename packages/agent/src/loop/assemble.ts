// Folds a model stream into the assistant message as it arrives, and keeps what it has when the
// stream throws (abort, cut connection): providers' collectTurn only answers at the end. Parts
// keep stream order; a call keeps the position where it started; a call that never completed is
// left out of the message (it has no arguments to send back, and leaving it out keeps the history
// valid in all three wire formats — no tool_use / tool_call / function_call without its result).
import type { AssistantMessage, AssistantPart, ModelStreamEvent, ToolCallPart } from '@toolgate/providers'

type Slot =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; signature?: string }
  | { kind: 'call'; callId: string; name: string; arguments?: string; strict?: boolean }
  /** A provider's own server block (native tool search): kept in order for replay, never run. */
  | { kind: 'server'; part: Extract<AssistantPart, { type: 'server-block' }> }

export class TurnAssembler {
  private readonly slots: Slot[] = []
  private readonly calls = new Map<string, Extract<Slot, { kind: 'call' }>>()
  finish: Extract<ModelStreamEvent, { type: 'finish' }> | undefined

  /** Returns the call that just completed, if any. */
  push(event: ModelStreamEvent): { part: ToolCallPart; strict: boolean } | undefined {
    const last = this.slots[this.slots.length - 1]
    switch (event.type) {
      case 'text-delta':
        if (last?.kind === 'text') last.text += event.text
        else this.slots.push({ kind: 'text', text: event.text })
        return undefined
      case 'reasoning-delta':
        if (last?.kind === 'reasoning' && last.signature === undefined) last.text += event.text
        else this.slots.push({ kind: 'reasoning', text: event.text })
        return undefined
      case 'reasoning-signature': {
        for (let i = this.slots.length - 1; i >= 0; i--) {
          const s = this.slots[i]!
          if (s.kind === 'reasoning') {
            s.signature = event.signature
            break
          }
        }
        return undefined
      }
      case 'tool-call-start': {
        if (this.calls.has(event.callId)) return undefined
        const slot = { kind: 'call' as const, callId: event.callId, name: event.name }
        this.calls.set(event.callId, slot)
        this.slots.push(slot)
        return undefined
      }
      case 'tool-call-delta':
        return undefined
      case 'server-block':
        this.slots.push({
          kind: 'server',
          part: { type: 'server-block', provider: event.provider, block: event.block },
        })
        return undefined
      case 'tool-call-complete': {
        let slot = this.calls.get(event.callId)
        if (!slot) {
          slot = { kind: 'call', callId: event.callId, name: event.name }
          this.calls.set(event.callId, slot)
          this.slots.push(slot)
        }
        // A provider that repeats a completion must not run the call twice.
        if (slot.arguments !== undefined) return undefined
        slot.arguments = event.arguments
        slot.strict = event.strict
        return {
          part: { type: 'tool-call', callId: event.callId, name: event.name, arguments: event.arguments },
          strict: event.strict,
        }
      }
      case 'finish':
        this.finish = event
        return undefined
      default: {
        const never: never = event
        throw new Error(`unknown stream event ${JSON.stringify(never)}`)
      }
    }
  }

  /** The assistant message so far: text, reasoning and complete calls, in stream order. */
  message(): AssistantMessage {
    const parts: AssistantPart[] = []
    for (const s of this.slots) {
      if (s.kind === 'text') {
        if (s.text !== '') parts.push({ type: 'text', text: s.text })
      } else if (s.kind === 'reasoning') {
        parts.push({
          type: 'reasoning',
          text: s.text,
          ...(s.signature !== undefined ? { signature: s.signature } : {}),
        })
      } else if (s.kind === 'server') {
        parts.push(s.part)
      } else if (s.arguments !== undefined) {
        parts.push({ type: 'tool-call', callId: s.callId, name: s.name, arguments: s.arguments })
      }
    }
    return { role: 'assistant', parts }
  }

  /** Complete calls in message (model) order. */
  orderedCalls(): ToolCallPart[] {
    return this.message().parts.filter((p): p is ToolCallPart => p.type === 'tool-call')
  }

  /**
   * Complete calls in model order. While the reply is still streaming (`sealedOnly`), only calls
   * that are sealed: complete, with every earlier call complete (a later call that completed first
   * — OpenAI interleaves by index — waits), and followed by another block. The last block of a reply
   * is the only one the token limit can cut, so a call with a block after it was not cut; the last
   * call waits for the stop reason, and a cut reply never runs it (seed 003 §7.6: no speculation).
   */
  readyCalls(sealedOnly: boolean): { part: ToolCallPart; strict: boolean }[] {
    const out: { part: ToolCallPart; strict: boolean }[] = []
    for (const [i, s] of this.slots.entries()) {
      if (s.kind !== 'call') continue
      if (s.arguments === undefined || (sealedOnly && i === this.slots.length - 1)) {
        if (sealedOnly) break
        continue
      }
      out.push({
        part: { type: 'tool-call', callId: s.callId, name: s.name, arguments: s.arguments },
        strict: s.strict === true,
      })
    }
    return out
  }
}
