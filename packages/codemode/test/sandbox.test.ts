import { describe, expect, it } from 'vitest'
import type { DispatchOutcome } from '../src/index.js'
import { runSandboxed } from '../src/index.js'
import { gate, plain, recordingDispatch, run } from './helpers.js'

describe('runSandboxed: results and logs', () => {
  it('returns the program value as JSON and captures console lines in order', async () => {
    const r = await run(
      'console.log("hi", { a: [1, "x"] }, 3, null, undefined)\nconsole.warn("careful")\nconsole.error(new TypeError("bad"))\nreturn { n: 1 }',
    )
    expect(plain(r)).toEqual({
      ok: true,
      result: { n: 1 },
      logs: ['hi {"a": [1, "x"]} 3 null undefined', '[warn] careful', '[error] TypeError: bad'],
      subCalls: 0,
      abandoned: [],
    })
  })

  it('a program without a return value has no result', async () => {
    expect(plain(await run('const a = 1'))).toEqual({ ok: true, logs: [], subCalls: 0, abandoned: [] })
  })

  it('reports exceptions with the model’s own line numbers', async () => {
    const r = await run('const a = 1\nnull.x')
    expect(r).toMatchObject({
      ok: false,
      kind: 'exception',
      message: "Uncaught TypeError: cannot read property 'x' of null\n  at program.ts:2:5",
    })
  })

  it('keeps the logs written before a failure', async () => {
    const r = await run('console.log("step 1")\nthrow new Error("boom")')
    expect(r).toMatchObject({ ok: false, kind: 'exception', logs: ['step 1'] })
    expect(r.ok === false && r.message.startsWith('Uncaught Error: boom')).toBe(true)
  })

  it('a non-JSON return value is invalid-output', async () => {
    for (const [code, problem] of [
      ['return new Map()', 'result is a Map object'],
      ['return { f() {} }', 'result.f is a function'],
      ['return [1, , 3]', 'result[1] is a hole in a sparse array'],
      ['return { n: NaN }', 'result.n is NaN'],
      ['return 10n', 'result is a BigInt'],
    ] as const) {
      const r = await run(code)
      expect(r).toMatchObject({ ok: false, kind: 'invalid-output' })
      expect(r.ok === false && r.message).toContain(problem)
    }
  })

  it('compile errors from QuickJS are syntax failures', async () => {
    // valid TypeScript syntax, invalid for the engine: `await` in a non-async nested function
    const r = await run('function f() { await 1 }')
    expect(r).toMatchObject({ ok: false, kind: 'syntax' })
  })

  it('the same program yields the same result in a fresh context each run (no state carried over)', async () => {
    const code = 'globalThis.counter = (globalThis.counter ?? 0) + 1; return counter'
    expect(plain(await run(code))).toMatchObject({ ok: true, result: 1 })
    expect(plain(await run(code))).toMatchObject({ ok: true, result: 1 })
  })
})

describe('runSandboxed: sub-calls', () => {
  it('sends lossless JSON text with a running sub-index and resolves to the value', async () => {
    const { dispatch, calls } = recordingDispatch()
    const r = await run(
      'const a = await tools.echo({ path: "a.txt", n: -0, list: [1, "two", null, true] })\nreturn a',
      {
        dispatch,
      },
    )
    expect(calls.map(({ name, argsJson, subIndex }) => ({ name, argsJson, subIndex }))).toEqual([
      { name: 'echo', argsJson: '{"path":"a.txt","n":0,"list":[1,"two",null,true]}', subIndex: 0 },
    ])
    expect(plain(r)).toEqual({
      ok: true,
      result: { tool: 'echo', args: { path: 'a.txt', n: 0, list: [1, 'two', null, true] } },
      logs: [],
      subCalls: 1,
      abandoned: [],
    })
  })

  it('calling with no arguments sends {}', async () => {
    const { dispatch, calls } = recordingDispatch()
    await run('await tools.echo()', { dispatch })
    expect(calls.map((c) => c.argsJson)).toEqual(['{}'])
  })

  it('a failed dispatch rejects with ToolCallError (name, toolName, message; nothing else)', async () => {
    const { dispatch } = recordingDispatch(() => ({
      ok: false,
      message: 'Permission denied: writes outside the workspace.',
    }))
    const r = await run(
      'try { await tools.echo({}) } catch (e) { return { name: e.name, toolName: e.toolName, message: e.message, isErr: e instanceof ToolCallError, isError: e instanceof Error, keys: Object.keys(e) } }',
      { dispatch },
    )
    expect(plain(r)).toMatchObject({
      ok: true,
      result: {
        name: 'ToolCallError',
        toolName: 'echo',
        message: 'Permission denied: writes outside the workspace.',
        isErr: true,
        isError: true,
        keys: ['toolName'],
      },
    })
  })

  it('an uncaught ToolCallError fails the run as an exception naming the tool', async () => {
    const { dispatch } = recordingDispatch(() => ({ ok: false, message: 'File not found: a.txt' }))
    const r = await run('await tools.echo({ path: "a.txt" })', { dispatch })
    expect(r).toMatchObject({ ok: false, kind: 'exception' })
    expect(r.ok === false && r.message.split('\n')[0]).toBe('Uncaught ToolCallError: File not found: a.txt')
  })

  it('a dispatcher may answer through settle instead of a promise; the first answer counts', async () => {
    const answers: ((value: number) => void)[] = []
    const r = runSandboxed({
      code: 'const a = await tools.echo({})\nconst [b, c] = await Promise.all([tools.echo({}), tools.echo({})])\nreturn [a, b, c]',
      tools: ['echo'],
      timeoutMs: 10_000,
      dispatch: (_name, _argsJson, subIndex, _signal, settle) => {
        if (subIndex === 0) {
          // at once, twice: the second answer is ignored
          settle(0, { ok: true, value: 'first' })
          settle(0, { ok: true, value: 'second' })
          return
        }
        answers.push((value) => settle(subIndex, { ok: true, value }))
        // both concurrent calls are out: answer them in reverse order, from outside the dispatch
        if (answers.length === 2) {
          queueMicrotask(() => {
            answers[1]!(2)
            answers[0]!(1)
          })
        }
      },
    })
    expect(plain(await r)).toEqual({
      ok: true,
      result: ['first', 1, 2],
      logs: [],
      subCalls: 3,
      abandoned: [],
    })
  })

  it('a dispatcher that throws becomes a ToolCallError, not a host crash', async () => {
    const r = await run('try { await tools.echo({}) } catch (e) { return e.message }', {
      dispatch: () => {
        throw new Error('dispatcher bug')
      },
    })
    expect(plain(r)).toMatchObject({ ok: true, result: 'The tool call failed unexpectedly: dispatcher bug' })
  })

  it('supports 50 concurrent pending sub-calls (Promise.all), settled in any order', async () => {
    const waiting: { subIndex: number; open: (o: DispatchOutcome) => void }[] = []
    const all = gate()
    const r = runSandboxed({
      code: 'const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => tools.echo({ i })))\nreturn rs.reduce((s, r) => s + r, 0)',
      tools: ['echo'],
      timeoutMs: 5_000,
      dispatch: (_name, argsJson, subIndex) => {
        const g = gate<DispatchOutcome>()
        waiting.push({ subIndex, open: g.open })
        if (waiting.length === 50) all.open()
        expect(JSON.parse(argsJson)).toEqual({ i: subIndex })
        return g.promise
      },
    })
    await all.promise
    // answer in reverse order: each call resolves to its own index
    for (const w of [...waiting].reverse()) w.open({ ok: true, value: w.subIndex })
    expect(plain(await r)).toEqual({ ok: true, result: 1225, logs: [], subCalls: 50, abandoned: [] })
  })

  it('sub-calls still pending when the program returns are abandoned, reported, and their signal aborts', async () => {
    const started = gate()
    let seen: AbortSignal | undefined
    const r = await runSandboxed({
      code: 'tools.echo({ fireAndForget: true })\nreturn "done"',
      tools: ['echo'],
      dispatch: (_n, _a, _i, signal) => {
        seen = signal
        started.open()
        return new Promise(() => {})
      },
    })
    await started.promise
    expect(plain(r)).toEqual({
      ok: true,
      result: 'done',
      logs: [],
      subCalls: 1,
      abandoned: [{ subIndex: 0, name: 'echo' }],
    })
    expect(seen?.aborted).toBe(true)
  })

  it('sub-calls made in one turn are dispatched in order and can settle together', async () => {
    const waiting: ((o: DispatchOutcome) => void)[] = []
    const r = runSandboxed({
      code: 'const p = [tools.echo({ n: 0 }), tools.echo({ n: 1 }), tools.echo({ n: 2 })]\nreturn await Promise.all(p)',
      tools: ['echo'],
      dispatch: (_name, argsJson, subIndex) =>
        new Promise((resolve) => {
          expect(JSON.parse(argsJson)).toEqual({ n: subIndex })
          waiting.push(resolve)
          // settle all three only once the third is dispatched: they cross into the VM together
          if (waiting.length === 3)
            for (const [i, open] of waiting.entries()) open({ ok: true, value: `r${i}` })
        }),
    })
    expect(plain(await r)).toMatchObject({ ok: true, result: ['r0', 'r1', 'r2'], subCalls: 3, abandoned: [] })
  })

  it('a failed and a successful settlement in the same batch reach the right promises', async () => {
    const r = await run(
      'const a = tools.echo({ n: 0 }).catch((e) => e.name + ":" + e.toolName + ":" + e.message)\nconst b = tools.echo({ n: 1 })\nreturn [await a, await b]',
      {
        dispatch: async (_name, argsJson) =>
          JSON.parse(argsJson).n === 0
            ? { ok: false, message: 'no | such, "file"\nat all' }
            : { ok: true, value: [1] },
      },
    )
    expect(plain(r)).toMatchObject({
      ok: true,
      result: ['ToolCallError:echo:no | such, "file"\nat all', [1]],
    })
  })

  it('sub-calls keep crossing correctly after the VM memory grows in the middle of a run', async () => {
    const { dispatch, calls } = recordingDispatch()
    const r = await run(
      'const first = await tools.echo({ at: "start" })\nconst big: string[] = []\nfor (let i = 0; i < 48; i++) big.push("x".repeat(1 << 20) + i)\nconst second = await tools.echo({ at: "after", n: big.length, tail: big[47].slice(-2), text: "é漢😀" })\nreturn [first.args.at, second.args]',
      { dispatch, memoryBytes: 128 * 1024 * 1024, timeoutMs: 20_000 },
    )
    expect(plain(r)).toEqual({
      ok: true,
      result: ['start', { at: 'after', n: 48, tail: '47', text: 'é漢😀' }],
      logs: [],
      subCalls: 2,
      abandoned: [],
    })
    expect(calls.map((c) => c.argsJson)).toEqual([
      '{"at":"start"}',
      '{"at":"after","n":48,"tail":"47","text":"é漢😀"}',
    ])
  })

  it('a late settlement after the run ended is ignored', async () => {
    const late = gate<DispatchOutcome>()
    const r = await runSandboxed({
      code: 'tools.echo({})\nreturn 1',
      tools: ['echo'],
      dispatch: () => late.promise,
    })
    late.open({ ok: true, value: 'late' })
    await Promise.resolve()
    expect(plain(r)).toMatchObject({ ok: true, result: 1 })
  })
})

describe('runSandboxed: limits and cancellation', () => {
  it('an infinite loop is stopped at the deadline (interrupt handler)', async () => {
    const r = await run('while (true) {}', { timeoutMs: 200 })
    expect(plain(r)).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'The program ran longer than 200 ms and was stopped.',
      logs: [],
      subCalls: 0,
      abandoned: [],
    })
  })

  it('time spent awaiting a sub-call counts: the wall timer stops the run and cancels the sub-call', async () => {
    let seen: AbortSignal | undefined
    const r = await run('await tools.echo({})', {
      // long enough for the sub-call to be dispatched on a busy machine: the deadline counts from the call
      timeoutMs: 1_000,
      dispatch: (_n, _a, _i, signal) => {
        seen = signal
        return new Promise(() => {})
      },
    })
    expect(plain(r)).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'The program ran longer than 1000 ms and was stopped.',
      logs: [],
      subCalls: 1,
      abandoned: [{ subIndex: 0, name: 'echo' }],
    })
    expect(seen?.aborted).toBe(true)
  })

  it('a call made in the turn that hit the deadline is never started', async () => {
    const { dispatch, calls } = recordingDispatch()
    const r = await run('tools.echo({ late: true })\nwhile (true) {}', { timeoutMs: 200, dispatch })
    expect(plain(r)).toMatchObject({ ok: false, kind: 'timeout', subCalls: 0, abandoned: [] })
    expect(calls).toEqual([])
  })

  it('after the output limit is hit, tool calls reject inside the VM and nothing more is dispatched', async () => {
    const { dispatch, calls } = recordingDispatch()
    const r = await run(
      'console.log("x".repeat(200))\nlet refused = ""\ntools.echo({}).catch((e) => { refused = e.message })\nawait Promise.resolve()\nconsole.log(refused)\nwhile (true) {}',
      { maxOutputBytes: 100, timeoutMs: 10_000, dispatch },
    )
    expect(plain(r)).toMatchObject({ ok: false, kind: 'output-limit' })
    expect(calls).toEqual([])
  })

  it('aborting the outer signal interrupts a running program', async () => {
    const ac = new AbortController()
    const started = gate()
    const r = run('await tools.echo({})\nwhile (true) {}', {
      signal: ac.signal,
      timeoutMs: 10_000,
      dispatch: async () => {
        started.open()
        return { ok: true, value: null }
      },
    })
    await started.promise
    ac.abort()
    expect(plain(await r)).toMatchObject({
      ok: false,
      kind: 'abort',
      message: 'The run was cancelled before the program finished.',
    })
  })

  it('aborting while awaiting a sub-call rejects it and reports it abandoned', async () => {
    const ac = new AbortController()
    const started = gate()
    let seen: AbortSignal | undefined
    const r = run('await tools.echo({})', {
      signal: ac.signal,
      dispatch: (_n, _a, _i, signal) => {
        seen = signal
        started.open()
        return new Promise(() => {})
      },
    })
    await started.promise
    ac.abort()
    expect(plain(await r)).toMatchObject({
      ok: false,
      kind: 'abort',
      abandoned: [{ subIndex: 0, name: 'echo' }],
    })
    expect(seen?.aborted).toBe(true)
  })

  it('an already-aborted signal runs nothing', async () => {
    const { dispatch, calls } = recordingDispatch()
    const r = await run('await tools.echo({})', { signal: AbortSignal.abort(), dispatch })
    expect(r).toMatchObject({ ok: false, kind: 'abort' })
    expect(calls).toEqual([])
  })

  it('output beyond the limit fails the run with output-limit and keeps what fit', async () => {
    const r = await run('for (let i = 0; i < 1e6; i++) console.log("0123456789")', { maxOutputBytes: 1000 })
    expect(r).toMatchObject({
      ok: false,
      kind: 'output-limit',
      message: "The program's output exceeded 1000 bytes and it was stopped.",
    })
    expect(r.logs.length).toBe(90) // 11 bytes per line
  })

  it('a result larger than the output limit is output-limit too', async () => {
    const r = await run('return "x".repeat(2000)', { maxOutputBytes: 1000 })
    expect(r).toMatchObject({ ok: false, kind: 'output-limit' })
  })

  it('memory exhaustion is kind memory', async () => {
    const r = await run('let a = [1]\nfor (;;) a = a.concat(a)', { memoryBytes: 16 * 1024 * 1024 })
    expect(plain(r)).toMatchObject({
      ok: false,
      kind: 'memory',
      message: 'The program exceeded the memory limit of 16 MB.',
    })
  })

  it('ordinary recursion works to a useful depth and overflow is a catchable exception', async () => {
    const r = await run('function f(n) { return n ? f(n - 1) + 1 : 0 }\nreturn f(100)')
    expect(plain(r)).toMatchObject({ ok: true, result: 100 })
    const deep = await run('function f() { return f() }\nf()')
    expect(deep).toMatchObject({ ok: false, kind: 'exception' })
    expect(deep.ok === false && deep.message.split('\n')[0]).toBe('Uncaught InternalError: stack overflow')
  })

  it('a promise that can never settle fails fast instead of waiting for the deadline', async () => {
    const r = await run('await new Promise(() => {})', { timeoutMs: 10_000 })
    expect(r).toMatchObject({ ok: false, kind: 'exception' })
    expect(r.durationMs).toBeLessThan(5_000)
  })
})
