import type { JsonValue } from '../types.js'
import { callerStop, GaveUp, stageStopped, waitFor } from './bounded.js'
import type { CallState, Outcome } from './state.js'

// The parameters schema, as the journey sees it. prepareCall ran the validator once (the batch
// reads a call's mode from its validated arguments); a validator that answered synchronously has
// its outcome ready, an async one is host code and is waited for within the call's bounds.

export function validate(state: CallState): Outcome<JsonValue> | Promise<Outcome<JsonValue>> {
  const prepared = state.prepared
  if (prepared.validation === undefined) return prepared.validated!
  return waitFor(
    state,
    'validation',
    prepared.validation,
    { signals: callerStop(state), budget: true },
    (waited): Outcome<JsonValue> => {
      if (waited instanceof GaveUp || (!waited.ok && waited.stopped))
        return { ok: false, ...stageStopped(state, 'validation', waited) }
      // prepareCall turns a validator's rejection into a failure: this promise never rejects.
      if (!waited.ok) throw waited.error
      return prepared.validated!
    },
  )
}
