import ajvModule from 'ajv/dist/2020.js'
import { adoptFresh, materialize } from '../json/materialize.js'
import type { JsonObject, JsonValue } from '../types.js'
import type { StandardSchemaV1 } from './standard-schema.js'

// One adapter for every schema an author can write: a Standard Schema that exports JSON Schema
// (zod v4, valibot, arktype) or a plain JSON Schema object (MCP and raw tools). Everything that
// does not depend on the call — JSON Schema export, noise removal, ajv compilation — happens
// here, once, at registration; the hot path only calls `validate`.

/** A plain JSON Schema object (anything without `~standard`). */
export type JsonSchemaObject = { readonly [key: string]: unknown }
export type SchemaInput = StandardSchemaV1 | JsonSchemaObject

export type ValidationResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly issues: readonly string[] }

export interface CompiledSchema {
  /** Model-facing JSON Schema: deep-frozen, without `$schema` or generator noise. */
  readonly jsonSchema: JsonObject
  /** Validates a materialized value; the returned value is a frozen snapshot (defaults applied). */
  validate(value: JsonValue): ValidationResult | Promise<ValidationResult>
}

// ajv is CommonJS: its class is both module.exports and module.exports.default.
const Ajv2020 = ajvModule.default
type Ajv = InstanceType<typeof Ajv2020>
let ajv: Ajv | undefined
function sharedAjv(): Ajv {
  // No logger: a compile failure becomes the registration error below, not console output.
  ajv ??= new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false })
  return ajv
}

export function isStandardSchema(schema: unknown): schema is StandardSchemaV1 {
  return typeof schema === 'object' && schema !== null && '~standard' in schema
}

// Compiling is most of what registering a tool costs (JSON Schema export, ajv's code generation),
// and every session registers the same tools: a schema that cannot change is compiled once and
// reused by every runtime after. Standard Schemas are immutable values (zod, valibot and arktype
// derive new schemas and never change one); a JSON Schema object counts only when it is
// deep-frozen (textOutput's is).
// Keyed weakly: a schema nobody holds any more takes its compilation with it.
const compiled = new WeakMap<object, CompiledSchema>()

/** Compile a parameters or output schema. Throws a clear Error when it cannot be used. */
export function compileSchema(schema: SchemaInput, what: string): CompiledSchema {
  if (typeof schema !== 'object' || schema === null) {
    throw new Error(`${what} must be a Standard Schema (such as zod) or a JSON Schema object`)
  }
  const known = compiled.get(schema)
  if (known) return known
  const standard = isStandardSchema(schema)
  const result = standard ? compileStandard(schema, what) : compileJsonSchema(schema, what)
  if (standard || deepFrozen(schema, 0)) compiled.set(schema, result)
  return result
}

function deepFrozen(node: unknown, depth: number): boolean {
  if (typeof node !== 'object' || node === null) return true
  if (depth > 64 || !Object.isFrozen(node)) return false
  for (const value of Object.values(node)) if (!deepFrozen(value, depth + 1)) return false
  return true
}

function compileJsonSchema(schema: JsonSchemaObject, what: string): CompiledSchema {
  const jsonSchema = cleanJsonSchema(schema, what)
  let check: ReturnType<Ajv['compile']>
  const stripped = stripMeta(schema)
  try {
    check = sharedAjv().compile(stripped)
  } catch (error) {
    // ajv generates its validator with `new Function`; a runtime that forbids code generation (a
    // browser CSP without 'unsafe-eval', Cloudflare Workers) throws EvalError here (README "Limits").
    if (error instanceof Error && error.name === 'EvalError') {
      throw new Error(
        `${what} is a plain JSON Schema, which toolgate compiles with ajv, and ajv generates code (new Function), which this runtime forbids (${error.message}). Give the tool a Standard Schema instead (zod v4 validates without generated code there), or register it where code generation is allowed.`,
      )
    }
    throw new Error(`${what} is not a valid JSON Schema: ${(error as Error).message}`)
  } finally {
    // ajv keeps every schema it compiled (and its $id) for the life of the instance; the shared
    // instance would keep one per registration of every runtime alive or gone. The validator
    // holds what it needs; ajv forgets the rest (and a second tool may reuse the $id).
    sharedAjv().removeSchema(stripped)
  }
  return {
    jsonSchema,
    validate(value) {
      if (check(value)) return { ok: true, value }
      return { ok: false, issues: (check.errors ?? []).map(describeAjvError) }
    },
  }
}

function compileStandard(schema: StandardSchemaV1, what: string): CompiledSchema {
  const props = schema['~standard']
  const converter = props.jsonSchema
  if (!converter) {
    throw new Error(
      `${what} (${props.vendor}) cannot export JSON Schema; use a validator that implements Standard JSON Schema (zod v4, valibot, arktype) or pass a JSON Schema object`,
    )
  }
  let exported: Record<string, unknown>
  try {
    exported = converter.input({ target: 'draft-2020-12' })
  } catch (error) {
    throw new Error(`${what} cannot be exported to JSON Schema: ${(error as Error).message}`)
  }
  const jsonSchema = cleanJsonSchema(exported, what)
  const finish = (input: JsonValue, result: StandardSchemaV1.Result<unknown>): ValidationResult => {
    if (result.issues) return { ok: false, issues: result.issues.map(describeStandardIssue) }
    // Usually the output is the input's JSON value again (no defaults, nothing stripped): then
    // the input, already a frozen snapshot, is the value, and nothing more is frozen per call.
    if (sameJson(input, result.value, 0)) return { ok: true, value: input }
    // Otherwise it is a fresh object nobody else holds: check and freeze it in place.
    const snapshot = adoptFresh(result.value)
    if (!snapshot.ok) {
      return {
        ok: false,
        issues: [`the schema produced a non-JSON value: ${snapshot.path} ${snapshot.problem}`],
      }
    }
    return { ok: true, value: snapshot.value }
  }
  return {
    jsonSchema,
    validate(value) {
      const result = props.validate(value)
      return result instanceof Promise ? result.then((r) => finish(value, r)) : finish(value, result)
    },
  }
}

/**
 * Whether a validator's output holds exactly the JSON value of its (materialized) input: same
 * keys, same leaves. Reads each output property once; plain objects and arrays only.
 */
function sameJson(input: JsonValue, output: unknown, depth: number): boolean {
  if (input === output) return true
  if (typeof input !== 'object' || input === null || typeof output !== 'object' || output === null)
    return false
  if (depth >= 64) return false
  if (Array.isArray(input)) {
    if (!Array.isArray(output) || Object.getPrototypeOf(output) !== Array.prototype) return false
    if (output.length !== input.length) return false
    for (let i = 0; i < input.length; i++) if (!sameJson(input[i]!, output[i], depth + 1)) return false
    return true
  }
  if (Array.isArray(output) || Object.getPrototypeOf(output) !== Object.prototype) return false
  // for-in sees own keys plus enumerable keys of Object.prototype (none, unless polluted: then
  // the counts or the own-key check disagree and the output takes the full check).
  const record = output as Record<string, unknown>
  let count = 0
  for (const key in record) {
    if (!Object.hasOwn(input, key)) return false
    if (!sameJson((input as Record<string, JsonValue>)[key]!, record[key], depth + 1)) return false
    count++
  }
  for (const _ in input) count--
  return count === 0
}

const SAFE = Number.MAX_SAFE_INTEGER

/** Remove what only a generator or a validator needs, never the model; freeze the rest. */
function cleanJsonSchema(schema: JsonSchemaObject, what: string): JsonObject {
  const cleaned = materialize(stripMeta(schema))
  if (
    !cleaned.ok ||
    cleaned.value === null ||
    typeof cleaned.value !== 'object' ||
    Array.isArray(cleaned.value)
  ) {
    throw new Error(`${what} must be a JSON Schema object made of plain JSON`)
  }
  return cleaned.value as JsonObject
}

function stripMeta(node: unknown): Record<string, unknown> {
  return stripNode(node) as Record<string, unknown>
}

function stripNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripNode)
  if (node === null || typeof node !== 'object') return node
  const out: Record<string, unknown> = {}
  const source = node as Record<string, unknown>
  for (const key of Object.keys(source)) {
    if (key === '$schema' || key === '~standard') continue
    // zod's integer export adds the safe-integer range: true of every JSON integer we accept.
    if ((key === 'minimum' && source[key] === -SAFE) || (key === 'maximum' && source[key] === SAFE)) continue
    const value = stripNode(source[key])
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true })
    else out[key] = value
  }
  return out
}

function issuePath(path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined): string {
  if (!path || path.length === 0) return 'arguments'
  let out = 'arguments'
  for (const segment of path) {
    const key = typeof segment === 'object' ? segment.key : segment
    out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`
  }
  return out
}

function describeStandardIssue(issue: StandardSchemaV1.Issue): string {
  return `${issuePath(issue.path)}: ${issue.message}`
}

type AjvError = {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

function describeAjvError(error: AjvError): string {
  const base = `arguments${error.instancePath.replace(/\/([^/]*)/g, (_m, k: string) => (/^\d+$/.test(k) ? `[${k}]` : `.${k.replace(/~1/g, '/').replace(/~0/g, '~')}`))}`
  switch (error.keyword) {
    case 'required':
      return `${base}.${String(error.params.missingProperty)}: is required but missing`
    case 'additionalProperties':
      return `${base}.${String(error.params.additionalProperty)}: is not an allowed field; remove it`
    case 'type':
      return `${base}: expected ${String(error.params.type)}`
    case 'enum':
      return `${base}: expected one of ${JSON.stringify(error.params.allowedValues)}`
    default:
      return `${base}: ${error.message ?? 'is invalid'}`
  }
}
