import { describe, expect, it } from 'vitest'
import {
  type DispatchOutcome,
  MAX_PENDING_ARGS_CHARS,
  MAX_PENDING_SUB_CALLS,
  MESSAGE_MAX_CHARS,
  renderRunCodeOutput,
  runSandboxed,
  SANDBOX_DEFAULTS,
} from '../src/index.js'
import { subCallBridge } from '../src/sub-calls.js'
import { run } from './helpers.js'

// Issue 13 §1/§4 (red team): nothing a program sends may flood the host or the model. The output
// limit bounded the console and the result, but not what else a program controls: an error's
// message, name and stack (a 20 MB `throw` became 20 MB of model text), the pretty-printed form
// of the result (indentation multiplied a 64 KiB result by the nesting depth), the note listing
// abandoned calls (200,000 unawaited calls, 2.5 MB of text) and the sub-calls waiting on the host
// (a program firing 1 MB arguments without awaiting held 440 MB of the host's memory in 8 s).

const cut = (total: number) =>
  `… [${(total - MESSAGE_MAX_CHARS).toLocaleString('en-US')} more characters cut]`

describe('what a failed run tells the model is bounded', () => {
  it('a 2,000,000-character error message is cut', async () => {
    const r = await run(`throw new Error('x'.repeat(2_000_000))`)
    const head = `Uncaught Error: ${'x'.repeat(2_000_000)}`
    expect(r).toMatchObject({
      ok: false,
      kind: 'exception',
      message: `${head.slice(0, MESSAGE_MAX_CHARS)}${cut(head.length + '\n  at program.ts:1:16'.length)}`,
    })
  })

  it('a thrown 2,000,000-character string, an error name and a function name in the stack are cut', async () => {
    const programs = [
      `throw 'y'.repeat(2_000_000)`,
      `const e = new Error('m'); e.name = 'N'.repeat(2_000_000); throw e`,
      `function ${'f'.repeat(100_000)}() { throw new Error('s') }\n${'f'.repeat(100_000)}()`,
    ]
    for (const code of programs) {
      const r = await run(code)
      expect(r.ok).toBe(false)
      if (r.ok) continue
      expect(r.kind).toBe('exception')
      expect(r.message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS + 40)
      expect(r.message).toMatch(/… \[[\d,]+ more characters cut\]$/)
      expect(renderRunCodeOutput(r).length).toBeLessThan(MESSAGE_MAX_CHARS + 400)
    }
  })

  it('a short message is unchanged', async () => {
    const r = await run(`throw new Error('short')`)
    expect(r).toMatchObject({
      ok: false,
      kind: 'exception',
      message: 'Uncaught Error: short\n  at program.ts:1:16',
    })
  })
})

describe('the result counts against the output limit as the model reads it', () => {
  it('a nested result whose pretty-printed form passes the limit is output-limit', async () => {
    // compact: ~8 KB; pretty-printed with two spaces per level: ~260 KB
    const code = 'let a = Array(4000).fill(1)\nfor (let i = 0; i < 60; i++) a = [a]\nreturn a'
    const r = await run(code)
    expect(r).toMatchObject({
      ok: false,
      kind: 'output-limit',
      message: "The program's output exceeded 65536 bytes and it was stopped.",
    })
  })

  it('a nested result that fits pretty-printed is returned', async () => {
    const r = await run('let a = [1, 2]\nfor (let i = 0; i < 3; i++) a = [a]\nreturn a')
    expect(r).toMatchObject({ ok: true, result: [[[[1, 2]]]] })
    expect(renderRunCodeOutput(r)).toBe(
      '[\n  [\n    [\n      [\n        1,\n        2\n      ]\n    ]\n  ]\n]',
    )
  })
})

describe('sub-calls cannot pile up on the host', () => {
  it(`at most ${MAX_PENDING_SUB_CALLS} sub-calls wait at once; the next ones reject without being dispatched`, async () => {
    let dispatched = 0
    const r = await runSandboxed({
      code: `const ps = []
for (let i = 0; i < ${MAX_PENDING_SUB_CALLS + 500}; i++) ps.push(tools.echo({ i }).then(() => 'ok', (e) => e.message))
const rejected = await Promise.all(ps.slice(${MAX_PENDING_SUB_CALLS}))
return [rejected.length, new Set(rejected).size]`,
      tools: ['echo'],
      timeoutMs: 10_000,
      dispatch: () => {
        dispatched++
        return new Promise<DispatchOutcome>(() => {})
      },
    })
    expect(dispatched).toBe(MAX_PENDING_SUB_CALLS)
    // refused inside the VM: they never crossed
    expect(r.subCalls).toBe(MAX_PENDING_SUB_CALLS)
    expect(r.abandoned.length).toBe(MAX_PENDING_SUB_CALLS)
    expect(r).toMatchObject({ ok: true, result: [500, 1] })
  })

  it('the rejection says why and what to do', async () => {
    const r = await runSandboxed({
      code: `const ps = []
for (let i = 0; i < ${MAX_PENDING_SUB_CALLS}; i++) ps.push(tools.echo({ i }))
try { await tools.echo({ last: true }) } catch (e) { return [e.name, e.toolName, e.message] }`,
      tools: ['echo'],
      timeoutMs: 10_000,
      dispatch: () => new Promise<DispatchOutcome>(() => {}),
    })
    expect(r).toMatchObject({
      ok: true,
      result: [
        'ToolCallError',
        'echo',
        `This echo call was not started: ${MAX_PENDING_SUB_CALLS.toLocaleString('en-US')} tool calls (or ${MAX_PENDING_ARGS_CHARS.toLocaleString('en-US')} characters of arguments) are already waiting for an answer, the most one program may have pending. Await earlier calls before making more (for example in batches of 50 with Promise.all).`,
      ],
    })
  })

  it(`arguments waiting on the host are bounded by ${MAX_PENDING_ARGS_CHARS} characters`, async () => {
    const held: string[] = []
    const r = await runSandboxed({
      code: `const s = 'z'.repeat(1_000_000)
let rejected = 0
for (let i = 0; i < 40; i++) { tools.slow({ s }).catch(() => { rejected++ }); await tools.fast({}) }
return rejected`,
      tools: ['slow', 'fast'],
      timeoutMs: 20_000,
      dispatch: (name, argsJson) => {
        if (name === 'fast') return Promise.resolve({ ok: true, value: null })
        held.push(argsJson)
        return new Promise<DispatchOutcome>(() => {})
      },
    })
    const heldChars = held.reduce((n, a) => n + a.length, 0)
    expect(heldChars).toBeLessThanOrEqual(MAX_PENDING_ARGS_CHARS)
    expect(r).toMatchObject({ ok: true, result: 40 - held.length })
    expect(held.length).toBe(Math.floor(MAX_PENDING_ARGS_CHARS / (1_000_000 + 8)))
  })

  it('the note on abandoned calls names the first 20 and counts the rest', async () => {
    const r = await runSandboxed({
      code: 'for (let i = 0; i < 500; i++) tools.echo({ i })\nreturn 1',
      tools: ['echo'],
      timeoutMs: 10_000,
      dispatch: () => new Promise<DispatchOutcome>(() => {}),
    })
    expect(r.abandoned.length).toBe(500)
    const names = Array.from({ length: 20 }, (_, i) => `echo (#${i})`).join(', ')
    expect(renderRunCodeOutput(r)).toBe(
      `1\nNote: 500 tool call(s) were still pending when the program ended and were cancelled: ${names} and 480 more. Await every tools.* call.`,
    )
  })
})

describe('a run dispatches at most maxSubCalls sub-calls', () => {
  // Each sub-call is a full pipeline call with its session events: an endless fan-out of trivial
  // calls logged 330,000 events (53 MB) in 5 s through codeMode(), for up to 10 minutes a run.
  it(`by default ${SANDBOX_DEFAULTS.maxSubCalls}; the next ones reject with what to do`, async () => {
    let dispatched = 0
    const r = await runSandboxed({
      code: `let ok = 0, last = ''
for (let i = 0; i < ${SANDBOX_DEFAULTS.maxSubCalls + 100} / 50; i++) {
  const rs = await Promise.all(Array.from({ length: 50 }, () => tools.echo({}).then(() => 1, (e) => { last = e.message; return 0 })))
  ok += rs.reduce((a, b) => a + b, 0)
}
return [ok, last]`,
      tools: ['echo'],
      timeoutMs: 60_000,
      dispatch: () => {
        dispatched++
        return Promise.resolve({ ok: true, value: null })
      },
    })
    expect(dispatched).toBe(SANDBOX_DEFAULTS.maxSubCalls)
    expect(r).toMatchObject({
      ok: true,
      result: [
        SANDBOX_DEFAULTS.maxSubCalls,
        'This echo call was not started: the program already made 10,000 tool calls, the most one run may make. Split the work across several run_code calls (each can continue where the last one stopped).',
      ],
    })
  })

  it('maxSubCalls is an option', async () => {
    let dispatched = 0
    const r = await runSandboxed({
      code: 'const rs = []\nfor (let i = 0; i < 5; i++) rs.push(await tools.echo({}).then(() => "ok", () => "refused"))\nreturn rs',
      tools: ['echo'],
      maxSubCalls: 3,
      dispatch: () => {
        dispatched++
        return Promise.resolve({ ok: true, value: null })
      },
    })
    expect(dispatched).toBe(3)
    expect(r).toMatchObject({ ok: true, result: ['ok', 'ok', 'ok', 'refused', 'refused'] })
  })
})

describe('a deadline past what a timer holds', () => {
  // setTimeout fires after 1 ms for anything over 2^31 - 1 (with a warning on the host's stderr):
  // a timeout of 3e9 or Infinity ended every run at once, "ran longer than 3000000000 ms".
  it.each([3e9, Number.POSITIVE_INFINITY, 2 ** 31])(
    'timeoutMs %d runs the program to its end',
    async (timeoutMs) => {
      const r = await run('let s = 0\nfor (let i = 0; i < 1000; i++) s += i\nreturn s', { timeoutMs })
      expect(r).toMatchObject({ ok: true, result: 499500 })
    },
  )
})

describe('the host checks the limits again (a VM that ignored them)', () => {
  // The prelude refuses these calls before they cross; the bridge must not rely on it.
  it('frames past the pending or the per-run limit are refused undispatched', async () => {
    const sent: { codes: number[]; texts: string[] }[] = []
    let dispatched = 0
    const bridge = subCallBridge({
      tools: ['echo'],
      dispatch: () => {
        dispatched++
        return new Promise<DispatchOutcome>(() => {})
      },
      maxSubCalls: 1_002,
      signal: new AbortController().signal,
      ended: () => false,
      send: (codes, texts) => sent.push({ codes, texts }),
    })
    bridge.dispatchFrames('0\n{}\n'.repeat(MAX_PENDING_SUB_CALLS + 2))
    await Promise.resolve()
    expect(dispatched).toBe(MAX_PENDING_SUB_CALLS)
    expect(sent).toEqual([
      {
        codes: [-MAX_PENDING_SUB_CALLS - 1, -MAX_PENDING_SUB_CALLS - 2],
        texts: Array(2).fill(
          JSON.stringify([
            'This echo call was not started: 1,000 tool calls (or 16,777,216 characters of arguments) are already waiting for an answer, the most one program may have pending. Await earlier calls before making more (for example in batches of 50 with Promise.all).',
            'echo',
          ]),
        ),
      },
    ])
    expect(bridge.abandoned().length).toBe(MAX_PENDING_SUB_CALLS)
  })
})
