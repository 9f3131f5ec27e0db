// Stage 2 of a turn, execute: send the request and fold the reply as it streams. Text and
// reasoning are forwarded as they arrive; each call is announced (`tool-call`, with its card) the
// moment it completes and handed to the turn's executor in model order — in streaming mode a call
// starts as soon as a later block seals it (seed 003 §7), otherwise the executor only collects.
// A stream that throws or stops without a finish event keeps what it delivered: the assistant
// message holds the complete calls, and every one of them reaches the executor (handOverRest), so
// the next stage can answer each exactly once. Calls that never completed are not in the message and never run.
import type { JsonValue, ParentToken, ToolCall, ToolSchema } from '@toolgate/core'
import { type AssistantMessage, normalizeArgs, type ToolCallPart } from '@toolgate/providers'
import type { ApprovalEvents } from './approval-events.js'
import { TurnAssembler } from './assemble.js'
import type { RunState } from './run-state.js'
import { TurnExecutor } from './turn-executor.js'
import type { TurnRequest } from './turn-request.js'

export interface StreamedTurn {
  readonly assembler: TurnAssembler
  readonly executor: TurnExecutor
  /** The assistant message as far as the stream came (already appended when it has parts). */
  readonly message: AssistantMessage
  /** Its complete calls, in model order: the ones the next stage answers. */
  readonly calls: readonly ToolCallPart[]
  /** Set when the stream threw or ended without a finish event. */
  readonly streamError: unknown
  /**
   * Hand the calls not handed yet (the last one, in streaming mode) to the executor. The next stage
   * calls it in the same synchronous section as the executor's finish, cancel or drop: a call
   * handed earlier, across an await, could start before a cut reply's drop() stops it.
   */
  readonly handOverRest: () => void
}

export async function streamTurn(
  run: RunState,
  turn: TurnRequest,
  approvals: ApprovalEvents,
): Promise<StreamedTurn> {
  const { o, runtime, signal, cards, emit } = run
  const agent = o.agent
  const rawArgs = new Map<string, string>()
  const executor = new TurnExecutor({
    runtime,
    signal,
    streaming: o.streamingExecution === true,
    ...(o.maxParallel === undefined ? {} : { maxParallel: o.maxParallel }),
    definition: (call) => cards.definition(call.name, agent),
    onSettled: (r) => {
      approvals.poll()
      const view = cards.result(r.name, agent, rawArgs.get(r.callId) ?? '', r)
      emit({
        type: 'tool-result',
        turn: run.turn,
        callId: r.callId,
        name: r.name,
        result: r,
        ...(view ? { view } : {}),
      })
    },
  })
  const assembler = new TurnAssembler()
  // Calls are handed to the executor in model (message) order.
  let handed = 0
  const handOver = (all: boolean) => {
    const ready = assembler.readyCalls(!all)
    for (; handed < ready.length; handed++) {
      const { part, strict } = ready[handed]!
      executor.add(toCall(part, strict, turn.schemaOf(part.name), agent, o.parent))
    }
  }

  let streamError: unknown
  try {
    for await (const event of o.model.stream(turn.request, signal)) {
      const completed = assembler.push(event)
      if (event.type === 'text-delta') emit({ type: 'text-delta', turn: run.turn, text: event.text })
      else if (event.type === 'reasoning-delta')
        emit({ type: 'reasoning-delta', turn: run.turn, text: event.text })
      if (completed) {
        const { callId, name, arguments: args } = completed.part
        approvals.track(callId)
        rawArgs.set(callId, args)
        const view = cards.call(name, agent, args)
        emit({ type: 'tool-call', turn: run.turn, callId, name, arguments: args, ...(view ? { view } : {}) })
      }
      // A new block seals the calls before it: they can start (streaming mode).
      if (event.type !== 'tool-call-delta') handOver(false)
      if (signal.aborted) break
    }
    if (!signal.aborted && !assembler.finish)
      streamError = new Error('the model stream ended without a finish event')
  } catch (error) {
    streamError = error
  }

  const message = assembler.message()
  if (message.parts.length > 0) run.append(message)
  // Every complete call reaches the executor (handOverRest); calls that never completed are not
  // in the message and are never run.
  const calls = assembler.orderedCalls()
  return { assembler, executor, message, calls, streamError, handOverRest: () => handOver(true) }
}

/** A complete call as the runtime takes it; strict-mode arguments normalized by the schema. */
function toCall(
  part: ToolCallPart,
  strict: boolean,
  schema: ToolSchema | undefined,
  agent: string | undefined,
  parent: ParentToken | undefined,
): ToolCall {
  let args: string | JsonValue = part.arguments
  if (strict && schema) {
    try {
      args = normalizeArgs(JSON.parse(part.arguments) as JsonValue, schema.parameters)
    } catch {
      // Malformed JSON stays raw: the runtime reports INVALID_ARGS with the parse error.
    }
  }
  return {
    callId: part.callId,
    name: part.name,
    arguments: args,
    ...(agent === undefined ? {} : { agent }),
    ...(parent === undefined ? {} : { parent }),
  }
}
