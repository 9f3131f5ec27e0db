// Strict OpenAI schemas turn every optional property into "required but nullable" (seed 003 §11.3).
// Before validation against the ORIGINAL schema, a null sent for such a field means "not given".
import type { JsonObject, JsonValue } from '@toolgate/core'
import { acceptsNull, isObject, jsonTypeOf, resolveRef, typesOf } from './json-schema.js'

/**
 * Map the nulls of optional properties that the original schema does not allow to be null back to
 * "absent", recursively (nested objects, array items, union branches, `$ref`). A null on a required
 * property, or on an optional property whose schema accepts null, is left alone. Returns a new
 * value; the input (possibly frozen) is not modified.
 */
export function normalizeArgs(args: JsonValue, originalSchema: JsonObject): JsonValue {
  return walk(originalSchema, args, originalSchema, 0)
}

function walk(root: JsonObject, value: JsonValue, schema: JsonValue | undefined, depth: number): JsonValue {
  if (!isObject(schema) || depth > 64) return value
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(root, schema.$ref)
    return target ? walk(root, value, target, depth + 1) : value
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key]
    if (Array.isArray(branches) && value !== null) {
      const branch = branches.find((b) => matches(root, value, b))
      return branch === undefined ? value : walk(root, value, branch, depth + 1)
    }
  }
  if (Array.isArray(value)) {
    return isObject(schema.items) ? value.map((v) => walk(root, v, schema.items, depth + 1)) : value
  }
  if (isObject(value) && isObject(schema.properties)) {
    const props = schema.properties
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    const out: Record<string, JsonValue> = {}
    for (const [key, v] of Object.entries(value)) {
      // Model keys are data: `__proto__` must neither read a schema from Object.prototype nor,
      // assigned, replace the copy's prototype.
      const sub = Object.hasOwn(props, key) ? props[key] : undefined
      if (v === null && sub !== undefined && !required.has(key) && !acceptsNull(root, sub)) continue
      const walked = walk(root, v, sub, depth + 1)
      if (key === '__proto__')
        Object.defineProperty(out, key, {
          value: walked,
          enumerable: true,
          writable: true,
          configurable: true,
        })
      else out[key] = walked
    }
    return out
  }
  return value
}

/** A shallow match to pick the union branch a value belongs to: type, then const discriminators. */
function matches(root: JsonObject, value: JsonValue, branch: JsonValue): boolean {
  let b = branch
  if (isObject(b) && typeof b.$ref === 'string') b = resolveRef(root, b.$ref) ?? b
  if (!isObject(b)) return b === true
  if ('const' in b) return JSON.stringify(b.const) === JSON.stringify(value)
  if (Array.isArray(b.enum)) return b.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))
  const types = typesOf(b)
  const t = jsonTypeOf(value)
  if (types && !types.includes(t) && !(t === 'integer' && types.includes('number'))) return false
  if (isObject(value) && isObject(b.properties)) {
    for (const [key, p] of Object.entries(b.properties)) {
      if (
        isObject(p) &&
        'const' in p &&
        key in value &&
        JSON.stringify(p.const) !== JSON.stringify(value[key])
      )
        return false
    }
  }
  return true
}
