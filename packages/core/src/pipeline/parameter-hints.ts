import type { JsonObject, JsonValue } from '../types.js'
import { closestNames } from './suggest.js'

// What the model is told about a tool's parameters after a mistake, read from the model-facing
// JSON Schema (the one in its tool definitions): the required parameters with a minimal valid
// example for empty arguments, and each unknown parameter named, with the real one it was
// probably meant to be (issue 17; seed 003 §9: every error says what to do next).

const MAX_UNKNOWN = 5
const MAX_LISTED = 12

function isRecord(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function properties(schema: JsonObject): JsonObject | undefined {
  const props = schema.properties
  return isRecord(props) ? props : undefined
}

function requiredParameters(schema: JsonObject): string[] {
  const required = schema.required
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : []
}

/** A minimal value the schema node accepts, as far as its type, enum, const or minimum say. */
function exampleValue(node: JsonValue | undefined, depth = 0): JsonValue {
  if (!isRecord(node)) return '…'
  if ('const' in node) return node.const!
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0]!
  const type = Array.isArray(node.type) ? node.type.find((t: JsonValue) => t !== 'null') : node.type
  switch (type) {
    case 'string':
      return '…'
    case 'number':
    case 'integer':
      return typeof node.minimum === 'number' ? node.minimum : 1
    case 'boolean':
      return true
    case 'array':
      return []
    case 'null':
      return null
    case 'object': {
      if (depth >= 2) return {}
      const out: Record<string, JsonValue> = {}
      const props = properties(node)
      for (const key of requiredParameters(node)) out[key] = exampleValue(props?.[key], depth + 1)
      return out
    }
    default: {
      const options = Array.isArray(node.anyOf)
        ? node.anyOf
        : Array.isArray(node.oneOf)
          ? node.oneOf
          : undefined
      return options && options.length > 0 ? exampleValue(options[0], depth) : '…'
    }
  }
}

/** The required parameters and the smallest arguments object that names each of them. */
export function exampleArguments(schema: JsonObject): { required: string[]; example: string } {
  const required = requiredParameters(schema)
  return { required, example: JSON.stringify(exampleValue({ ...schema, type: 'object' })) }
}

/**
 * Top-level keys the schema does not declare, when it declares its parameters and does not
 * invite others (`additionalProperties` absent or false, no `patternProperties`). Undefined when
 * there are none.
 */
export function unknownParameters(schema: JsonObject, args: JsonValue): string[] | undefined {
  if (!isRecord(args)) return undefined
  const props = properties(schema)
  if (props === undefined || schema.patternProperties !== undefined) return undefined
  const extra = schema.additionalProperties
  if (extra !== undefined && extra !== false) return undefined
  const unknown = Object.keys(args).filter((key) => !Object.hasOwn(props, key))
  return unknown.length > 0 ? unknown : undefined
}

/** One issue line per unknown parameter (at most five, then a count), with a did-you-mean. */
export function unknownParameterIssues(name: string, schema: JsonObject, keys: readonly string[]): string[] {
  const known = Object.keys(properties(schema) ?? {})
  const listed = known.length <= MAX_LISTED ? known.join(', ') : `${known.slice(0, MAX_LISTED).join(', ')}, …`
  const lines = keys.slice(0, MAX_UNKNOWN).map((key) => {
    const quoted =
      key.length > 64 ? `${JSON.stringify(key.slice(0, 64)).slice(0, -1)}…"` : JSON.stringify(key)
    if (known.length === 0) return `${quoted} is not a parameter: ${name} takes none; remove it`
    const [closest] = closestNames(key, known, 1)
    return closest === undefined
      ? `${quoted} is not a parameter of ${name} (its parameters: ${listed}); remove it`
      : `${quoted} is not a parameter of ${name}; did you mean "${closest}"?`
  })
  if (keys.length > MAX_UNKNOWN)
    lines.push(`${keys.length - MAX_UNKNOWN} more unknown parameters; remove them`)
  return lines
}
