// The root of a tool's parameters as the lenient families take it: a plain `type: "object"` with
// none of the keywords they refuse there (dialects.ts `rootRefused`). MCP servers publish roots
// like `{anyOf: [{required: ["paths"]}, {required: ["scopes"]}]}` or a bare `{$ref: "#/$defs/X"}`
// (pydantic); sent as they are, one such tool turns every request into a 400 (issue 16 §3).
//
// The rewrite keeps what the wire can carry and moves the rest into the description (seed 003
// §11.4: a constraint the wire cannot take becomes text, never silence): the properties of every
// branch are offered at the root, `required` keeps only what every alternative requires, and the
// refused keywords are quoted as JSON Schema in the description. The runtime still validates the
// arguments against the server's own schema, so a call that breaks the moved rule is refused
// with the validator's message before it runs.
import type { JsonObject, JsonValue } from '@toolgate/core'
import { isObject, type Node, resolveRef, typesOf } from './json-schema.js'

/** The quoted rule is cut here; the runtime checks the full schema either way. */
const MOVED_RULE_MAX_CHARS = 2_000

export type RootRewrite =
  | { readonly ok: true; readonly schema: JsonObject }
  | { readonly ok: false; readonly keyword: string; readonly detail: string }

export function flattenRoot(schema: JsonObject, refused: ReadonlySet<string>): RootRewrite {
  let root: Node = { ...schema }
  // A bare root $ref (pydantic's `{$ref, $defs}`): its local target is the root.
  if (typeof root.$ref === 'string' && root.type === undefined) {
    const target = resolveRef(schema, root.$ref)
    if (!target || typeof target.$ref === 'string')
      return {
        ok: false,
        keyword: '$ref',
        detail: `the root \`$ref\` \`${root.$ref}\` does not lead to a local object schema`,
      }
    const { $ref: _, ...rest } = root
    root = { ...target, ...rest }
  }
  const types = typesOf(root)
  if (types !== undefined && !types.includes('object'))
    return {
      ok: false,
      keyword: 'type',
      detail: `tool parameters must be a JSON object schema, not type ${JSON.stringify(root.type)}`,
    }

  const moved: Node = {}
  for (const key of Object.keys(root)) if (refused.has(key)) moved[key] = root[key]!
  if (Object.keys(moved).length === 0 && types?.length === 1) return { ok: true, schema: root }

  const properties: Node = isObject(root.properties) ? { ...root.properties } : {}
  const required = new Set(Array.isArray(root.required) ? root.required : [])
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = moved[key]
    if (!Array.isArray(branches)) continue
    const objects = branches.map((b) => branchObject(schema, b))
    for (const b of objects)
      if (b && isObject(b.properties))
        for (const [name, sub] of Object.entries(b.properties))
          if (!(name in properties)) properties[name] = sub
    const requiredOf = objects.map((b) =>
      b && Array.isArray(b.required) ? b.required.filter((r): r is string => typeof r === 'string') : [],
    )
    if (key === 'allOf') for (const list of requiredOf) for (const r of list) required.add(r)
    else if (objects.every((b) => b !== undefined) && requiredOf.length > 0)
      // Only what EVERY alternative requires is required whichever one the model picks.
      for (const r of requiredOf[0]!) if (requiredOf.every((list) => list.includes(r))) required.add(r)
  }

  const out: Node = {}
  for (const [key, value] of Object.entries(root)) if (!refused.has(key)) out[key] = value
  out.type = 'object'
  out.properties = properties
  if (required.size > 0) out.required = [...required]
  else delete out.required
  if (Object.keys(moved).length > 0) out.description = describeMoved(root.description, moved)
  return { ok: true, schema: out }
}

/** A branch as an object schema: itself, or the target of its bare local `$ref`. */
function branchObject(root: JsonObject, branch: JsonValue): JsonObject | undefined {
  if (!isObject(branch)) return undefined
  if (typeof branch.$ref === 'string' && Object.keys(branch).length === 1)
    return resolveRef(root, branch.$ref)
  return branch
}

function describeMoved(base: JsonValue | undefined, moved: Node): string {
  let rule = JSON.stringify(moved)
  if (rule.length > MOVED_RULE_MAX_CHARS)
    rule = `${rule.slice(0, MOVED_RULE_MAX_CHARS)}… (cut: ${rule.length - MOVED_RULE_MAX_CHARS} more characters; the call is checked against the full rule)`
  const note = `The arguments must also satisfy this JSON Schema rule: ${rule}`
  return typeof base === 'string' && base.trim() !== '' ? `${base}\n\n${note}` : note
}
