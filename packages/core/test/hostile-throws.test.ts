import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRuntime, defineTool, textOutput } from '../src/index.js'

// Host code may throw anything (red team, issue 13 §2). A Proxy whose traps throw made every
// `instanceof` check on it throw, and an Error whose `message` getter throws made reading it throw:
// the failure escaped its stage's classification and the call ended as "the pipeline failed",
// blaming no stage and naming the trap. Each stage's failure is now described safely.

const hostile = {
  'a Proxy whose traps throw': () =>
    new Proxy(
      {},
      {
        get() {
          throw new Error('trap get')
        },
        getPrototypeOf() {
          throw new Error('trap getPrototypeOf')
        },
      },
    ),
  'a revoked Proxy': () => {
    const r = Proxy.revocable({}, {})
    r.revoke()
    return r.proxy
  },
  'an Error whose message getter throws': () => {
    const e = new Error('x')
    Object.defineProperty(e, 'message', {
      get() {
        throw new Error('getter')
      },
    })
    return e
  },
} as const

type Stage = 'body' | 'pre' | 'post' | 'wrapper' | 'guard'
const expected: Record<Stage, { code: string; where: string }> = {
  body: { code: 'TOOL_EXCEPTION', where: 'internal error' },
  pre: { code: 'LISTENER_EXCEPTION', where: 'a tools/pre-execute listener failed' },
  post: { code: 'LISTENER_EXCEPTION', where: 'a tools/post-execute listener failed' },
  wrapper: { code: 'LISTENER_EXCEPTION', where: 'a tools/execute wrapper failed' },
  guard: { code: 'LISTENER_EXCEPTION', where: 'a guard failed' },
}

describe('a hostile thrown value is described, and blamed on its stage', () => {
  for (const [what, make] of Object.entries(hostile)) {
    for (const stage of Object.keys(expected) as Stage[]) {
      it(`${what}, thrown by ${stage}`, async () => {
        const runtime = createRuntime()
        runtime.register(
          defineTool({
            name: 't',
            description: 'A test tool.',
            parameters: z.object({}),
            output: textOutput(),
            execute: async () => {
              if (stage === 'body') throw make()
              return 'ok'
            },
          }),
        )
        if (stage === 'pre')
          runtime.on('tools/pre-execute', () => {
            throw make()
          })
        if (stage === 'post')
          runtime.on('tools/post-execute', () => {
            throw make()
          })
        if (stage === 'wrapper')
          runtime.on('tools/execute', () => {
            throw make()
          })
        if (stage === 'guard')
          runtime.guard(() => {
            throw make()
          })
        const result = await runtime.execute({ callId: 'c1', name: 't', arguments: {} })
        expect(result.error?.code).toBe(expected[stage].code)
        expect(result.content).toEqual([
          {
            type: 'text',
            text: `The t tool failed unexpectedly (${expected[stage].where}: an unprintable value was thrown). This is not caused by your arguments; you may retry once, then report the problem.`,
          },
        ])
      })
    }
  }
})
