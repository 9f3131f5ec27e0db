// What each provider family accepts inside a tool's parameters schema (seed 003 §11.3).
// Documentation-based, not trace-based (seed 003 §11.5): the tables follow the vendors' published
// subsets; constraints outside a subset are rewritten into the description, never dropped (§11.4).

export type SchemaDialect = 'openai-strict' | 'openai' | 'anthropic-strict' | 'anthropic' | 'gemini'

export interface DialectProfile {
  /** Reject what the constrained decoder cannot express (typeless nodes, ambiguous oneOf, ...). */
  readonly strict: boolean
  /** Every property listed in `required`, optional ones made nullable (OpenAI strict). */
  readonly requireAll: boolean
  /** `additionalProperties: false` on every object; an open one is an error. */
  readonly closedObjects: boolean
  /** keep: send `$ref`/`$defs` as they are; keep-acyclic: same but recursion is an error; inline. */
  readonly refs: 'keep' | 'keep-acyclic' | 'inline'
  /** Nullable written as `nullable: true` (OpenAPI 3.0 subset) instead of a type array. */
  readonly openApiNullable: boolean
  /** Keywords kept on a node; `undefined` keeps everything (non-strict families accept JSON Schema). */
  readonly keep?: ReadonlySet<string>
  /** `format` values the family's decoder understands; others move to the description. */
  readonly formats?: ReadonlySet<string>
  /** Largest `minItems` the family accepts (Anthropic strict: 0 or 1). */
  readonly maxMinItems?: number
  /** Documented limits of the family's strict mode, over one schema. */
  readonly limits?: {
    readonly depth?: number
    readonly properties?: number
    readonly enumValues?: number
    /** Total characters of string enum values, when there are more than `above` values. */
    readonly enumChars?: { readonly above: number; readonly chars: number }
    readonly optional?: number
    readonly unions?: number
  }
  /** Reject regex features the strict decoder cannot run (lookaround, backreferences). */
  readonly regex?: boolean
  /**
   * Documented limits over ALL strict tools of one request: past them the excess tools are sent
   * non-strict (codec.ts compileTools), never a 400.
   */
  readonly requestLimits?: {
    readonly strictTools: number
    readonly optional: number
    readonly unions: number
  }
}

const STRUCTURE = [
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$ref',
  '$defs',
]
const ANNOTATIONS = ['description', 'title', 'enum', 'const']

/**
 * Keywords no dialect in strict mode can rewrite into something equivalent: they change which
 * values are valid in ways a description cannot carry reliably, so they make the tool non-strict.
 */
export const STRUCTURAL_UNSUPPORTED: readonly string[] = [
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'dependentSchemas',
  'dependentRequired',
  'prefixItems',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
]

export const DIALECTS = {
  // OpenAI Structured Outputs ("Supported schemas"): up to 5000 object properties in total and up to
  // 10 levels of nesting; string: pattern, format; number: (exclusive)minimum/maximum, multipleOf;
  // array: minItems, maxItems; recursion via $ref is supported; `default` is not in the table.
  'openai-strict': {
    strict: true,
    requireAll: true,
    closedObjects: true,
    refs: 'keep',
    openApiNullable: false,
    keep: new Set([
      ...STRUCTURE,
      ...ANNOTATIONS,
      'pattern',
      'format',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'multipleOf',
      'minItems',
      'maxItems',
    ]),
    formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']),
    // Also: at most 1,000 enum values in total, and at most 15,000 characters of string enum
    // values once there are more than 250 of them.
    limits: { depth: 10, properties: 5000, enumValues: 1000, enumChars: { above: 250, chars: 15_000 } },
    regex: true,
  },
  // Non-strict function parameters accept JSON Schema as is; only zod's artefacts are removed.
  openai: { strict: false, requireAll: false, closedObjects: false, refs: 'keep', openApiNullable: false },
  // Anthropic strict tool use: optional properties stay optional; numeric and string-length
  // constraints are not supported; minItems only 0 or 1; `default` is supported; no recursion;
  // every object needs additionalProperties: false; at most 20 strict tools per request, and at
  // most 24 optional and 16 union-typed parameters across the request's strict schemas (so also
  // per tool); no lookaround or backreferences.
  'anthropic-strict': {
    strict: true,
    requireAll: false,
    closedObjects: true,
    refs: 'keep-acyclic',
    openApiNullable: false,
    keep: new Set([...STRUCTURE, ...ANNOTATIONS, 'pattern', 'format', 'default', 'minItems']),
    formats: new Set([
      'date-time',
      'time',
      'date',
      'duration',
      'email',
      'hostname',
      'uri',
      'ipv4',
      'ipv6',
      'uuid',
    ]),
    maxMinItems: 1,
    limits: { optional: 24, unions: 16 },
    requestLimits: { strictTools: 20, optional: 24, unions: 16 },
    regex: true,
  },
  anthropic: { strict: false, requireAll: false, closedObjects: false, refs: 'keep', openApiNullable: false },
  // Gemini function declarations: the OpenAPI 3.0 Schema subset (no $ref, no type arrays, no
  // additionalProperties, `nullable` instead of a null type, enum of strings).
  gemini: {
    strict: true,
    requireAll: false,
    closedObjects: false,
    refs: 'inline',
    openApiNullable: true,
    keep: new Set([
      'type',
      'properties',
      'required',
      'items',
      'anyOf',
      'description',
      'title',
      'enum',
      'nullable',
      'format',
      'minItems',
      'maxItems',
      'minProperties',
      'maxProperties',
      'minLength',
      'maxLength',
      'pattern',
      'minimum',
      'maximum',
      'default',
    ]),
    formats: new Set(['date-time', 'enum', 'int32', 'int64', 'float', 'double']),
  },
} as const satisfies Record<SchemaDialect, DialectProfile>

export const SCHEMA_DIALECTS = Object.keys(DIALECTS) as SchemaDialect[]
