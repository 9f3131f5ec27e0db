import { failures } from '../errors/failures.js'
import { materialize, parseJson } from '../json/materialize.js'
import type { AgentView, FilterContext, RegisteredTool, Registry } from '../registry/registry.js'
import type { ValidationResult } from '../schema/compile.js'
import type { JsonValue, ParentToken, ToolCall, ToolFailure } from '../types.js'
import { exampleArguments, unknownParameterIssues, unknownParameters } from './parameter-hints.js'
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
  /** Logged with `tool/call` instead of `arguments` when a JSON text did not parse. */
  readonly argumentsText?: string
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
  const argumentsText = !snapshot.ok && typeof raw === 'string' ? raw : undefined

  // A parent token is only honoured while the outer call it names is running: it cannot be forged.
  const parent = call.parent !== undefined && parentLive(call.parent) ? call.parent : undefined
  const agent = call.agent
  const filterContext: FilterContext =
    parent === undefined
      ? agent === undefined
        ? NO_CONTEXT
        : { agent }
      : agent === undefined
        ? { parent }
        : { agent, parent }
  const tool = typeof call.name === 'string' ? registry.find(view, call.name, filterContext) : undefined
  if (!tool) {
    const name = String(call.name)
    const found = typeof call.name === 'string' ? registry.lookup(view, call.name, filterContext) : {}
    const hint = 'hint' in found ? found.hint : undefined
    const failure = failures.unknownTool(
      name,
      closestNames(name, registry.visibleNames(view, filterContext)),
      hint,
    )
    return failed({ view, args, failure }, argumentsText, parent)
  }
  if (isEmpty(raw, snapshot)) {
    const { required, example } = exampleArguments(tool.parameters.jsonSchema)
    if (required.length > 0 || args === null) {
      const failure = failures.emptyArguments(tool.name, required, example)
      return failed({ view, tool, args, failure }, argumentsText, parent)
    }
  }
  if (!snapshot.ok) {
    const failure =
      typeof raw === 'string'
        ? failures.invalidJson(tool.name, snapshot.problem)
        : failures.notLossless(tool.name, snapshot.path, snapshot.problem)
    return failed({ view, tool, args, failure }, argumentsText, parent)
  }
  // Built by assignment (no conditional spreads): this runs once per call.
  const prepared: { -readonly [K in keyof Prepared]: Prepared[K] } = { view, tool, args }
  if (parent) prepared.parent = parent
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
  if (result instanceof Promise) {
    prepared.validation = result.then(
      (r) => {
        prepared.validated = validation(tool, snapshot.value, r)
      },
      (error: unknown) => {
        prepared.validated = {
          ok: false,
          failure: failures.exception(tool.name, 'parameters validation', String(error)),
        }
      },
    )
  } else prepared.validated = validation(tool, snapshot.value, result)
  return prepared
}

const NO_CONTEXT: FilterContext = Object.freeze({})

/**
 * `""`, whitespace, `null` or `{}`: a model that lost track of the call (seed 003 §4.5 F1). The
 * caller answers each with the schema's example, except `{}` for a tool that requires nothing
 * (a valid call).
 */
function isEmpty(raw: unknown, snapshot: { ok: boolean; value?: JsonValue }): boolean {
  if (typeof raw === 'string' && raw.trim() === '') return true
  if (!snapshot.ok) return false
  const value = snapshot.value
  if (value === null) return typeof raw === 'string'
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0
}

/**
 * The validator's verdict, plus unknown parameters (issue 17). A key the schema does not declare
 * is named with the parameter it was probably meant to be, and fails the call when the validator
 * rejected it (a strict schema) or dropped it (zod's default object strips unknown keys, so the
 * call would run without what the model meant). A schema that lets undeclared keys through
 * (plain JSON Schema without `additionalProperties`, as MCP servers write them) hands them to
 * the tool as it asked; they are only named when the call fails for another reason.
 */
function validation(tool: RegisteredTool, args: JsonValue, r: ValidationResult): Prepared['validated'] {
  const schema = tool.parameters.jsonSchema
  const unknown = unknownParameters(schema, args)
  if (unknown === undefined) {
    return r.ok ? r : { ok: false, failure: failures.schemaViolation(tool.name, r.issues) }
  }
  if (r.ok) {
    const kept = r.value
    if (typeof kept === 'object' && kept !== null && unknown.every((key) => Object.hasOwn(kept, key)))
      return r
  }
  const named = new Set(unknown.map((key) => `arguments.${key}:`))
  const others = r.ok ? [] : r.issues.filter((issue) => !named.has(issue.slice(0, issue.indexOf(':') + 1)))
  const issues = [...unknownParameterIssues(tool.name, schema, unknown), ...others]
  return { ok: false, failure: failures.schemaViolation(tool.name, issues) }
}

function failed(
  prepared: { -readonly [K in keyof Prepared]: Prepared[K] },
  argumentsText: string | undefined,
  parent: ParentToken | undefined,
): Prepared {
  if (argumentsText !== undefined) prepared.argumentsText = argumentsText
  if (parent) prepared.parent = parent
  return prepared
}
