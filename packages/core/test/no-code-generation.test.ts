import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRuntime, defineTool, textOutput } from '../src/index.js'

// The core claims browsers and edge runtimes (README), where code generation may be forbidden (a
// CSP without 'unsafe-eval', Cloudflare Workers). ajv compiles plain JSON Schema with `new
// Function`; such a runtime throws EvalError from it. Node cannot turn code generation off after
// start-up (`--disallow-code-generation-from-strings` is a start-up flag and this suite runs on the
// TypeScript sources), so this file, in its own process (vitest forks), makes `Function` throw the
// EvalError those runtimes throw, and checks what a host sees. Its own file: zod caches whether
// eval works on first use.

const realFunction = globalThis.Function
afterEach(() => {
  globalThis.Function = realFunction
})

function forbidCodeGeneration(): void {
  const refuse = function refusingFunction(): never {
    throw new EvalError('Code generation from strings disallowed for this context')
  }
  globalThis.Function = refuse as unknown as FunctionConstructor
}

describe('a runtime that forbids code generation', () => {
  it('a plain JSON Schema tool is refused at registration with the reason and what to do instead', () => {
    forbidCodeGeneration()
    const runtime = createRuntime()
    const tool = defineTool({
      name: 'echo',
      description: 'Echo the text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      output: textOutput(),
      execute: (args: unknown) => JSON.stringify(args),
    })
    expect(() => runtime.use((ctx) => void ctx.register(tool))).toThrow(
      'Tool "echo" parameters is a plain JSON Schema, which toolgate compiles with ajv, and ajv generates code (new Function), which this runtime forbids (Code generation from strings disallowed for this context). Give the tool a Standard Schema instead (zod v4 validates without generated code there), or register it where code generation is allowed.',
    )
  })

  it('a tool whose schemas are all zod registers and validates (zod falls back to no generated code)', async () => {
    forbidCodeGeneration()
    const runtime = createRuntime()
    runtime.use(
      (ctx) =>
        void ctx.register(
          defineTool({
            name: 'echo',
            description: 'Echo the text.',
            parameters: z.object({ text: z.string() }),
            output: { schema: z.string(), render: (_args, value: string) => [{ type: 'text', text: value }] },
            execute: (args) => args.text,
          }),
        ),
    )
    const ok = await runtime.execute({ callId: 'c1', name: 'echo', arguments: { text: 'hi' } })
    expect(ok.content).toEqual([{ type: 'text', text: 'hi' }])
    const bad = await runtime.execute({ callId: 'c2', name: 'echo', arguments: { text: 1 } })
    expect(bad.error?.code).toBe('INVALID_ARGS')
  })

  it('the limit: textOutput() and jsonOutput() declare plain JSON Schema, so they need code generation too', () => {
    forbidCodeGeneration()
    const runtime = createRuntime()
    const tool = defineTool({
      name: 'echo',
      description: 'Echo the text.',
      parameters: z.object({ text: z.string() }),
      output: textOutput(),
      execute: (args) => args.text,
    })
    expect(() => runtime.use((ctx) => void ctx.register(tool))).toThrow(
      'Tool "echo" output.schema is a plain JSON Schema, which toolgate compiles with ajv',
    )
  })
})
