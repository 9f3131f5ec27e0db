// Test-only: the agent loop and a scripted model drive run_code end to end (codemode itself
// does not depend on @toolgate/agent).
import { runAgent } from '@toolgate/agent'
import { createRuntime, defineTool, textOutput } from '@toolgate/core'
import { scriptedModel } from '@toolgate/providers'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { codeMode } from '../src/index.js'

// Issue 17 / seed 001: a tool that concludes the turn from inside a run_code program concludes
// the run_code call around it, and the agent loop ends the turn there: no further model request.

function setup() {
  const runtime = createRuntime()
  runtime.use(codeMode({ mode: 'both' }))
  runtime.register(
    defineTool({
      name: 'finish',
      description: 'Hand the answer over and end the turn.',
      parameters: z.object({ answer: z.string() }),
      output: textOutput(),
      execute(args, exec) {
        if (args.answer !== 'not yet') exec.concludeTurn()
        return `handed over: ${args.answer}`
      },
    }),
  )
  return runtime
}

const runCode = (code: string) => ({
  name: 'run_code',
  arguments: { code, description: 'hand over' },
  callId: 'c1',
})

describe('a nested concludeTurn', () => {
  it('is forwarded to the run_code result, and the agent loop stops after it', async () => {
    const runtime = setup()
    const model = scriptedModel([
      { toolCalls: [runCode('return await tools.finish({ answer: "42" })')] },
      { text: 'never requested' },
    ])
    const run = runAgent({
      model,
      runtime,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
    })
    const result = await run.result
    expect(result.reason).toBe('completed')
    expect(model.requests.length).toBe(1)
    expect(result.appended.at(-1)).toEqual({
      role: 'tool',
      callId: 'c1',
      name: 'run_code',
      content: [{ type: 'text', text: 'handed over: 42' }],
      isError: false,
    })
  })

  it('is not forwarded when the sub-call did not conclude, or the program failed after it', async () => {
    for (const code of [
      'return await tools.finish({ answer: "not yet" })',
      'await tools.finish({ answer: "42" }); throw new Error("then broke")',
    ]) {
      const runtime = setup()
      const model = scriptedModel([{ toolCalls: [runCode(code)] }, { text: 'next turn' }])
      const run = runAgent({
        model,
        runtime,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      })
      const result = await run.result
      expect(model.requests.length).toBe(2)
      expect(result.reason).toBe('completed')
    }
  })
})
