import { describe, expect, it } from 'vitest'
import {
  NO_OUTPUT_TEXT,
  renderRunCodeFailure,
  renderRunCodeOutput,
  renderRunCodeValue,
} from '../src/index.js'
import { run } from './helpers.js'

describe('run_code output rendering', () => {
  it('logs, then the result: strings raw, other values as pretty JSON', () => {
    expect(renderRunCodeValue({ logs: ['a', 'b'], result: 'plain text' })).toBe('a\nb\nplain text')
    expect(renderRunCodeValue({ logs: ['a'], result: { n: 1, list: [1, 2] } })).toBe(
      'a\n{\n  "n": 1,\n  "list": [\n    1,\n    2\n  ]\n}',
    )
    expect(renderRunCodeValue({ logs: [], result: null })).toBe('null')
  })

  it('nothing at all is an explicit marker', () => {
    expect(renderRunCodeValue({ logs: [] })).toBe('(run_code completed with no output)')
    expect(NO_OUTPUT_TEXT).toBe('(run_code completed with no output)')
  })

  it('mentions sub-calls the program forgot to await', () => {
    expect(renderRunCodeValue({ logs: [] }, [{ subIndex: 2, name: 'write' }])).toBe(
      'Note: 1 tool call(s) were still pending when the program ended and were cancelled: write (#2). Await every tools.* call.',
    )
  })

  it('failures: CODE_RUN_FAILED (kind): message, the next step, then the output so far', () => {
    expect(
      renderRunCodeFailure({
        kind: 'timeout',
        message: 'The program ran longer than 200 ms and was stopped.',
        logs: ['started'],
      }),
    ).toBe(
      [
        'CODE_RUN_FAILED (timeout): The program ran longer than 200 ms and was stopped.',
        'Do less per run: fewer or smaller tool calls, no busy loops, or split the work across several run_code calls (a larger timeout_ms is possible if the work is genuinely long).',
        'Output before the failure:',
        'started',
      ].join('\n'),
    )
  })

  it('renders real sandbox outcomes', async () => {
    expect(renderRunCodeOutput(await run('console.log("x")\nreturn [1]'))).toBe('x\n[\n  1\n]')
    expect(renderRunCodeOutput(await run(''))).toBe(NO_OUTPUT_TEXT)
    expect(renderRunCodeOutput(await run('let x: number = ;'))).toBe(
      [
        'CODE_RUN_FAILED (syntax): The program could not be compiled:',
        'program.ts:1:17: Expression expected.',
        'Fix these and run it again. The program is the body of an async function (top-level await and return work) written in TypeScript whose types can simply be erased.',
      ].join('\n'),
    )
    expect(
      renderRunCodeOutput(
        await run('let a = [1]\nfor (;;) a = a.concat(a)', { memoryBytes: 8 * 1024 * 1024 }),
      ),
    ).toBe(
      [
        'CODE_RUN_FAILED (memory): The program exceeded the memory limit of 8 MB.',
        'Process data in smaller pieces and keep only what you need: return summaries or the few fields you need, not whole files or results.',
      ].join('\n'),
    )
    expect(renderRunCodeOutput(await run('console.log("before")\nreturn new Set([1])'))).toBe(
      [
        "CODE_RUN_FAILED (invalid-output): The program's return value: result is a Set object; only plain objects and arrays are JSON. Only plain JSON data can cross: objects, arrays, strings, finite numbers, booleans and null.",
        'Return plain JSON data (objects, arrays, strings, finite numbers, booleans, null) or nothing; convert Maps, Sets, Dates and class instances first.',
        'Output before the failure:',
        'before',
      ].join('\n'),
    )
  })
})
