import type { JsonObject } from '@toolgate/core'
import { normalizeArgs, SchemaDialectError, toProviderSchema } from '@toolgate/providers'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'

// One schema exercising every recursive position: nested object, array items, union branches, $defs.
const schema: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File path', minLength: 1 },
    offset: { type: 'integer', description: 'Start line', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    opts: {
      type: 'object',
      properties: { depth: { type: 'number', default: 2 }, follow: { type: 'boolean' } },
      required: ['follow'],
      additionalProperties: false,
    },
    tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } }, minItems: 2 },
    target: { anyOf: [{ type: 'string', format: 'uri' }, { $ref: '#/$defs/loc' }] },
  },
  required: ['path'],
  additionalProperties: false,
  $defs: {
    loc: {
      type: 'object',
      properties: { line: { type: 'integer', exclusiveMinimum: 0 } },
      required: ['line'],
    },
  },
}

describe('toProviderSchema', () => {
  test('openai-strict: every property required, optional ones nullable, closed objects at every depth', () => {
    expect(toProviderSchema(schema, 'openai-strict')).toEqual({
      type: 'object',
      properties: {
        path: { description: 'File path (minLength: 1)', type: 'string' },
        offset: { description: 'Start line', type: ['integer', 'null'], minimum: 1 },
        opts: {
          type: ['object', 'null'],
          properties: {
            depth: { description: 'default: 2', type: ['number', 'null'] },
            follow: { type: 'boolean' },
          },
          required: ['depth', 'follow'],
          additionalProperties: false,
        },
        tags: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            properties: { k: { type: ['string', 'null'] } },
            additionalProperties: false,
            required: ['k'],
          },
          minItems: 2,
        },
        target: {
          anyOf: [
            { description: 'format: "uri"', type: 'string' },
            { $ref: '#/$defs/loc' },
            { type: 'null' },
          ],
        },
      },
      required: ['path', 'offset', 'opts', 'tags', 'target'],
      additionalProperties: false,
      $defs: {
        loc: {
          type: 'object',
          properties: { line: { type: 'integer', exclusiveMinimum: 0 } },
          required: ['line'],
          additionalProperties: false,
        },
      },
    })
  })

  test('anthropic-strict: optional stays optional; numeric and length constraints move into descriptions; every object closed', () => {
    expect(toProviderSchema(schema, 'anthropic-strict')).toEqual({
      type: 'object',
      properties: {
        path: { description: 'File path (minLength: 1)', type: 'string' },
        offset: { description: 'Start line (minimum: 1)', type: 'integer' },
        opts: {
          type: 'object',
          properties: { depth: { type: 'number', default: 2 }, follow: { type: 'boolean' } },
          required: ['follow'],
          additionalProperties: false,
        },
        tags: {
          description: 'minItems: 2',
          type: 'array',
          items: { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: false },
          minItems: 1,
        },
        target: { anyOf: [{ type: 'string', format: 'uri' }, { $ref: '#/$defs/loc' }] },
      },
      required: ['path'],
      additionalProperties: false,
      $defs: {
        loc: {
          type: 'object',
          properties: { line: { description: 'exclusiveMinimum: 0', type: 'integer' } },
          required: ['line'],
          additionalProperties: false,
        },
      },
    })
  })

  test('openai and anthropic (non-strict): only $schema and zod safe-integer bounds go', () => {
    const { $schema: _, ...rest } = schema
    const expected = {
      ...rest,
      properties: {
        ...(rest.properties as JsonObject),
        offset: { type: 'integer', description: 'Start line', minimum: 1 },
      },
    }
    expect(toProviderSchema(schema, 'openai')).toEqual(expected)
    expect(toProviderSchema(schema, 'anthropic')).toEqual(expected)
    expect(JSON.stringify(toProviderSchema(schema, 'openai'))).not.toContain('$schema')
  })

  test('gemini: $ref inlined, nullable instead of type arrays, const as enum, no additionalProperties', () => {
    const input: JsonObject = {
      type: 'object',
      properties: {
        mode: { const: 'fast' },
        note: { type: ['string', 'null'], maxLength: 10 },
        where: { $ref: '#/$defs/loc', description: 'Where' },
        n: { type: 'integer', exclusiveMaximum: 5 },
      },
      required: ['mode'],
      additionalProperties: false,
      $defs: {
        loc: { type: 'object', properties: { line: { type: 'integer' } }, additionalProperties: false },
      },
    }
    expect(toProviderSchema(input, 'gemini')).toEqual({
      type: 'object',
      properties: {
        mode: { enum: ['fast'] },
        note: { type: 'string', nullable: true, maxLength: 10 },
        where: { description: 'Where', type: 'object', properties: { line: { type: 'integer' } } },
        n: { description: 'exclusiveMaximum: 5', type: 'integer' },
      },
      required: ['mode'],
    })
  })

  test('openai-strict: exclusive oneOf (discriminated) becomes anyOf', () => {
    const input = z.toJSONSchema(
      z.object({
        u: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('a') }),
          z.object({ kind: z.literal('b') }),
        ]),
      }),
    ) as JsonObject
    const out = toProviderSchema(input, 'openai-strict') as { properties: { u: JsonObject } }
    expect(out.properties.u).toEqual({
      anyOf: [
        {
          type: 'object',
          properties: { kind: { type: 'string', const: 'a' } },
          required: ['kind'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { kind: { type: 'string', const: 'b' } },
          required: ['kind'],
          additionalProperties: false,
        },
      ],
    })
  })

  test('openai-strict: recursion through $ref is allowed', () => {
    const T: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(T)
      },
    })
    const input = z.toJSONSchema(z.object({ t: T })) as JsonObject
    expect(() => toProviderSchema(input, 'openai-strict')).not.toThrow()
  })
})

function dialectError(fn: () => unknown): { keyword: string; path: string; message: string } {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaDialectError)
    const e = error as SchemaDialectError
    return { keyword: e.keyword, path: e.path, message: e.message }
  }
  throw new Error('expected a SchemaDialectError')
}

describe('SchemaDialectError', () => {
  test('open additionalProperties under openai-strict (a record)', () => {
    const input = z.toJSONSchema(z.object({ env: z.record(z.string(), z.string()) })) as JsonObject
    // propertyNames is checked first: a record cannot be strict either way.
    expect(dialectError(() => toProviderSchema(input, 'openai-strict'))).toEqual({
      keyword: 'propertyNames',
      path: '/properties/env/propertyNames',
      message:
        'openai-strict cannot express `propertyNames` at /properties/env/propertyNames: `propertyNames` cannot be expressed; send this tool non-strict',
    })
    const open: JsonObject = {
      type: 'object',
      properties: { a: { type: 'object', additionalProperties: true } },
    }
    expect(dialectError(() => toProviderSchema(open, 'openai-strict'))).toEqual({
      keyword: 'additionalProperties',
      path: '/properties/a/additionalProperties',
      message:
        'openai-strict cannot express `additionalProperties` at /properties/a/additionalProperties: an open object (extra keys allowed) cannot be expressed; every key must be declared',
    })
  })

  test('typeless {} in every strict dialect, fine when non-strict', () => {
    const input = z.toJSONSchema(z.object({ value: z.unknown() })) as JsonObject
    for (const d of ['openai-strict', 'anthropic-strict', 'gemini'] as const)
      expect(dialectError(() => toProviderSchema(input, d))).toMatchObject({
        keyword: 'type',
        path: '/properties/value',
      })
    expect(toProviderSchema(input, 'openai')).toEqual({
      type: 'object',
      properties: { value: {} },
      required: ['value'],
      additionalProperties: false,
    })
  })

  test('oneOf whose branches overlap', () => {
    const input: JsonObject = {
      type: 'object',
      properties: { x: { oneOf: [{ type: 'string' }, { type: 'string', minLength: 3 }] } },
    }
    expect(dialectError(() => toProviderSchema(input, 'openai-strict'))).toMatchObject({
      keyword: 'oneOf',
      path: '/properties/x/oneOf',
    })
    const numbers: JsonObject = {
      type: 'object',
      properties: { x: { oneOf: [{ type: 'integer' }, { type: 'number' }] } },
    }
    expect(dialectError(() => toProviderSchema(numbers, 'anthropic-strict'))).toMatchObject({
      keyword: 'oneOf',
    })
    const disjoint: JsonObject = {
      type: 'object',
      properties: { x: { oneOf: [{ type: 'integer' }, { type: 'string' }] } },
    }
    expect(toProviderSchema(disjoint, 'anthropic-strict')).toEqual({
      type: 'object',
      properties: { x: { anyOf: [{ type: 'integer' }, { type: 'string' }] } },
      additionalProperties: false,
    })
  })

  test('nesting past 10 levels and more than 5000 properties under openai-strict', () => {
    let node: JsonObject = { type: 'string' }
    for (let i = 0; i < 11; i++) node = { type: 'object', properties: { n: node }, required: ['n'] }
    expect(dialectError(() => toProviderSchema(node, 'openai-strict'))).toEqual({
      keyword: 'properties',
      path: '/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n',
      message: expect.stringContaining('nesting depth 11 exceeds the limit of 10 levels'),
    })
    let ten: JsonObject = { type: 'string' }
    for (let i = 0; i < 10; i++) ten = { type: 'object', properties: { n: ten }, required: ['n'] }
    expect(() => toProviderSchema(ten, 'openai-strict')).not.toThrow()
    const wide: JsonObject = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, { type: 'string' }])),
    }
    expect(dialectError(() => toProviderSchema(wide, 'openai-strict'))).toEqual({
      keyword: 'properties',
      path: '',
      message:
        'openai-strict cannot express `properties` at (root): 5001 object properties in total exceed the limit of 5000',
    })
  })

  test('recursion under anthropic-strict and gemini', () => {
    const T: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(T)
      },
    })
    const input = z.toJSONSchema(z.object({ t: T })) as JsonObject
    expect(dialectError(() => toProviderSchema(input, 'anthropic-strict'))).toEqual({
      keyword: '$ref',
      path: '/properties/t/properties/children/items/$ref',
      message: expect.stringContaining('recursive reference `#/$defs/__schema0`'),
    })
    expect(dialectError(() => toProviderSchema(input, 'gemini'))).toMatchObject({
      keyword: '$ref',
      path: '/properties/t/properties/children/items/$ref',
    })
  })

  test('a root that is not an object', () => {
    expect(dialectError(() => toProviderSchema({ type: 'string' }, 'openai-strict'))).toMatchObject({
      keyword: 'type',
      path: '',
    })
  })
})

describe('normalizeArgs', () => {
  const original = z.toJSONSchema(
    z.object({
      path: z.string(),
      offset: z.number().optional(),
      note: z.string().nullable().optional(),
      must: z.string().nullable(),
      opts: z.object({ depth: z.number().optional() }).optional(),
      items: z.array(z.object({ k: z.string().optional() })).optional(),
    }),
  ) as JsonObject

  test('nulls of optional non-nullable fields become absent, recursively; other nulls stay', () => {
    const args = Object.freeze({
      path: 'a',
      offset: null,
      note: null,
      must: null,
      opts: { depth: null },
      items: [{ k: null }, { k: 'x' }],
    })
    expect(normalizeArgs(args, original)).toEqual({
      path: 'a',
      note: null,
      must: null,
      opts: {},
      items: [{}, { k: 'x' }],
    })
    expect(normalizeArgs({ path: 'a', opts: null }, original)).toEqual({ path: 'a' })
  })

  test('a model key named __proto__ stays data: no prototype change, no schema read from Object.prototype', () => {
    const args = JSON.parse('{"path":"a","__proto__":{"polluted":true},"offset":null}')
    const out = normalizeArgs(args, original) as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(out.polluted).toBe(undefined)
    expect(JSON.stringify(out)).toBe('{"path":"a","__proto__":{"polluted":true}}')
  })

  test('through $ref and union branches', () => {
    const s: JsonObject = {
      type: 'object',
      properties: {
        u: {
          anyOf: [
            {
              type: 'object',
              properties: { kind: { const: 'a' }, x: { type: 'string' } },
              required: ['kind'],
            },
            { $ref: '#/$defs/b' },
          ],
        },
      },
      $defs: {
        b: {
          type: 'object',
          properties: { kind: { const: 'b' }, y: { type: 'number' } },
          required: ['kind'],
        },
      },
    }
    expect(normalizeArgs({ u: { kind: 'b', y: null } }, s)).toEqual({ u: { kind: 'b' } })
    expect(normalizeArgs({ u: { kind: 'a', x: null } }, s)).toEqual({ u: { kind: 'a' } })
  })
})

describe('strict-dialect notes only when the description does not say it (issue 17)', () => {
  test('a constraint the description already states by its value gets no note; one it does not, does', () => {
    const tool: JsonObject = {
      type: 'object',
      properties: {
        offset: { type: 'integer', description: 'Line to start from, 1-based.', minimum: 1 },
        limit: { type: 'integer', description: 'How many lines (at most 2000).', minimum: 1, maximum: 2000 },
        url: { type: 'string', description: 'The page, as a uri.', format: 'uri' },
        count: { type: 'integer', description: 'Up to 100 items.', minimum: 10 },
        owner: { type: 'string', description: 'The owner', 'x-mcp-header': 'owner' },
      },
      required: ['offset', 'limit', 'url', 'count', 'owner'],
      additionalProperties: false,
    }
    const out = toProviderSchema(tool, 'anthropic-strict') as {
      properties: Record<string, { description?: string }>
    }
    expect(Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, v.description]))).toEqual({
      offset: 'Line to start from, 1-based.',
      limit: 'How many lines (at most 2000). (minimum: 1)',
      url: 'The page, as a uri.',
      // "100" does not state minimum 10; an extension keyword is never "said" by a word.
      count: 'Up to 100 items. (minimum: 10)',
      owner: 'The owner (x-mcp-header: "owner")',
    })
  })
})
