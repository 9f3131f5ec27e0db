// Foreign schemas (issue 16 §3; in core so every package that meets plain JSON Schema — the MCP
// bridge, the provider dialects — normalizes the same way): MCP servers and raw tools send whatever JSON Schema their
// generator emits — draft-03/04/06/07 forms, OpenAPI's `nullable`, no root type, `{}` for a tool
// without arguments. This turns them into the 2020-12 form the validator (ajv 2020) and
// `toProviderSchema` work on, and says what it changed. It never throws: a schema it cannot use
// comes back as a problem naming the path, so the caller leaves out that one tool.
import type { JsonObject, JsonValue } from '../types.js'

type Node = { [key: string]: JsonValue }

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** RFC 6901 escaping of one reference token. */
function pointer(base: string, ...tokens: (string | number)[]): string {
  let out = base
  for (const t of tokens) out += `/${String(t).replaceAll('~', '~0').replaceAll('/', '~1')}`
  return out
}

export interface SchemaNote {
  /** JSON pointer of the node in the original schema. */
  readonly path: string
  readonly message: string
}

export type NormalizedSchema =
  | { readonly ok: true; readonly schema: JsonObject; readonly notes: readonly SchemaNote[] }
  | { readonly ok: false; readonly path: string; readonly problem: string }

/** Deeper schemas are refused (a cap on hostile input; real tools stay far below). */
export const MAX_SCHEMA_DEPTH = 64
/** Nodes per schema. */
export const MAX_SCHEMA_NODES = 20_000

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const
const SCHEMA_VALUES = [
  'additionalProperties',
  'items',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const

class Refused extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(problem)
  }
}

/**
 * Normalize a tool's parameters schema. `root: 'object'` (tool parameters) also gives a missing
 * or empty root `type: "object"`; `root: 'any'` leaves the root's type alone (output schemas).
 */
export function normalizeSchema(input: unknown, options: { root?: 'object' | 'any' } = {}): NormalizedSchema {
  const notes: SchemaNote[] = []
  const state = { nodes: 0 }
  let schema: JsonValue
  if (input === undefined || input === null || input === true) {
    if (options.root !== 'any') {
      notes.push({ path: '', message: 'no schema: taken as an object without arguments' })
      return { ok: true, schema: { type: 'object', properties: {} }, notes }
    }
    return { ok: true, schema: {}, notes }
  }
  if (!isObject(input as JsonValue)) {
    return { ok: false, path: '', problem: `the schema is ${describeValue(input)}, not a JSON Schema object` }
  }
  try {
    schema = walk(input as JsonObject, '', 0, notes, state)
  } catch (error) {
    if (error instanceof Refused) return { ok: false, path: error.path, problem: error.problem }
    throw error
  }
  let root = schema as Node
  if (options.root !== 'any') {
    const t = root.type
    if (
      t === undefined &&
      !('$ref' in root) &&
      !('anyOf' in root) &&
      !('oneOf' in root) &&
      !('allOf' in root)
    ) {
      notes.push({ path: '', message: 'no root type: taken as type "object"' })
      root = { type: 'object', ...root }
    }
    if (root.type === 'object' && !('properties' in root)) root = { ...root, properties: {} }
  }
  return { ok: true, schema: root, notes }
}

function describeValue(v: unknown): string {
  if (Array.isArray(v)) return 'an array'
  if (v === false) return '`false` (accepts nothing)'
  return typeof v === 'string' ? 'a string' : typeof v
}

function walk(
  node: JsonValue,
  path: string,
  depth: number,
  notes: SchemaNote[],
  state: { nodes: number },
): JsonValue {
  if (typeof node === 'boolean') return node
  if (!isObject(node))
    throw new Refused(path, `expected a schema (object or boolean), got ${describeValue(node)}`)
  if (depth > MAX_SCHEMA_DEPTH)
    throw new Refused(path, `the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`)
  if (++state.nodes > MAX_SCHEMA_NODES)
    throw new Refused(path, `the schema has more than ${MAX_SCHEMA_NODES} nodes`)
  const note = (message: string) => notes.push({ path, message })
  const out: Node = {}
  const requiredFromProps: string[] = []

  for (const [key, value] of Object.entries(node)) {
    if (key === '__proto__') continue
    switch (key) {
      case '$schema':
      case 'id':
        // Draft-04 `id` and `$schema` are metadata; the validator works in 2020-12.
        if (key === 'id' && typeof value !== 'string') out[key] = value
        break
      case 'type':
        if (value === 'any') note('draft-03 type "any": the type is left open')
        else if (Array.isArray(value) && value.includes('any'))
          note('draft-03 type "any": the type is left open')
        else out.type = value
        break
      case 'required':
        // Draft-03: `required: true` on the property itself.
        if (typeof value === 'boolean') break
        out.required = value
        break
      case 'divisibleBy':
        note('draft-03 divisibleBy -> multipleOf')
        out.multipleOf = value
        break
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'boolean') {
          const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum'
          if (value && typeof node[bound] === 'number') {
            note(`draft-04 boolean ${key} -> ${key}: ${node[bound]}`)
            out[key] = node[bound] as number
          }
        } else out[key] = value
        break
      case 'minimum':
      case 'maximum': {
        const exclusive = node[key === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum']
        if (exclusive === true) break
        out[key] = value
        break
      }
      case 'nullable':
        if (value === true) note('OpenAPI nullable -> "null" added to the type')
        break
      case 'definitions':
        note('definitions -> $defs')
        out.$defs = walkMap(value, pointer(path, key), depth, notes, state, out.$defs)
        break
      case '$ref':
        out.$ref =
          typeof value === 'string' && value.startsWith('#/definitions/')
            ? `#/$defs/${value.slice('#/definitions/'.length)}`
            : value
        break
      case 'items':
        if (Array.isArray(value)) {
          note('array-form items (tuple) -> prefixItems')
          out.prefixItems = value.map((s, i) => walk(s, pointer(path, key, i), depth + 1, notes, state))
          if ('additionalItems' in node)
            out.items = walk(
              node.additionalItems as JsonValue,
              pointer(path, 'additionalItems'),
              depth + 1,
              notes,
              state,
            )
        } else out.items = walk(value, pointer(path, key), depth + 1, notes, state)
        break
      case 'additionalItems':
        // Only meaningful next to array-form items (handled there); alone it does nothing.
        break
      case 'dependencies':
        if (isObject(value)) {
          note('dependencies -> dependentRequired / dependentSchemas')
          for (const [prop, dep] of Object.entries(value)) {
            if (Array.isArray(dep)) {
              out.dependentRequired = { ...((out.dependentRequired as Node) ?? {}), [prop]: dep }
            } else {
              out.dependentSchemas = {
                ...((out.dependentSchemas as Node) ?? {}),
                [prop]: walk(dep, pointer(path, key, prop), depth + 1, notes, state),
              }
            }
          }
        }
        break
      default:
        if ((SCHEMA_MAPS as readonly string[]).includes(key)) {
          out[key] = walkMap(value, pointer(path, key), depth, notes, state, out[key])
          if (key === 'properties' && isObject(value)) {
            for (const [prop, sub] of Object.entries(value))
              if (isObject(sub) && sub.required === true) requiredFromProps.push(prop)
          }
        } else if ((SCHEMA_VALUES as readonly string[]).includes(key)) {
          out[key] = walk(value, pointer(path, key), depth + 1, notes, state)
        } else if ((SCHEMA_LISTS as readonly string[]).includes(key)) {
          if (!Array.isArray(value))
            throw new Refused(pointer(path, key), `\`${key}\` must be an array of schemas`)
          out[key] = value.map((s, i) => walk(s, pointer(path, key, i), depth + 1, notes, state))
        } else out[key] = value
    }
  }

  if (requiredFromProps.length > 0) {
    note(`draft-03 required: true on properties -> required: ${JSON.stringify(requiredFromProps)}`)
    const existing = Array.isArray(out.required) ? (out.required as string[]) : []
    out.required = [...new Set([...existing, ...requiredFromProps])]
  }
  if (node.nullable === true) addNull(out)
  return out
}

function walkMap(
  value: JsonValue,
  path: string,
  depth: number,
  notes: SchemaNote[],
  state: { nodes: number },
  existing: JsonValue | undefined,
): JsonValue {
  if (!isObject(value)) throw new Refused(path, 'must be an object of schemas')
  const out: Node = isObject(existing) ? { ...existing } : {}
  for (const [name, sub] of Object.entries(value)) {
    if (name === '__proto__') throw new Refused(pointer(path, name), 'the name "__proto__" is not supported')
    out[name] = walk(sub, pointer(path, name), depth + 1, notes, state)
  }
  return out
}

/** OpenAPI `nullable: true` -> JSON Schema null. */
function addNull(out: Node): void {
  const t = out.type
  if (typeof t === 'string') out.type = t === 'null' ? t : [t, 'null']
  else if (Array.isArray(t)) {
    if (!t.includes('null')) out.type = [...t, 'null']
  } else if (t === undefined && ('$ref' in out || 'anyOf' in out || 'oneOf' in out || 'enum' in out)) {
    const inner: Node = { ...out }
    delete inner.description
    for (const key of Object.keys(out)) if (key !== 'description') delete out[key]
    out.anyOf = [inner, { type: 'null' }]
    return
  }
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
}
