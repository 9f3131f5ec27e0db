import type { SchemaDialect } from './dialects.js'

/**
 * A JSON Schema that a provider dialect cannot express. `keyword` is the offending JSON Schema
 * keyword, `path` the JSON pointer (RFC 6901) of the node holding it in the ORIGINAL schema.
 * Callers then send that one tool non-strict (seed 003 §11.6: never silently mangle the schema).
 */
export class SchemaDialectError extends Error {
  override readonly name = 'SchemaDialectError'
  constructor(
    readonly dialect: SchemaDialect,
    readonly keyword: string,
    readonly path: string,
    detail: string,
  ) {
    super(`${dialect} cannot express \`${keyword}\` at ${path === '' ? '(root)' : path}: ${detail}`)
  }
}
