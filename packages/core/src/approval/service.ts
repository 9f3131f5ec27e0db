import { describeThrown } from '../errors/failures.js'
import { disposable } from '../registry/disposable.js'
import type { ApprovalOutcome, ApprovalRequest, Disposable } from '../types.js'

// `ask` is one-shot: only 'allowed-once' lets this one call run (seed 001 §6.9). Everything
// else — no answerer, a headless policy, an answerer that throws or answers nonsense — closes
// as a refusal, each with its own reason so the model and the log say what really happened.

export type ApprovalPolicy = 'on-request' | 'never'
export type ApprovalAnswerer = (request: ApprovalRequest) => Promise<ApprovalOutcome> | ApprovalOutcome

/** What the pipeline gets back: the outcome and, when unavailable, why. */
export type ApprovalDecision =
  | { readonly outcome: 'allowed-once' | 'rejected' | 'cancelled' }
  | { readonly outcome: 'unavailable'; readonly why: string }

export interface ApprovalService {
  readonly policy: ApprovalPolicy
  /** Register an answerer; the most recently registered one answers. */
  answer(answerer: ApprovalAnswerer): Disposable
  request(request: ApprovalRequest): Promise<ApprovalDecision>
}

const OUTCOMES = new Set<string>(['allowed-once', 'rejected', 'cancelled', 'unavailable'])

export function createApprovalService(options?: { policy?: ApprovalPolicy }): ApprovalService {
  const policy = options?.policy ?? 'on-request'
  const answerers: ApprovalAnswerer[] = []
  return {
    policy,
    answer(answerer) {
      answerers.push(answerer)
      return disposable(() => {
        const index = answerers.lastIndexOf(answerer)
        if (index >= 0) answerers.splice(index, 1)
      })
    },
    async request(request) {
      if (policy === 'never') {
        return { outcome: 'unavailable', why: "the session is non-interactive (approval policy 'never')" }
      }
      const answerer = answerers[answerers.length - 1]
      if (!answerer)
        return { outcome: 'unavailable', why: 'no one is available to answer the approval prompt' }
      let outcome: unknown
      try {
        outcome = await answerer(Object.freeze({ ...request }))
      } catch (error) {
        return { outcome: 'unavailable', why: `the approval prompt failed (${describeThrown(error)})` }
      }
      if (typeof outcome !== 'string' || !OUTCOMES.has(outcome)) {
        return { outcome: 'unavailable', why: 'the approval prompt gave no valid answer' }
      }
      if (outcome === 'unavailable') return { outcome, why: 'the approval prompt was unavailable' }
      return { outcome: outcome as 'allowed-once' | 'rejected' | 'cancelled' }
    },
  }
}
