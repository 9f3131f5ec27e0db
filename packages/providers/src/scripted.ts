// A deterministic model for demos and tests: replays fixed assistant turns as a real stream would
// (deltas, then complete calls, then finish), with no network.
import type { JsonValue } from '@toolgate/core'
import type { ModelClient, ModelRequest, ModelStreamEvent, Usage } from './model.js'
import type { StopReason } from './stop-reasons.js'
import { ProviderAbortedError } from './transport/errors.js'

export interface ScriptedToolCall {
  readonly name: string
  /** A value is serialized with JSON.stringify; a string is sent as is (malformed JSON allowed). */
  readonly arguments: string | JsonValue
  readonly callId?: string
}

export interface ScriptedTurn {
  readonly reasoning?: string
  readonly text?: string
  readonly toolCalls?: readonly ScriptedToolCall[]
  /** Default: 'tool_use' when there are calls, else 'done'. */
  readonly stopReason?: StopReason
  readonly rawStopReason?: string | null
  readonly usage?: Usage
}

export interface ScriptedModelOptions {
  /** Characters per text / argument delta. Default 24. */
  readonly chunkSize?: number
  readonly model?: string
}

export interface ScriptedModel extends ModelClient {
  readonly provider: 'scripted'
  /** The requests received so far, in order (what the agent sent). */
  readonly requests: readonly ModelRequest[]
  /** Turns not yet played. */
  readonly remaining: number
}

/**
 * Each `stream()` call plays the next turn; a turn may be a function of the request (to react to
 * tool results). Call ids default to `call_<turn>_<index>`. Past the last turn, `stream()` throws.
 */
export function scriptedModel(
  turns: readonly (ScriptedTurn | ((request: ModelRequest) => ScriptedTurn))[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const chunk = Math.max(1, options.chunkSize ?? 24)
  const requests: ModelRequest[] = []
  let next = 0
  return {
    provider: 'scripted',
    model: options.model ?? 'scripted',
    get requests() {
      return requests
    },
    get remaining() {
      return turns.length - next
    },
    async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelStreamEvent> {
      const turnIndex = next
      const entry = turns[turnIndex]
      if (entry === undefined)
        throw new Error(
          `scripted model: no turn left (${turns.length} played); the script expected the agent to stop`,
        )
      next++
      requests.push(request)
      const turn = typeof entry === 'function' ? entry(request) : entry
      const check = async () => {
        // A real stream yields to the event loop between chunks; so does this one, so abort is observable.
        await new Promise<void>((resolve) => setImmediate(resolve))
        if (signal?.aborted) throw new ProviderAbortedError(signal.reason)
      }
      await check()
      if (turn.reasoning) {
        for (const piece of pieces(turn.reasoning, chunk)) {
          yield { type: 'reasoning-delta', text: piece }
          await check()
        }
      }
      if (turn.text) {
        for (const piece of pieces(turn.text, chunk)) {
          yield { type: 'text-delta', text: piece }
          await check()
        }
      }
      const calls = turn.toolCalls ?? []
      for (const [i, call] of calls.entries()) {
        const callId = call.callId ?? `call_${turnIndex}_${i}`
        const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
        yield { type: 'tool-call-start', callId, name: call.name }
        for (const piece of pieces(args, chunk)) {
          yield { type: 'tool-call-delta', callId, argumentsDelta: piece }
          await check()
        }
        yield { type: 'tool-call-complete', callId, name: call.name, arguments: args, strict: false }
      }
      const stopReason = turn.stopReason ?? (calls.length > 0 ? 'tool_use' : 'done')
      const raw = turn.rawStopReason !== undefined ? turn.rawStopReason : stopReason
      yield { type: 'finish', stopReason, rawStopReason: raw, ...(turn.usage ? { usage: turn.usage } : {}) }
    },
  }
}

function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}
