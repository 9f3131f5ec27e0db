import { failures } from '../errors/failures.js'
import { materialize, parseJson } from '../json/materialize.js'
import type { AgentView, RegisteredTool, Registry } from '../registry/registry.js'
import type { JsonValue, ParentToken, ToolCall, ToolFailure } from '../types.js'
import { closestNames } from './suggest.js'

// Lookup, materialize and validate: everything that depends only on the call, done once. The
// batch scheduler prepares each call, reads its mode from the result and hands the same result
// to the pipeline, so a JSON string is parsed exactly once. (No WeakMap cache keyed by call: its
// ephemeron bookkeeping costs more GC time per call than the whole rest of the pipeline.)

export type Prepared = {
  readonly view: AgentView
  readonly tool?: RegisteredTool
  /** Materialized arguments (what listeners and the log see), or null when they are not JSON. */
  readonly args: JsonValue
  /** Logged with `tool/call`: the value, or the raw text when it did not parse. */
  readonly logged: { readonly arguments: JsonValue } | { readonly argumentsText: string }
  /** The call's parent token when it is genuine (names a running execution); else undefined. */
  readonly parent?: ParentToken
  /** Set when lookup or materialization failed: the call ends here. */
  readonly failure?: ToolFailure
  /** Validation: the schema's output value, or a failure; a promise when the validator is async. */
  validated?:
    | { readonly ok: true; readonly value: JsonValue }
    | { readonly ok: false; readonly failure: ToolFailure }
  validation?: Promise<void>
}

export function prepareCall(
  registry: Registry,
  call: ToolCall,
  parentLive: (p: ParentToken) => boolean,
): Prepared {
  const view = registry.view(call.agent)
  const raw = call.arguments
  const snapshot = typeof raw === 'string' ? parseJson(raw) : materialize(raw)
  const args = snapshot.ok ? snapshot.value : null
  const logged = snapshot.ok
    ? { arguments: snapshot.value }
    : typeof raw === 'string'
      ? { argumentsText: raw }
      : { arguments: null }

  // A parent token is only honoured while the outer call it names is running: it cannot be forged.
  const parent = call.parent !== undefined && parentLive(call.parent) ? call.parent : undefined
  // Built by assignment (no conditional spreads): this runs once per call.
  const context: { agent?: string; parent?: ParentToken } = {}
  if (call.agent !== undefined) context.agent = call.agent
  if (parent) context.parent = parent
  const found = typeof call.name === 'string' ? registry.lookup(view, call.name, context) : {}
  if (!found.tool) {
    const name = String(call.name)
    const hint = 'hint' in found ? found.hint : undefined
    const failure = failures.unknownTool(name, closestNames(name, registry.visibleNames(view, context)), hint)
    return { view, args, logged, failure, ...(parent ? { parent } : {}) }
  }
  const tool = found.tool
  if (!snapshot.ok) {
    const failure =
      typeof raw === 'string'
        ? failures.invalidJson(tool.name, snapshot.problem)
        : failures.notLossless(tool.name, snapshot.path, snapshot.problem)
    return { view, tool, args, logged, failure, ...(parent ? { parent } : {}) }
  }
  const prepared: Prepared = parent ? { view, tool, args, logged, parent } : { view, tool, args, logged }
  let result: ReturnType<RegisteredTool['parameters']['validate']>
  try {
    result = tool.parameters.validate(snapshot.value)
  } catch (error) {
    prepared.validated = {
      ok: false,
      failure: failures.exception(tool.name, 'parameters validation', String(error)),
    }
    return prepared
  }
  const settle = (r: Awaited<typeof result>) => {
    prepared.validated = r.ok ? r : { ok: false, failure: failures.schemaViolation(tool.name, r.issues) }
  }
  if (result instanceof Promise) {
    prepared.validation = result.then(settle, (error: unknown) => {
      prepared.validated = {
        ok: false,
        failure: failures.exception(tool.name, 'parameters validation', String(error)),
      }
    })
  } else settle(result)
  return prepared
}
