// The schema dialect compiler (seed 003 §11.1: a tree rewrite, not a switch). Every node is visited:
// nested objects, array items, union branches and $defs, so a nested object can never reach the
// provider unrewritten (§11.3 🔴).
import { type JsonObject, type JsonValue, normalizeSchema } from '@toolgate/core'
import { SchemaDialectError } from './dialect-error.js'
import { DIALECTS, type DialectProfile, type SchemaDialect, STRUCTURAL_UNSUPPORTED } from './dialects.js'
import { isObject, jsonTypeOf, type Node, pointer, resolveRef, typesOf } from './json-schema.js'
import { flattenRoot } from './root.js'

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
  /** Enum values in the whole schema (OpenAI strict: at most 1,000). */
  enumValues: number
  /** Characters of string enum values (OpenAI strict: at most 15,000 when more than 250 values). */
  enumChars: number
  /** Optional properties and union-typed properties (Anthropic strict budgets). */
  optional: number
  unions: number
}

/** What one compiled schema spends of the budgets a provider counts across a whole request. */
export interface SchemaUsage {
  /** Optional properties (Anthropic strict: at most 24 across the request's strict tools). */
  readonly optional: number
  /** Properties with union types (Anthropic strict: at most 16 across the request). */
  readonly unions: number
}

/**
 * Rewrite a tool's JSON Schema into what `dialect` accepts. Pure; the input is not modified.
 * Throws SchemaDialectError (with `.keyword` and `.path`) when the dialect cannot express it.
 */
export function toProviderSchema(input: JsonObject, dialect: SchemaDialect): JsonObject {
  return compileProviderSchema(input, dialect).schema
}

/** `toProviderSchema` plus what the schema spends of the request-wide budgets. */
export function compileProviderSchema(
  input: JsonObject,
  dialect: SchemaDialect,
): { readonly schema: JsonObject; readonly usage: SchemaUsage } {
  const profile: DialectProfile = DIALECTS[dialect]
  // Foreign forms first (issue 16 §3): legacy drafts, OpenAPI nullable, no root type, `{}`.
  const normalized = normalizeSchema(input, { root: 'object' })
  if (!normalized.ok) throw new SchemaDialectError(dialect, 'schema', normalized.path, normalized.problem)
  let schema = normalized.schema
  if (profile.rootRefused && !profile.strict) {
    const root = flattenRoot(schema, profile.rootRefused)
    if (!root.ok) throw new SchemaDialectError(dialect, root.keyword, '', root.detail)
    schema = root.schema
  }
  const ctx: Ctx = {
    dialect,
    profile,
    root: schema,
    refStack: [],
    properties: 0,
    enumValues: 0,
    enumChars: 0,
    optional: 0,
    unions: 0,
  }
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
  // Strict: a root union is refused by the wire there (an allOf of objects is merged away by the
  // rewrite); the tool goes lenient, whose root rewrite moves it into the description.
  const refusedRoot = (node: JsonObject) => {
    const key = Object.keys(node).find((k) => k !== 'allOf' && profile.rootRefused?.has(k))
    if (key !== undefined)
      fail(
        ctx,
        key,
        pointer('', key),
        `\`${key}\` is refused at the root of tool parameters; send this tool non-strict`,
      )
  }
  refusedRoot(schema)
  const out = rewrite(ctx, schema, '', 0)
  refusedRoot(out)
  checkBudgets(ctx)
  return { schema: out, usage: { optional: ctx.optional, unions: ctx.unions } }
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
  let node = input
  if (!profile.strict) return rewriteLenient(ctx, node, path, depth)
  if (Array.isArray(node.allOf)) node = mergeAllOf(ctx, node, path)
  if (typeof node.$ref === 'string' && profile.refs !== 'inline' && hasConstraintSiblings(node)) {
    // A $ref with constraints beside it: the strict decoders take a bare $ref, so the target is
    // merged with its siblings (like allOf); a recursive target cannot be.
    const target = resolveRef(ctx.root, node.$ref)
    if (!target) fail(ctx, '$ref', pointer(path, '$ref'), `cannot resolve \`${node.$ref}\` (only local refs)`)
    if (refersTo(ctx.root, target, node.$ref, new Set()))
      fail(
        ctx,
        '$ref',
        pointer(path, '$ref'),
        `\`${node.$ref}\` is recursive, so its sibling keywords cannot be merged into it`,
      )
    const { $ref: _, ...siblings } = node
    node = mergeAllOf(ctx, { allOf: [target, siblings] }, path)
  }

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
    if (profile.limits?.depth !== undefined && objectDepth > profile.limits.depth)
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
        const required = new Set(Array.isArray(node.required) ? node.required : [])
        for (const [name, sub] of Object.entries(value)) {
          ctx.properties++
          if (!required.has(name)) ctx.optional++
          if (
            isObject(sub) &&
            (Array.isArray(sub.anyOf) ||
              Array.isArray(sub.oneOf) ||
              (Array.isArray(sub.type) && sub.type.filter((t) => t !== 'null').length > 1))
          )
            ctx.unions++
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
        if (Array.isArray(value)) {
          ctx.enumValues += value.length
          for (const v of value) if (typeof v === 'string') ctx.enumChars += v.length
        }
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
      case 'pattern':
        if (typeof value === 'string' && profile.regex) {
          const feature = unsupportedRegex(value)
          if (feature)
            fail(
              ctx,
              'pattern',
              pointer(path, 'pattern'),
              `the pattern uses ${feature}, which the ${ctx.dialect} regex engine does not support`,
            )
        }
        keepOrMove(ctx, out, moved, key, value)
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
    // A nested object that declares no properties and is not closed is a free-form map (GitHub's
    // `conditions: {type: object}`): closing it would silently forbid every key. Only the root may
    // be empty (a tool without arguments).
    if (
      profile.closedObjects &&
      path !== '' &&
      node.additionalProperties !== false &&
      (!isObject(node.properties) || Object.keys(node.properties).length === 0)
    )
      fail(
        ctx,
        'additionalProperties',
        path,
        'a free-form object (no properties declared) cannot be expressed; every key must be declared',
      )
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

/**
 * Seed 003 §11.4: an unsupported constraint becomes text on the same node, not silence. Issue 17:
 * only when the description does not already say it (its value is there as a word of its own:
 * "1-based" for `minimum: 1`, "an https URI" for `format: "uri"`), so the model does not read
 * the same constraint twice.
 */
function describe(base: string, moved: string[]): string {
  const notes = moved.filter((note) => !saysAlready(base, note))
  if (notes.length === 0) return base
  const note = notes.join(', ')
  return base === '' ? note : `${base} (${note})`
}

/** Constraints a description can state by their value alone (never an extension keyword). */
const STATED_BY_VALUE = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'format',
  'pattern',
  'const',
])

function saysAlready(description: string, note: string): boolean {
  if (description === '') return false
  const at = note.indexOf(': ')
  if (!STATED_BY_VALUE.has(note.slice(0, at))) return false
  const raw = note.slice(at + 2)
  let value: JsonValue
  try {
    value = JSON.parse(raw) as JsonValue
  } catch {
    return false
  }
  if (typeof value !== 'string' && typeof value !== 'number') return false
  const text = String(value)
  if (text === '') return false
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![\\w.])${escaped}(?![\\w]|\\.\\d)`, 'i').test(description)
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

/** Limits the provider documents for its strict mode, over the whole schema. */
function checkBudgets(ctx: Ctx): void {
  const limits = ctx.profile.limits
  if (!limits) return
  const over = (keyword: string, detail: string) => fail(ctx, keyword, '', detail)
  if (limits.properties !== undefined && ctx.properties > limits.properties)
    over(
      'properties',
      `${ctx.properties} object properties in total exceed the limit of ${limits.properties}`,
    )
  if (limits.enumValues !== undefined && ctx.enumValues > limits.enumValues)
    over('enum', `${ctx.enumValues} enum values in total exceed the limit of ${limits.enumValues}`)
  if (
    limits.enumChars !== undefined &&
    ctx.enumValues > limits.enumChars.above &&
    ctx.enumChars > limits.enumChars.chars
  )
    over(
      'enum',
      `${ctx.enumChars} characters of enum values (with more than ${limits.enumChars.above} values) exceed the limit of ${limits.enumChars.chars}`,
    )
  if (limits.optional !== undefined && ctx.optional > limits.optional)
    over('required', `${ctx.optional} optional parameters exceed the limit of ${limits.optional}`)
  if (limits.unions !== undefined && ctx.unions > limits.unions)
    over('anyOf', `${ctx.unions} parameters with union types exceed the limit of ${limits.unions}`)
}

/** Regex features the strict decoders reject (documented: no lookaround, no backreferences). */
function unsupportedRegex(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return 'lookaround ((?=, (?!, (?<=, (?<!)'
  if (/\\[1-9]|\\k</.test(pattern)) return 'a backreference'
  return undefined
}

const ANNOTATION_SIBLINGS = new Set(['description', 'title', '$comment', 'examples', 'default'])

function hasConstraintSiblings(node: JsonObject): boolean {
  return Object.keys(node).some((k) => k !== '$ref' && !ANNOTATION_SIBLINGS.has(k))
}

function refersTo(root: JsonObject, node: JsonValue, ref: string, seen: Set<JsonObject>): boolean {
  if (Array.isArray(node)) return node.some((v) => refersTo(root, v, ref, seen))
  if (!isObject(node) || seen.has(node)) return false
  seen.add(node)
  if (node.$ref === ref) return true
  if (typeof node.$ref === 'string') {
    const target = resolveRef(root, node.$ref)
    if (target && refersTo(root, target, ref, seen)) return true
  }
  return Object.entries(node).some(
    ([k, v]) => k !== '$defs' && k !== 'definitions' && refersTo(root, v, ref, seen),
  )
}

/**
 * Strict dialects take no `allOf`; an allOf of object schemas (zod `.and()`, OpenAPI composition)
 * means "all of these properties", which one merged object expresses exactly. Branches that are
 * not objects, or that constrain the same property or keyword differently, cannot be merged.
 */
function mergeAllOf(ctx: Ctx, node: JsonObject, path: string): JsonObject {
  const { allOf, ...rest } = node
  const branches = [rest, ...(allOf as JsonValue[])]
  const merged: Node = {}
  const properties: Node = {}
  const required = new Set<string>()
  let closed = false
  for (const [i, raw] of branches.entries()) {
    const at = i === 0 ? path : pointer(path, 'allOf', i - 1)
    let branch = raw
    const seen: string[] = []
    while (isObject(branch) && typeof branch.$ref === 'string' && Object.keys(branch).length === 1) {
      if (seen.includes(branch.$ref))
        fail(ctx, '$ref', pointer(at, '$ref'), `recursive reference \`${branch.$ref}\``)
      seen.push(branch.$ref)
      const target = resolveRef(ctx.root, branch.$ref)
      if (!target)
        fail(ctx, '$ref', pointer(at, '$ref'), `cannot resolve \`${branch.$ref}\` (only local refs)`)
      branch = target
    }
    if (!isObject(branch)) fail(ctx, 'allOf', at, 'a boolean branch cannot be merged')
    const b = Array.isArray(branch.allOf) ? mergeAllOf(ctx, branch, at) : branch
    for (const [key, value] of Object.entries(b)) {
      if (key === 'properties' && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) {
          if (name in properties && JSON.stringify(properties[name]) !== JSON.stringify(sub))
            fail(
              ctx,
              'allOf',
              pointer(at, 'properties', name),
              `property "${name}" is defined differently in two branches`,
            )
          properties[name] = sub
        }
      } else if (key === 'required' && Array.isArray(value)) {
        for (const r of value) if (typeof r === 'string') required.add(r)
      } else if (key === 'additionalProperties') {
        if (value === false) closed = true
      } else if (key === 'description' || key === 'title') {
        if (!(key in merged)) merged[key] = value
      } else if (key === 'type') {
        if ('type' in merged && JSON.stringify(merged.type) !== JSON.stringify(value))
          fail(ctx, 'allOf', pointer(at, 'type'), 'the branches have different types')
        merged.type = value
      } else if (key in merged && JSON.stringify(merged[key]) !== JSON.stringify(value)) {
        fail(ctx, 'allOf', pointer(at, key), `\`${key}\` differs between branches`)
      } else merged[key] = value
    }
  }
  if (merged.type !== undefined && merged.type !== 'object')
    fail(ctx, 'allOf', pointer(path, 'allOf'), 'only object branches can be merged')
  if (Object.keys(properties).length > 0 || merged.type === 'object') {
    merged.type = 'object'
    merged.properties = properties
    if (required.size > 0) merged.required = [...required]
  }
  // A closed branch closed only its own properties; merged, the other branches' are declared too.
  if (closed && !ctx.profile.closedObjects) merged.additionalProperties = false
  return merged
}
