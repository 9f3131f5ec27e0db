// The schema dialect compiler (seed 003 §11.1: a tree rewrite, not a switch). Every node is visited:
// nested objects, array items, union branches and $defs, so a nested object can never reach the
// provider unrewritten (§11.3 🔴).
import type { JsonObject, JsonValue } from '@toolgate/core'
import { SchemaDialectError } from './dialect-error.js'
import { DIALECTS, type DialectProfile, type SchemaDialect, STRUCTURAL_UNSUPPORTED } from './dialects.js'
import { isObject, jsonTypeOf, type Node, pointer, resolveRef, typesOf } from './json-schema.js'

/** Keywords that are generator metadata, not protocol (seed 003 §11.2: `$schema` burns tokens). */
const METADATA = new Set(['$schema', '$id', '$comment'])
/** zod emits these bounds for every `.int()`; they carry no information for the model. */
const SAFE_INT = Number.MAX_SAFE_INTEGER

interface Ctx {
  readonly dialect: SchemaDialect
  readonly profile: DialectProfile
  readonly root: JsonObject
  /** $ref targets being inlined (gemini) or followed (anthropic-strict), for recursion detection. */
  readonly refStack: string[]
  properties: number
}

/**
 * Rewrite a tool's JSON Schema into what `dialect` accepts. Pure; the input is not modified.
 * Throws SchemaDialectError (with `.keyword` and `.path`) when the dialect cannot express it.
 */
export function toProviderSchema(schema: JsonObject, dialect: SchemaDialect): JsonObject {
  const profile: DialectProfile = DIALECTS[dialect]
  const ctx: Ctx = { dialect, profile, root: schema, refStack: [], properties: 0 }
  if (profile.strict) {
    const types = typesOf(schema)
    if (types?.length !== 1 || types[0] !== 'object')
      throw new SchemaDialectError(
        dialect,
        'type',
        '',
        'tool parameters must be a JSON object schema (type "object")',
      )
  }
  if (profile.refs === 'keep-acyclic') checkAcyclic(ctx, schema, '')
  const out = rewrite(ctx, schema, '', 0)
  if (profile.limits && ctx.properties > profile.limits.properties)
    throw new SchemaDialectError(
      dialect,
      'properties',
      '',
      `${ctx.properties} object properties in total exceed the limit of ${profile.limits.properties}`,
    )
  return out
}

function fail(ctx: Ctx, keyword: string, path: string, detail: string): never {
  throw new SchemaDialectError(ctx.dialect, keyword, path, detail)
}

function rewrite(ctx: Ctx, input: JsonValue, path: string, depth: number): Node {
  const { profile } = ctx
  if (input === true || (isObject(input) && Object.keys(input).length === 0)) {
    if (profile.strict) fail(ctx, 'type', path, 'a schema without a type accepts any value; give it a type')
    return {}
  }
  if (!isObject(input)) {
    if (profile.strict)
      fail(ctx, 'type', path, `boolean schema \`${JSON.stringify(input)}\` is not supported`)
    return { not: {} }
  }
  const node = input
  if (!profile.strict) return rewriteLenient(ctx, node, path, depth)

  for (const key of STRUCTURAL_UNSUPPORTED)
    if (key in node)
      fail(ctx, key, pointer(path, key), `\`${key}\` cannot be expressed; send this tool non-strict`)

  // $ref: kept (resolved for checks) or inlined.
  if (typeof node.$ref === 'string') {
    const target = resolveRef(ctx.root, node.$ref)
    if (!target) fail(ctx, '$ref', pointer(path, '$ref'), `cannot resolve \`${node.$ref}\` (only local refs)`)
    if (profile.refs === 'inline') {
      if (ctx.refStack.includes(node.$ref))
        fail(ctx, '$ref', pointer(path, '$ref'), `recursive reference \`${node.$ref}\` cannot be inlined`)
      ctx.refStack.push(node.$ref)
      const inlined = rewrite(ctx, target, path, depth)
      ctx.refStack.pop()
      const { $ref: _, ...siblings } = node
      const extra = rewriteConstraints(ctx, siblings, path, depth)
      return { ...inlined, ...extra }
    }
  }

  const hasShape =
    'type' in node ||
    typeof node.$ref === 'string' ||
    Array.isArray(node.anyOf) ||
    Array.isArray(node.oneOf) ||
    Array.isArray(node.enum) ||
    'const' in node
  if (!hasShape) fail(ctx, 'type', path, 'a schema without a type accepts any value; give it a type')

  return rewriteConstraints(ctx, node, path, depth)
}

/** Strict dialects: rebuild the node keyword by keyword. */
function rewriteConstraints(ctx: Ctx, node: JsonObject, path: string, depth: number): Node {
  const { profile } = ctx
  const out: Node = {}
  const moved: string[] = []
  const types = typesOf(node)
  const isObjectNode = types?.includes('object') === true || isObject(node.properties)
  let objectDepth = depth
  if (isObjectNode) {
    objectDepth = depth + 1
    if (profile.limits && objectDepth > profile.limits.depth)
      fail(
        ctx,
        'properties',
        path,
        `nesting depth ${objectDepth} exceeds the limit of ${profile.limits.depth} levels`,
      )
  }

  for (const [key, value] of Object.entries(node)) {
    if (METADATA.has(key)) continue
    switch (key) {
      case 'type':
        if (Array.isArray(value) && profile.openApiNullable) {
          const nonNull = value.filter((t) => t !== 'null')
          if (nonNull.length !== 1)
            fail(ctx, 'type', pointer(path, 'type'), 'only one non-null type per node')
          out.type = nonNull[0]!
          if (nonNull.length !== value.length) out.nullable = true
        } else out.type = value
        break
      case 'properties': {
        if (!isObject(value)) break
        const props: Node = {}
        for (const [name, sub] of Object.entries(value)) {
          ctx.properties++
          props[name] = rewrite(ctx, sub, pointer(path, 'properties', name), objectDepth)
        }
        out.properties = props
        break
      }
      case 'required':
        out.required = value
        break
      case 'additionalProperties':
        if (value === false) {
          // gemini has no such keyword; "no extra keys" is its default behaviour anyway.
          if (profile.keep?.has('additionalProperties') !== false) out.additionalProperties = false
        } else if (profile.closedObjects) {
          fail(
            ctx,
            'additionalProperties',
            pointer(path, 'additionalProperties'),
            'an open object (extra keys allowed) cannot be expressed; every key must be declared',
          )
        } else if (profile.keep?.has('additionalProperties')) {
          out.additionalProperties =
            value === true ? true : rewrite(ctx, value, pointer(path, 'additionalProperties'), objectDepth)
        } else moved.push(`additionalProperties: ${JSON.stringify(value)}`)
        break
      case 'items':
        if (Array.isArray(value)) fail(ctx, 'items', pointer(path, 'items'), 'tuple `items` is not supported')
        out.items = rewrite(ctx, value, pointer(path, 'items'), objectDepth)
        break
      case 'anyOf':
      case 'oneOf': {
        if (!Array.isArray(value)) break
        if (key === 'oneOf' && !branchesExclusive(ctx, value))
          fail(
            ctx,
            'oneOf',
            pointer(path, 'oneOf'),
            'the branches are not mutually exclusive, so `oneOf` cannot become `anyOf`',
          )
        out.anyOf = value.map((b, i) => rewrite(ctx, b, pointer(path, key, i), depth))
        break
      }
      case '$defs':
      case 'definitions': {
        if (profile.refs === 'inline' || !isObject(value)) break
        const defs: Node = {}
        for (const [name, sub] of Object.entries(value))
          defs[name] = rewrite(ctx, sub, pointer(path, key, name), 0)
        out[key] = defs
        break
      }
      case '$ref':
        out.$ref = value
        break
      case 'description':
        break
      case 'const':
        if (profile.openApiNullable) {
          if (typeof value === 'string') out.enum = [value]
          else moved.push(`const: ${JSON.stringify(value)}`)
        } else out.const = value
        break
      case 'enum':
        if (profile.openApiNullable && Array.isArray(value) && value.includes(null)) {
          out.enum = value.filter((v) => v !== null)
          out.nullable = true
        } else out.enum = value
        break
      case 'minimum':
      case 'maximum':
        if ((key === 'minimum' && value === -SAFE_INT) || (key === 'maximum' && value === SAFE_INT)) break
        keepOrMove(ctx, out, moved, key, value)
        break
      case 'format':
        if (typeof value === 'string' && profile.formats?.has(value)) out.format = value
        else moved.push(`format: ${JSON.stringify(value)}`)
        break
      case 'minItems':
        if (typeof value === 'number' && profile.maxMinItems !== undefined && value > profile.maxMinItems) {
          moved.push(`minItems: ${value}`)
          out.minItems = profile.maxMinItems
        } else keepOrMove(ctx, out, moved, key, value)
        break
      default:
        keepOrMove(ctx, out, moved, key, value)
    }
  }

  if (isObjectNode) {
    if (profile.closedObjects) out.additionalProperties = false
    if (profile.requireAll) requireAll(out)
  }
  const description = typeof node.description === 'string' ? node.description : ''
  const text = describe(description, moved)
  return text === '' ? out : withDescription(out, text)
}

function withDescription(out: Node, text: string): Node {
  // description goes first: the model reads it before the shape, and the output is stable.
  const { description: _, ...rest } = out
  return { description: text, ...rest }
}

function keepOrMove(ctx: Ctx, out: Node, moved: string[], key: string, value: JsonValue): void {
  if (ctx.profile.keep?.has(key)) out[key] = value
  else moved.push(`${key}: ${JSON.stringify(value)}`)
}

/** Seed 003 §11.4: an unsupported constraint becomes text on the same node, not silence. */
function describe(base: string, moved: string[]): string {
  if (moved.length === 0) return base
  const note = moved.join(', ')
  return base === '' ? note : `${base} (${note})`
}

/** OpenAI strict: all properties required; the optional ones accept null meaning "not given". */
function requireAll(out: Node): void {
  const props = out.properties
  if (!isObject(props)) {
    out.properties = {}
    out.required = []
    return
  }
  const required = new Set(Array.isArray(out.required) ? out.required : [])
  const next: Node = {}
  for (const [name, sub] of Object.entries(props)) {
    next[name] = required.has(name) || !isObject(sub) ? sub : nullable(sub)
  }
  out.properties = next
  out.required = Object.keys(props)
}

function nullable(node: JsonObject): Node {
  const copy: Node = { ...node }
  if (Array.isArray(copy.anyOf)) {
    if (!copy.anyOf.some((b) => isObject(b) && (b.type === 'null' || b.const === null)))
      copy.anyOf = [...copy.anyOf, { type: 'null' }]
    return copy
  }
  const t = copy.type
  if ((typeof t === 'string' || Array.isArray(t)) && !('const' in copy)) {
    const list = typeof t === 'string' ? [t] : t
    if (!list.includes('null')) copy.type = [...list, 'null']
    if (Array.isArray(copy.enum) && !copy.enum.includes(null)) copy.enum = [...copy.enum, null]
    return copy
  }
  // $ref, const or enum without type: wrap, keeping the description outside.
  const { description, ...inner } = copy
  return description === undefined
    ? { anyOf: [inner, { type: 'null' }] }
    : { description, anyOf: [inner, { type: 'null' }] }
}

/**
 * `oneOf` may become `anyOf` only when no value can match two branches. Decidable cases: branches of
 * disjoint JSON types, disjoint const/enum values, or objects discriminated by a required const
 * property. Anything else is treated as overlapping (fail closed).
 */
function branchesExclusive(ctx: Ctx, branches: readonly JsonValue[]): boolean {
  const resolved = branches.map((b) =>
    isObject(b) && typeof b.$ref === 'string' ? resolveRef(ctx.root, b.$ref) : b,
  )
  if (!resolved.every(isObject)) return false
  const nodes = resolved as JsonObject[]
  const typeSets = nodes.map(acceptedTypes)
  if (typeSets.every((s) => s !== undefined)) {
    const sets = typeSets as Set<string>[]
    let disjoint = true
    for (let i = 0; i < sets.length && disjoint; i++)
      for (let j = i + 1; j < sets.length && disjoint; j++) if (overlaps(sets[i]!, sets[j]!)) disjoint = false
    if (disjoint) return true
  }
  const valueSets = nodes.map(literalValues)
  if (valueSets.every((s) => s !== undefined) && pairwiseDisjoint(valueSets as string[][])) return true
  if (nodes.every((n) => isObject(n.properties))) {
    const first = nodes[0]!.properties as JsonObject
    for (const key of Object.keys(first)) {
      const lits = nodes.map((n) => {
        const req = Array.isArray(n.required) && n.required.includes(key)
        const p = (n.properties as JsonObject)[key]
        return req && isObject(p) ? literalValues(p) : undefined
      })
      if (lits.every((s) => s !== undefined) && pairwiseDisjoint(lits as string[][])) return true
    }
  }
  return false
}

function acceptedTypes(node: JsonObject): Set<string> | undefined {
  const types = typesOf(node)
  if (types) return new Set(types)
  const lits = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const as JsonValue] : undefined
  return lits ? new Set(lits.map(jsonTypeOf)) : undefined
}

function overlaps(a: Set<string>, b: Set<string>): boolean {
  for (const t of a) {
    if (b.has(t)) return true
    if ((t === 'integer' && b.has('number')) || (t === 'number' && b.has('integer'))) return true
  }
  return false
}

function literalValues(node: JsonObject): string[] | undefined {
  if ('const' in node) return [JSON.stringify(node.const)]
  if (Array.isArray(node.enum)) return node.enum.map((v) => JSON.stringify(v))
  return undefined
}

function pairwiseDisjoint(sets: string[][]): boolean {
  const seen = new Set<string>()
  for (const s of sets) {
    for (const v of new Set(s)) {
      if (seen.has(v)) return false
    }
    for (const v of s) seen.add(v)
  }
  return true
}

/** Anthropic strict: a `$ref` that leads back to itself is recursion, which it cannot express. */
function checkAcyclic(ctx: Ctx, node: JsonValue, path: string): void {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) checkAcyclic(ctx, v, pointer(path, i))
    return
  }
  if (!isObject(node)) return
  for (const [key, value] of Object.entries(node)) {
    if (key === '$defs' || key === 'definitions') continue
    if (key === '$ref' && typeof value === 'string') {
      if (ctx.refStack.includes(value))
        fail(
          ctx,
          '$ref',
          pointer(path, '$ref'),
          `recursive reference \`${value}\`; recursion cannot be expressed`,
        )
      const target = resolveRef(ctx.root, value)
      if (!target) fail(ctx, '$ref', pointer(path, '$ref'), `cannot resolve \`${value}\` (only local refs)`)
      ctx.refStack.push(value)
      checkAcyclic(ctx, target, path)
      ctx.refStack.pop()
      continue
    }
    checkAcyclic(ctx, value, pointer(path, key))
  }
}

/** Non-strict families take JSON Schema as is; only generator metadata and noise bounds go. */
function rewriteLenient(ctx: Ctx, node: JsonObject, path: string, depth: number): Node {
  const out: Node = {}
  for (const [key, value] of Object.entries(node)) {
    if (METADATA.has(key)) continue
    if ((key === 'minimum' && value === -SAFE_INT) || (key === 'maximum' && value === SAFE_INT)) continue
    if (key === 'properties' || key === '$defs' || key === 'definitions') {
      if (!isObject(value)) {
        out[key] = value
        continue
      }
      const sub: Node = {}
      for (const [name, s] of Object.entries(value))
        sub[name] = rewrite(ctx, s, pointer(path, key, name), depth + 1)
      out[key] = sub
    } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isObject(value)) {
      out[key] = rewrite(ctx, value, pointer(path, key), depth + 1)
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = value.map((b, i) => rewrite(ctx, b, pointer(path, key, i), depth + 1))
    } else out[key] = value
  }
  return out
}
