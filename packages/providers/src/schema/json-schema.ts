// Small helpers over JSON Schema documents treated as plain JSON (no validator needed here).
import type { JsonObject, JsonValue } from '@toolgate/core'

export type Node = { [key: string]: JsonValue }

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** RFC 6901 escaping of one reference token. */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  let out = base
  for (const t of tokens) out += `/${String(t).replaceAll('~', '~0').replaceAll('/', '~1')}`
  return out
}

/** Resolve a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`); undefined if not local or missing. */
export function resolveRef(root: JsonObject, ref: string): JsonObject | undefined {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let cur: JsonValue | undefined = root
  for (const raw of ref.slice(2).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (!isObject(cur)) return undefined
    cur = cur[token]
  }
  return isObject(cur) ? cur : undefined
}

export function typesOf(node: JsonObject): string[] | undefined {
  const t = node.type
  if (typeof t === 'string') return [t]
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string')
  return undefined
}

export function jsonTypeOf(v: JsonValue): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

/** Whether a schema node accepts `null` (typeless nodes accept everything). */
export function acceptsNull(
  root: JsonObject,
  node: JsonValue | undefined,
  seen = new Set<JsonObject>(),
): boolean {
  if (node === true || node === undefined) return true
  if (!isObject(node)) return false
  if (seen.has(node)) return false
  seen.add(node)
  if (typeof node.$ref === 'string') {
    const target = resolveRef(root, node.$ref)
    if (target && acceptsNull(root, target, seen)) return true
  }
  if (node.const === null) return true
  if (Array.isArray(node.enum)) return node.enum.includes(null)
  if (node.nullable === true) return true
  const types = typesOf(node)
  if (types) return types.includes('null')
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key]
    if (Array.isArray(branches)) return branches.some((b) => acceptsNull(root, b, seen))
  }
  return !('$ref' in node) && !('const' in node)
}
