// An `ask` of toolgate's policy, answered by the person behind the MCP client: an elicitation
// request (form mode) with one boolean. Fail closed (DESIGN §6): a client that cannot elicit, an
// answer that is not an explicit yes, a timeout or a broken connection never runs the call.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ApprovalAnswerer, ApprovalOutcome, ApprovalRequest, JsonValue } from '@toolgate/core'

/** What the answerer needs to know about a call in flight. */
export interface PendingCall {
  readonly name: string
  readonly arguments: JsonValue | undefined
  /** The MCP request of the call, so the elicitation is related to it (Streamable HTTP routing). */
  readonly requestId: string | number
}

export interface ElicitApprovalOptions {
  readonly server: Server
  readonly call: (callId: string) => PendingCall | undefined
  /** How long the person may take to answer (default 5 minutes); then the call is not run. */
  readonly timeoutMs?: number
  readonly log?: (type: string, payload: Record<string, JsonValue>) => void
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000
const MAX_ARGUMENTS_SHOWN = 2_000

/** Thrown (not answered) so the model's result names the reason: "the approval prompt failed (...)". */
export const NO_ELICITATION =
  'the MCP client cannot show approval prompts: it did not declare the elicitation capability'

/** The form the client shows: one boolean (a fresh object per request). */
export const approvalSchema = (): {
  type: 'object'
  properties: { allow: { type: 'boolean'; title: string; description: string } }
  required: string[]
} => ({
  type: 'object',
  properties: {
    allow: {
      type: 'boolean',
      title: 'Allow this call once',
      description: 'Yes runs this one call; no refuses it.',
    },
  },
  required: ['allow'],
})

export function approvalMessage(request: ApprovalRequest, call: PendingCall | undefined): string {
  const args = call?.arguments === undefined ? '' : JSON.stringify(call.arguments)
  const shown =
    args.length > MAX_ARGUMENTS_SHOWN
      ? `${args.slice(0, MAX_ARGUMENTS_SHOWN)}… (${args.length - MAX_ARGUMENTS_SHOWN} more characters)`
      : args
  const why = request.displayReason ?? request.reason
  return clean(
    [
      `toolgate asks before running ${request.toolName}${shown === '' ? '' : ` with ${shown}`}.`,
      ...(why ? [`Why it asks: ${why}`] : []),
      'Allow this call once?',
    ].join('\n'),
  )
}

export function elicitApproval(o: ElicitApprovalOptions): ApprovalAnswerer {
  const timeout = o.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS
  return async (request): Promise<ApprovalOutcome> => {
    const log = (outcome: string, detail?: string) =>
      o.log?.('mcp-serve/approval', {
        callId: request.callId,
        tool: request.toolName,
        outcome,
        ...(detail ? { detail } : {}),
      })
    if (!o.server.getClientCapabilities()?.elicitation?.form) {
      log('unavailable', 'no elicitation capability')
      throw new Error(NO_ELICITATION)
    }
    const call = o.call(request.callId)
    let result: { action: string; content?: Record<string, unknown> }
    try {
      result = await o.server.elicitInput(
        { mode: 'form', message: approvalMessage(request, call), requestedSchema: approvalSchema() },
        {
          signal: request.signal,
          timeout,
          ...(call ? { relatedRequestId: call.requestId } : {}),
        },
      )
    } catch (error) {
      // The call was cancelled while the person was deciding: nothing ran, say so.
      if (request.signal.aborted) {
        log('cancelled', 'the call was cancelled while waiting for the answer')
        return 'cancelled'
      }
      const message = error instanceof Error ? error.message : String(error)
      log('unavailable', message)
      throw new Error(`the MCP client did not answer the approval request (${message})`)
    }
    const outcome: ApprovalOutcome =
      result.action === 'accept'
        ? result.content?.allow === true
          ? 'allowed-once'
          : 'rejected'
        : result.action === 'cancel'
          ? 'cancelled'
          : 'rejected'
    log(outcome, `action ${result.action}`)
    return outcome
  }
}

/** The message is shown by the client: no control characters from model-chosen arguments. */
function clean(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
}
