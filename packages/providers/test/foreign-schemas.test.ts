// Issue 16 §3: foreign schemas never break a request. Real schemas from public MCP servers:
//   fixtures/mcp-schemas/server-filesystem.json  tools/list of @modelcontextprotocol/server-filesystem 2026.8.31
//   fixtures/mcp-schemas/server-everything.json  tools/list of @modelcontextprotocol/server-everything 2026.8.31
//   fixtures/mcp-schemas/github-mcp-server.json  github/github-mcp-server pkg/github/__toolsnaps__/
//     create_pull_request_review.snap and create_repository_ruleset.snap (inputSchema / outputSchema,
//     shortened: some properties of the ruleset left out)
// Only the schema JSON is kept.
import { readFileSync } from 'node:fs'
import type { JsonObject, ToolSchema } from '@toolgate/core'
import { normalizeSchema } from '@toolgate/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { CODECS } from '../src/client.js'
import { compileTools } from '../src/codecs/codec.js'
import { SchemaDialectError } from '../src/schema/dialect-error.js'
import { SCHEMA_DIALECTS } from '../src/schema/dialects.js'
import { toProviderSchema } from '../src/schema/to-provider-schema.js'

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/mcp-schemas/${name}.json`, import.meta.url), 'utf8')) as Record<
    string,
    JsonObject
  >
const REAL = {
  ...fixture('server-filesystem'),
  ...fixture('server-everything'),
  ...fixture('github-mcp-server'),
}

function error(run: () => unknown): { keyword: string; path: string; message: string } | 'no error' {
  try {
    run()
    return 'no error'
  } catch (e) {
    if (!(e instanceof SchemaDialectError)) throw e
    return { keyword: e.keyword, path: e.path, message: e.message }
  }
}

describe('schemas from real MCP servers', () => {
  test('every one converts in the lenient dialects, and converts or fails precisely in the strict ones', () => {
    const outcomes: Record<string, string> = {}
    for (const [name, schema] of Object.entries(REAL)) {
      for (const dialect of SCHEMA_DIALECTS) {
        const e = error(() => toProviderSchema(schema, dialect))
        if (dialect === 'openai' || dialect === 'anthropic') expect(e).toBe('no error')
        if (e !== 'no error') outcomes[`${name} ${dialect}`] = `${e.keyword} at ${e.path}`
      }
    }
    expect(outcomes).toEqual({
      'create_repository_ruleset openai-strict': 'additionalProperties at /properties/conditions',
      'create_repository_ruleset anthropic-strict': 'additionalProperties at /properties/conditions',
    })
  })

  test('the GitHub review tool under openai-strict: x-mcp-header moved into the description, optional fields nullable', () => {
    expect(toProviderSchema(REAL.create_pull_request_review!, 'openai-strict')).toEqual({
      type: 'object',
      properties: {
        body: { description: 'The review body text (optional)', type: ['string', 'null'] },
        commitID: {
          description: 'The SHA of the commit to review (optional, defaults to latest)',
          type: ['string', 'null'],
        },
        event: {
          description:
            'The review action to perform (APPROVE, REQUEST_CHANGES, or COMMENT). If omitted, creates a pending review.',
          enum: ['APPROVE', 'REQUEST_CHANGES', 'COMMENT', null],
          type: ['string', 'null'],
        },
        owner: {
          description: 'Repository owner (username or organization) (x-mcp-header: "owner")',
          type: 'string',
        },
        pullNumber: { description: 'The pull request number', minimum: 1, type: 'number' },
        repo: { description: 'Repository name (x-mcp-header: "repo")', type: 'string' },
      },
      required: ['body', 'commitID', 'event', 'owner', 'pullNumber', 'repo'],
      additionalProperties: false,
    })
  })

  test('$ref with sibling keywords (GitHub output schema) is merged with its target in strict dialects', () => {
    const out = toProviderSchema(REAL['create_repository_ruleset.output']!, 'openai-strict')
    const conditions = (out.properties as JsonObject).conditions as JsonObject
    expect((conditions.properties as JsonObject).repository_id).toEqual({
      type: ['object', 'null'],
      properties: {
        organization_ids: { items: { type: 'integer' }, type: ['array', 'null'] },
        repository_ids: { items: { type: 'integer' }, type: ['array', 'null'] },
      },
      additionalProperties: false,
      required: ['organization_ids', 'repository_ids'],
    })
    // Non-strict: sent as the server wrote it.
    expect(toProviderSchema(REAL['create_repository_ruleset.output']!, 'anthropic')).toEqual(
      REAL['create_repository_ruleset.output'],
    )
  })
})

describe('legacy and loose forms are normalized first', () => {
  const legacy: JsonObject = {
    $schema: 'http://json-schema.org/draft-04/schema#',
    properties: {
      count: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false },
      pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
      name: { type: 'string', required: true },
      tag: { $ref: '#/definitions/tag' },
      note: { type: 'string', nullable: true },
      any: { type: 'any' },
    },
    definitions: { tag: { type: 'string', enum: ['a', 'b'] } },
  }

  test('normalizeSchema says what it changed', () => {
    const n = normalizeSchema(legacy)
    expect(n.ok && n.schema).toEqual({
      type: 'object',
      properties: {
        count: { type: 'integer', exclusiveMinimum: 0, maximum: 10 },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
        name: { type: 'string' },
        tag: { $ref: '#/$defs/tag' },
        note: { type: ['string', 'null'] },
        any: {},
      },
      $defs: { tag: { type: 'string', enum: ['a', 'b'] } },
      required: ['name'],
    })
    expect(n.ok && n.notes.map((x) => `${x.path}: ${x.message}`)).toEqual([
      '/properties/count: draft-04 boolean exclusiveMinimum -> exclusiveMinimum: 0',
      '/properties/pair: array-form items (tuple) -> prefixItems',
      '/properties/note: OpenAPI nullable -> "null" added to the type',
      '/properties/any: draft-03 type "any": the type is left open',
      ': definitions -> $defs',
      ': draft-03 required: true on properties -> required: ["name"]',
      ': no root type: taken as type "object"',
    ])
  })

  test('strict dialects then say precisely what they cannot express', () => {
    expect(error(() => toProviderSchema(legacy, 'openai-strict'))).toEqual({
      keyword: 'prefixItems',
      path: '/properties/pair/prefixItems',
      message:
        'openai-strict cannot express `prefixItems` at /properties/pair/prefixItems: `prefixItems` cannot be expressed; send this tool non-strict',
    })
    const { pair: _p, any: _a, ...rest } = legacy.properties as JsonObject
    expect(toProviderSchema({ ...legacy, properties: rest }, 'openai-strict')).toEqual({
      type: 'object',
      properties: {
        count: { type: ['integer', 'null'], exclusiveMinimum: 0, maximum: 10 },
        name: { type: 'string' },
        tag: { anyOf: [{ $ref: '#/$defs/tag' }, { type: 'null' }] },
        note: { type: ['string', 'null'] },
      },
      $defs: { tag: { type: 'string', enum: ['a', 'b'] } },
      required: ['count', 'name', 'tag', 'note'],
      additionalProperties: false,
    })
  })

  test('an empty schema is a tool without arguments; a missing schema too', () => {
    for (const d of SCHEMA_DIALECTS)
      expect(toProviderSchema({}, d)).toEqual(
        d === 'openai-strict'
          ? { type: 'object', properties: {}, required: [], additionalProperties: false }
          : d === 'anthropic-strict'
            ? { type: 'object', properties: {}, additionalProperties: false }
            : { type: 'object', properties: {} },
      )
    expect(normalizeSchema(undefined)).toEqual({
      ok: true,
      schema: { type: 'object', properties: {} },
      notes: [{ path: '', message: 'no schema: taken as an object without arguments' }],
    })
  })

  test('OpenAPI nullable becomes nullable again for gemini', () => {
    expect(
      toProviderSchema({ type: 'object', properties: { n: { type: 'string', nullable: true } } }, 'gemini'),
    ).toEqual({ type: 'object', properties: { n: { type: 'string', nullable: true } } })
  })

  test('unusable schemas are refused with the path, never thrown as something else', () => {
    expect(normalizeSchema('oops')).toEqual({
      ok: false,
      path: '',
      problem: 'the schema is a string, not a JSON Schema object',
    })
    expect(normalizeSchema({ type: 'object', properties: { a: 5 } })).toEqual({
      ok: false,
      path: '/properties/a',
      problem: 'expected a schema (object or boolean), got number',
    })
    let deep: JsonObject = { type: 'string' }
    for (let i = 0; i < 70; i++) deep = { type: 'object', properties: { d: deep } }
    expect(normalizeSchema(deep)).toMatchObject({
      ok: false,
      problem: 'the schema is nested deeper than 64 levels',
    })
    expect(error(() => toProviderSchema(deep, 'anthropic'))).toMatchObject({ keyword: 'schema' })
  })
})

describe('strict dialects: allOf, closed objects, oneOf, limits', () => {
  test('allOf of objects is merged into one closed object', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        item: {
          allOf: [
            { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            { $ref: '#/$defs/named' },
          ],
        },
      },
      required: ['item'],
      $defs: { named: { type: 'object', properties: { name: { type: 'string' } } } },
    }
    expect((toProviderSchema(schema, 'anthropic-strict').properties as JsonObject).item).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, name: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    })
    const conflicting: JsonObject = {
      type: 'object',
      properties: {
        x: { allOf: [{ properties: { a: { type: 'string' } } }, { properties: { a: { type: 'number' } } }] },
      },
    }
    expect(error(() => toProviderSchema(conflicting, 'openai-strict'))).toMatchObject({
      keyword: 'allOf',
      path: '/properties/x/allOf/1/properties/a',
    })
  })

  test('objects are closed inside $defs and anyOf branches too', () => {
    const out = toProviderSchema(
      {
        type: 'object',
        properties: {
          v: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { $ref: '#/$defs/b' }] },
        },
        $defs: { b: { type: 'object', properties: { b: { type: 'string' } } } },
      },
      'anthropic-strict',
    )
    expect(out).toEqual({
      type: 'object',
      properties: {
        v: {
          anyOf: [
            { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
            { $ref: '#/$defs/b' },
          ],
        },
      },
      $defs: { b: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false } },
      additionalProperties: false,
    })
  })

  test('documented limits name the keyword and path', () => {
    const enums: JsonObject = {
      type: 'object',
      properties: { e: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } },
    }
    expect(error(() => toProviderSchema(enums, 'openai-strict'))).toMatchObject({
      keyword: 'enum',
      message:
        'openai-strict cannot express `enum` at (root): 1001 enum values in total exceed the limit of 1000',
    })
    const longEnums: JsonObject = {
      type: 'object',
      properties: {
        e: { type: 'string', enum: Array.from({ length: 300 }, (_, i) => `${'x'.repeat(60)}${i}`) },
      },
    }
    expect(error(() => toProviderSchema(longEnums, 'openai-strict'))).toMatchObject({ keyword: 'enum' })
    const optional: JsonObject = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`o${i}`, { type: 'string' }])),
    }
    expect(error(() => toProviderSchema(optional, 'anthropic-strict'))).toMatchObject({
      keyword: 'required',
      message:
        'anthropic-strict cannot express `required` at (root): 25 optional parameters exceed the limit of 24',
    })
    const unions: JsonObject = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 17 }, (_, i) => [`u${i}`, { anyOf: [{ type: 'string' }, { type: 'number' }] }]),
      ),
      required: Array.from({ length: 17 }, (_, i) => `u${i}`),
    }
    expect(error(() => toProviderSchema(unions, 'anthropic-strict'))).toMatchObject({ keyword: 'anyOf' })
    for (const pattern of ['^(?=a)', '(?<!x)y', '(a)\\1'])
      expect(
        error(() =>
          toProviderSchema(
            { type: 'object', properties: { p: { type: 'string', pattern } } },
            'openai-strict',
          ),
        ),
      ).toMatchObject({ keyword: 'pattern', path: '/properties/p/pattern' })
  })
})

describe('one bad tool never costs the request', () => {
  const tools: ToolSchema[] = [
    { name: 'good', description: 'ok', parameters: REAL.read_text_file! },
    { name: 'loose', description: 'free-form', parameters: REAL.create_repository_ruleset! },
    {
      name: 'broken',
      description: 'unusable',
      parameters: { type: 'object', properties: { a: 5 } } as unknown as JsonObject,
    },
  ]

  test('a tool that cannot be strict is sent non-strict; one that cannot be sent is left out and reported', () => {
    const { compiled, fallbacks, omissions } = compileTools(tools, 'openai-strict', 'openai', true)
    expect(compiled.map((c) => [c.tool.name, c.strict])).toEqual([
      ['good', true],
      ['loose', false],
    ])
    expect(fallbacks.map((f) => [f.tool, f.keyword, f.path])).toEqual([
      ['loose', 'additionalProperties', '/properties/conditions'],
      ['broken', 'schema', '/properties/a'],
    ])
    expect(omissions).toEqual([
      {
        tool: 'broken',
        keyword: 'schema',
        path: '/properties/a',
        message:
          'openai cannot express `schema` at /properties/a: expected a schema (object or boolean), got number',
      },
    ])
  })

  test('every wire encodes the rest of the request', () => {
    for (const codec of Object.values(CODECS)) {
      const encoded = codec.encodeRequest(
        { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools },
        { model: 'm', maxTokens: 100, stream: false, strictTools: true },
      )
      expect(JSON.stringify(encoded.body)).not.toContain('"broken"')
      expect(JSON.stringify(encoded.body)).toContain('"loose"')
      expect(encoded.schemaOmissions.map((o) => o.tool)).toEqual(['broken'])
    }
  })
})

describe('Anthropic strict budgets are enforced across the whole request', () => {
  /** A tool with `optional` optional string parameters, `unions` of them union-typed, and one required. */
  function budgetTool(name: string, optional: number, unions = 0): ToolSchema {
    const properties: Record<string, JsonObject> = { id: { type: 'string' } }
    for (let i = 0; i < optional; i++)
      properties[`o${i}`] = i < unions ? { type: ['string', 'number'] } : { type: 'string' }
    return { name, description: name, parameters: { type: 'object', properties, required: ['id'] } }
  }
  const strictOf = (tools: readonly ToolSchema[]) =>
    compileTools(tools, 'anthropic-strict', 'anthropic', true)

  test('at most 20 strict tools: the 21st and later go non-strict in request order, each reported', () => {
    const tools = Array.from({ length: 23 }, (_, i) => budgetTool(`t${String(i).padStart(2, '0')}`, 0))
    const { compiled, fallbacks, omissions } = strictOf(tools)
    expect(compiled.filter((c) => c.strict).map((c) => c.tool.name)).toEqual(
      tools.slice(0, 20).map((t) => t.name),
    )
    expect(fallbacks).toEqual(
      ['t20', 't21', 't22'].map((tool) => ({
        tool,
        keyword: 'strict',
        path: '',
        message:
          'the request already has 20 strict tools, the most the provider accepts; so this tool is sent non-strict',
      })),
    )
    expect(omissions).toEqual([])
    expect(compiled.map((c) => c.tool.name)).toEqual(tools.map((t) => t.name))
  })

  test('24 optional and 16 union-typed parameters in total: a tool that would overspend goes non-strict, later ones that fit stay strict', () => {
    const tools = [budgetTool('a', 10), budgetTool('b', 10), budgetTool('c', 10), budgetTool('d', 4)]
    const { compiled, fallbacks } = strictOf(tools)
    expect(compiled.map((c) => [c.tool.name, c.strict])).toEqual([
      ['a', true],
      ['b', true],
      ['c', false],
      ['d', true],
    ])
    expect(fallbacks).toEqual([
      {
        tool: 'c',
        keyword: 'required',
        path: '',
        message:
          "its 10 optional parameters would bring the request's strict tools to 30, over the limit of 24; so this tool is sent non-strict",
      },
    ])
    const unions = strictOf([budgetTool('u1', 10, 10), budgetTool('u2', 10, 7), budgetTool('u3', 6, 6)])
    expect(unions.compiled.map((c) => [c.tool.name, c.strict])).toEqual([
      ['u1', true],
      ['u2', false],
      ['u3', true],
    ])
    expect(unions.fallbacks.map((f) => [f.tool, f.keyword])).toEqual([['u2', 'anyOf']])
  })

  test('the wire carries strict only where the budget allows; never a request over the limits', () => {
    const tools = Array.from({ length: 30 }, (_, i) => budgetTool(`t${i}`, 3, 1))
    const encoded = CODECS.anthropic.encodeRequest(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools },
      { model: 'm', maxTokens: 100, stream: false, strictTools: true },
    )
    const sent = encoded.body.tools as { name: string; strict?: boolean }[]
    expect(sent).toHaveLength(30)
    // 3 optional each: 8 tools reach 24; 1 union each: within 16.
    expect(sent.filter((t) => t.strict === true).map((t) => t.name)).toEqual(
      tools.slice(0, 8).map((t) => t.name),
    )
    expect([...encoded.strictTools]).toEqual(tools.slice(0, 8).map((t) => t.name))
  })

  test('property: budgets hold for any tool list, and a prefix of the list is compiled the same (appending never changes what was sent)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 })), {
          maxLength: 40,
        }),
        fc.nat(),
        (shapes, cut) => {
          const tools = shapes.map(([optional, unions], i) =>
            budgetTool(`t${i}`, optional, Math.min(unions, optional)),
          )
          const all = strictOf(tools).compiled
          const strict = all.filter((c) => c.strict)
          const totals = strict.reduce(
            (n, c) => {
              const props = Object.values((c.tool.parameters.properties ?? {}) as Record<string, JsonObject>)
              return {
                optional: n.optional + props.length - 1,
                unions: n.unions + props.filter((p) => Array.isArray(p.type)).length,
              }
            },
            { optional: 0, unions: 0 },
          )
          expect(strict.length).toBeLessThanOrEqual(20)
          expect(totals.optional).toBeLessThanOrEqual(24)
          expect(totals.unions).toBeLessThanOrEqual(16)
          const prefix = tools.slice(0, cut % (tools.length + 1))
          expect(strictOf(prefix).compiled.map((c) => c.strict)).toEqual(
            all.slice(0, prefix.length).map((c) => c.strict),
          )
        },
      ),
    )
  })
})
