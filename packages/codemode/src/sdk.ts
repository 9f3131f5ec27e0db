import type { JsonObject, JsonValue } from '@toolgate/core'

/** One visible tool, as the SDK needs it: the model-facing schema plus the output schema. */
export interface CodeSdkTool {
  readonly name: string
  readonly description: string
  readonly parameters: JsonValue
  /** JSON Schema of the canonical value; absent -> `unknown` */
  readonly output?: JsonValue
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/

function key(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name)
}

function pascal(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean)
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
  return /^[0-9]/.test(joined) || joined === '' ? `T${joined}` : joined
}

/** JSDoc block; `*\/` inside a description would end the comment early, so it is escaped. */
function doc(text: unknown, indent: string): string {
  if (typeof text !== 'string' || text.trim() === '') return ''
  const lines = text.trim().replace(/\*\//g, '*\\/').split(/\r?\n/)
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ''}`).join('\n')}\n${indent} */\n`
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function literal(v: JsonValue): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  return 'unknown' // object/array constants are rare; `unknown` keeps the SDK valid
}

interface Scope {
  /** named types for this schema's $defs/definitions: ref path -> type name */
  readonly refs: Map<string, string>
  /** Whether descriptions become JSDoc (false when the model already reads them in tools[]). */
  readonly docs: boolean
}

function union(members: string[]): string {
  const unique = [...new Set(members)]
  if (unique.length === 0) return 'never'
  if (unique.includes('unknown')) return 'unknown'
  return unique.join(' | ')
}

function wrap(type: string): string {
  return /[|&]/.test(type) && !/^[{[(]/.test(type) ? `(${type})` : type
}

/** JSON Schema -> TypeScript type text. Unknown constructs become `unknown`, never an error. */
function toType(schema: JsonValue | undefined, scope: Scope, indent: string): string {
  if (schema === true || schema === undefined) return 'unknown'
  if (schema === false) return 'never'
  if (!isObject(schema)) return 'unknown'
  const nullable = schema.nullable === true
  const out = baseType(schema, scope, indent)
  return nullable && out !== 'unknown' && out !== 'null' ? union([wrapUnionMember(out), 'null']) : out
}

function baseType(schema: JsonObject, scope: Scope, indent: string): string {
  if (typeof schema.$ref === 'string') return scope.refs.get(schema.$ref) ?? 'unknown'
  if ('const' in schema) return literal(schema.const as JsonValue)
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal))
  const variants = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined
  if (variants) return union(variants.map((v) => wrapUnionMember(toType(v, scope, indent))))
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((v) => wrap(toType(v, scope, indent))).filter((t) => t !== 'unknown')
    return parts.length === 0 ? 'unknown' : parts.join(' & ')
  }
  const type = schema.type
  if (Array.isArray(type)) {
    return union(
      type.map((t) => wrapUnionMember(typeFor(typeof t === 'string' ? t : '', schema, scope, indent))),
    )
  }
  if (typeof type === 'string') return typeFor(type, schema, scope, indent)
  if (isObject(schema.properties) || 'additionalProperties' in schema)
    return objectType(schema, scope, indent)
  if ('items' in schema || 'prefixItems' in schema) return arrayType(schema, scope, indent)
  return 'unknown'
}

function wrapUnionMember(type: string): string {
  return type.includes(' & ') ? `(${type})` : type
}

function typeFor(type: string, schema: JsonObject, scope: Scope, indent: string): string {
  switch (type) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array':
      return arrayType(schema, scope, indent)
    case 'object':
      return objectType(schema, scope, indent)
    default:
      return 'unknown'
  }
}

function arrayType(schema: JsonObject, scope: Scope, indent: string): string {
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined
  if (tuple) return `[${tuple.map((t) => toType(t, scope, indent)).join(', ')}]`
  const item = toType(schema.items, scope, indent)
  return `${wrap(item)}[]`
}

function objectType(schema: JsonObject, scope: Scope, indent: string): string {
  const props = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [],
  )
  const inner = `${indent}  `
  const names = Object.keys(props)
  const extra = schema.additionalProperties
  const extraType =
    extra === false
      ? undefined
      : extra === undefined || extra === true
        ? names.length === 0
          ? 'unknown'
          : undefined
        : toType(extra, scope, inner)
  if (names.length === 0) return extraType === undefined ? '{}' : `{ [key: string]: ${extraType} }`
  const lines = names.map((name) => {
    const prop = props[name]
    const description = isObject(prop) ? prop.description : undefined
    const optional = required.has(name) ? '' : '?'
    return `${scope.docs ? doc(description, inner) : ''}${inner}${key(name)}${optional}: ${toType(prop, scope, inner)}`
  })
  const body = `{\n${lines.join('\n')}\n${indent}}`
  // an index signature must accept every named property's type, so keep it separate
  return extraType === undefined ? body : `${body} & { [key: string]: ${extraType} }`
}

function collectDefs(schema: JsonValue | undefined, prefix: string, scope: Scope): [string, JsonValue][] {
  const found: [string, JsonValue][] = []
  if (!isObject(schema)) return found
  for (const section of ['$defs', 'definitions'] as const) {
    const defs = schema[section]
    if (!isObject(defs)) continue
    for (const name of Object.keys(defs).sort()) {
      const typeName = `${prefix}${pascal(name)}`
      scope.refs.set(`#/${section}/${name}`, typeName)
      found.push([typeName, defs[name]!])
    }
  }
  return found
}

/**
 * The TypeScript declaration the model reads before writing a program (issue 6 §1): argument and
 * output maps derived from the same schemas the pipeline validates with, the `tools` binding, and
 * `ToolCallError`. Sorted by tool name; the same input always gives the same bytes.
 */
export interface CodeSdkOptions {
  /**
   * 'full' (default): the declaration carries each tool's description and its parameters'.
   * 'refer': the model also has the tools in its tool definitions (Code Mode 'both'), so they are
   * left out and the declaration points there; output types keep theirs (tools[] has no outputs).
   * Issue 17: the built-ins' descriptions were otherwise sent twice (12,205 characters).
   */
  readonly descriptions?: 'full' | 'refer'
}

export function renderCodeSdkFromSchemas(
  tools: readonly CodeSdkTool[],
  options: CodeSdkOptions = {},
): string {
  const docs = options.descriptions !== 'refer'
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const named: string[] = []
  const args: string[] = []
  const outputs: string[] = []
  for (const tool of sorted) {
    const base = pascal(tool.name)
    const argScope: Scope = { refs: new Map(), docs }
    for (const [typeName, def] of collectDefs(tool.parameters, `${base}Args`, argScope)) {
      named.push(
        `${docs ? doc(isObject(def) ? def.description : undefined, '') : ''}type ${typeName} = ${toType(def, argScope, '')}`,
      )
    }
    const outScope: Scope = { refs: new Map(), docs: true }
    for (const [typeName, def] of collectDefs(tool.output, `${base}Output`, outScope)) {
      named.push(
        `${doc(isObject(def) ? def.description : undefined, '')}type ${typeName} = ${toType(def, outScope, '')}`,
      )
    }
    args.push(
      `${docs ? doc(tool.description, '  ') : ''}  ${key(tool.name)}: ${toType(tool.parameters, argScope, '  ')}`,
    )
    outputs.push(
      `  ${key(tool.name)}: ${tool.output === undefined ? 'unknown' : toType(tool.output, outScope, '  ')}`,
    )
  }
  const parts = [
    '// Tools available inside run_code. Call them with `await tools.<name>(args)`.',
    '// Each call runs through the same policy and approvals as a direct call; it resolves to the',
    "// tool's structured output and rejects with ToolCallError when it fails or is denied.",
    ...(docs
      ? []
      : [
          '// What each tool does and what its arguments mean: see its entry in your tool definitions',
          '// (same name, same parameters); this declaration gives the types only.',
        ]),
    '',
    ...named.map((n) => `${n}\n`),
    `interface ToolArgsMap {${args.length ? `\n${args.join('\n')}\n` : ''}}`,
    '',
    `interface ToolOutputMap {${outputs.length ? `\n${outputs.join('\n')}\n` : ''}}`,
    '',
    'type ToolName = keyof ToolArgsMap',
    '',
    'declare const tools: { readonly [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> }',
    '',
    '/** A tool call failed or was denied. `message` says why and what to do next. */',
    'declare class ToolCallError extends Error {',
    "  readonly name: 'ToolCallError'",
    '  readonly toolName: ToolName',
    '}',
    '',
  ]
  return parts.join('\n')
}
