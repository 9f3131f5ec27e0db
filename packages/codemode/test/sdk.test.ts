import { describe, expect, it } from 'vitest'
import { type CodeSdkTool, renderCodeSdkFromSchemas } from '../src/index.js'
import { typecheck } from './typecheck.js'

const TOOLS: CodeSdkTool[] = [
  {
    name: 'write',
    description: 'Write a file. Creates parent directories. */ not the end of the comment',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Absolute or workspace-relative path' },
        content: { type: 'string' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    output: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] },
  },
  {
    name: 'read',
    description: 'Read a text file.\nReturns numbered lines.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
      required: ['path'],
    },
    output: { type: 'string' },
  },
  {
    name: 'grep',
    description: 'Search files.',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        output_mode: { enum: ['content', 'files_with_matches', 'count'] },
        'case-sensitive': { type: 'boolean' },
      },
      required: ['pattern'],
    },
    output: {
      type: 'object',
      properties: {
        matches: { type: 'array', items: { $ref: '#/$defs/match' } },
        truncated: { type: ['boolean', 'null'] },
        mode: { const: 'content' },
        meta: { type: 'object', additionalProperties: { type: 'number' } },
        tree: { $ref: '#/$defs/node' },
      },
      required: ['matches'],
      $defs: {
        match: {
          type: 'object',
          properties: { path: { type: 'string' }, line: { type: 'integer', nullable: true } },
          required: ['path', 'line'],
        },
        node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/node' } },
          },
          required: ['name'],
        },
      },
    },
  },
  {
    name: 'job_kill',
    description: 'Stop a background job.',
    parameters: {
      type: 'object',
      properties: {
        job_id: { type: 'string' },
        target: {
          anyOf: [
            { type: 'string' },
            { type: 'object', properties: { pid: { type: 'number' } }, required: ['pid'] },
          ],
        },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        extra: {
          type: 'object',
          properties: { a: { type: 'string' } },
          additionalProperties: { type: 'string' },
        },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } } },
            { type: 'object', properties: { b: { type: 'number' } } },
          ],
        },
      },
      required: ['job_id'],
    },
  },
  {
    name: '__proto__',
    description: '',
    parameters: { type: 'object', properties: {} },
    output: { type: 'null' },
  },
]

const EXPECTED = `// Tools available inside run_code. Call them with \`await tools.<name>(args)\`.
// Each call runs through the same policy and approvals as a direct call; it resolves to the
// tool's structured output and rejects with ToolCallError when it fails or is denied.

type GrepOutputMatch = {
  path: string
  line: number | null
}

type GrepOutputNode = {
  name: string
  children?: GrepOutputNode[]
}

interface ToolArgsMap {
  __proto__: { [key: string]: unknown }
  /** Search files. */
  grep: {
    pattern: string
    output_mode?: "content" | "files_with_matches" | "count"
    "case-sensitive"?: boolean
  }
  /** Stop a background job. */
  job_kill: {
    job_id: string
    target?: string | {
      pid: number
    }
    pair?: [string, number]
    extra?: {
      a?: string
    } & { [key: string]: string }
    both?: {
      a?: string
    } & {
      b?: number
    }
  }
  /**
   * Read a text file.
   * Returns numbered lines.
   */
  read: {
    path: string
    offset?: number
    limit?: number
  }
  /** Write a file. Creates parent directories. *\\/ not the end of the comment */
  write: {
    /** Absolute or workspace-relative path */
    path: string
    content: string
  }
}

interface ToolOutputMap {
  __proto__: null
  grep: {
    matches: GrepOutputMatch[]
    truncated?: boolean | null
    mode?: "content"
    meta?: { [key: string]: number }
    tree?: GrepOutputNode
  }
  job_kill: unknown
  read: string
  write: {
    bytes: number
  }
}

type ToolName = keyof ToolArgsMap

declare const tools: { readonly [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> }

/** A tool call failed or was denied. \`message\` says why and what to do next. */
declare class ToolCallError extends Error {
  readonly name: 'ToolCallError'
  readonly toolName: ToolName
}
`

describe('renderCodeSdkFromSchemas', () => {
  it('renders the exact declaration: sorted by name, JSDoc descriptions, quoted keys, $defs as named types', () => {
    expect(renderCodeSdkFromSchemas(TOOLS)).toBe(EXPECTED)
  })

  it('is byte-stable whatever the input order', () => {
    expect(renderCodeSdkFromSchemas([...TOOLS].reverse())).toBe(renderCodeSdkFromSchemas(TOOLS))
  })

  it('type-checks on its own and with a correct program (real TypeScript compiler)', () => {
    const program = [
      'const text: string = await tools.read({ path: "a.txt", limit: 10 })',
      'const found = await tools.grep({ pattern: "x", output_mode: "count" })',
      'for (const m of found.matches) { const p: string = m.path; const l: number | null = m.line; void p; void l }',
      'const w = await tools.write({ path: "b.txt", content: text })',
      'const n: number = w.bytes',
      'await tools.__proto__({})',
      'await tools.job_kill({ job_id: "j1", target: { pid: 1 }, pair: ["a", 1], extra: { a: "x", b: "y" } })',
      'try { await tools.read({ path: "x" }) } catch (e) { if (e instanceof ToolCallError) { const t: ToolName = e.toolName; const nm: "ToolCallError" = e.name; void t; void nm } }',
      'return n',
    ].join('\n')
    expect(typecheck(EXPECTED, program)).toEqual([])
  })

  it('rejects a program that misuses it', () => {
    const errors = typecheck(
      EXPECTED,
      [
        'await tools.read({ file: "a.txt" })',
        'await tools.grep({ pattern: "x", output_mode: "lines" })',
        'const n: number = await tools.read({ path: "a" })',
        'await tools.bash({ command: "ls" })',
      ].join('\n'),
    )
    expect(errors.length).toBe(4)
    expect(errors.every((e) => e.startsWith('/main.ts: '))).toBe(true)
    expect(errors.join('\n')).toContain("Property 'bash' does not exist")
  })

  it('an empty tool list still type-checks', () => {
    expect(typecheck(renderCodeSdkFromSchemas([]), 'return 1')).toEqual([])
  })
})
