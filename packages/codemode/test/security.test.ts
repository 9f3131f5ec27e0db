import { describe, expect, it } from 'vitest'
import { plain, recordingDispatch, run } from './helpers.js'

/** Escape attempts (issue 6 §3). Each must fail to reach anything outside the VM. */
describe('sandbox escape attempts', () => {
  it('host globals are absent', async () => {
    const r = await run(
      'return [typeof process, typeof require, typeof module, typeof globalThis.process, typeof setTimeout, typeof setInterval, typeof fetch, typeof XMLHttpRequest, typeof WebAssembly, typeof std, typeof os, typeof Buffer, typeof SharedArrayBuffer, typeof Atomics]',
    )
    expect(plain(r)).toMatchObject({ ok: true, result: Array(14).fill('undefined') })
  })

  it('the only non-standard globals are tools, console and ToolCallError; the bridge functions are unreachable', async () => {
    const r = await run(
      'const std = ["globalThis"]\nreturn Object.getOwnPropertyNames(globalThis).filter((k) => /^(tools|console|ToolCallError|hostCall|hostLog|run|program)$/.test(k)).sort()',
    )
    expect(plain(r)).toMatchObject({ ok: true, result: ['ToolCallError', 'console', 'tools'] })
  })

  it('dynamic import() fails inside the VM', async () => {
    const r = await run('try { await import("node:fs"); return "imported" } catch (e) { return e.name }')
    expect(plain(r)).toMatchObject({ ok: true })
    expect(r.ok && r.result).not.toBe('imported')
  })

  it.each([
    ['this.constructor.constructor("return process")()'],
    ['(() => {}).constructor("return 1")()'],
    ['Function("return 1")()'],
    ['new Function("return 1")()'],
    ['eval("1 + 1")'],
    ['(0, eval)("1 + 1")'],
    ['(async function () {}).constructor("return 1")()'],
    ['(function* () {}).constructor("yield 1")().next()'],
    ['(async function* () {}).constructor("yield 1")'],
    ['tools.echo.constructor("return 1")()'],
    ['console.log.constructor("return 1")()'],
  ])('code generation from strings is disabled: %s', async (expr) => {
    const r = await run(`try { return ${expr} } catch (e) { return "blocked: " + e.message }`)
    expect(plain(r)).toMatchObject({
      ok: true,
      result:
        'blocked: Code generation from strings (eval, Function) is disabled in run_code. Write the code directly.',
    })
  })

  it('the blocked Function keeps instanceof working', async () => {
    expect(
      plain(await run('return [(() => 1) instanceof Function, typeof Function.prototype.call]')),
    ).toMatchObject({
      ok: true,
      result: [true, 'function'],
    })
  })

  it('prototype pollution inside the VM never reaches the host', async () => {
    const r = await run(
      'Object.prototype.polluted = 1\nArray.prototype.map = null\nJSON.parse = () => ({ hacked: true })\nJSON.stringify = () => "{}"\nconst got = await tools.echo({ a: 1 })\nreturn got',
    )
    expect(plain(r)).toMatchObject({ ok: true, result: { tool: 'echo', args: { a: 1 } } })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(typeof [].map).toBe('function')
    expect(JSON.parse('{"x":1}')).toEqual({ x: 1 })
  })

  it('tools is a frozen null-prototype object; a tool named __proto__ is an ordinary tool', async () => {
    const { dispatch, calls } = recordingDispatch()
    const r = await run(
      'const proto = Object.getPrototypeOf(tools)\nconst before = tools.echo\ntry { tools.echo = () => 1 } catch {}\ntry { delete tools.echo } catch {}\ntry { Object.setPrototypeOf(tools, {}) } catch {}\nconst same = tools.echo === before && Object.getPrototypeOf(tools) === null\nconst v = await tools.__proto__({ x: 1 })\nreturn { proto, same, frozen: Object.isFrozen(tools), keys: Object.keys(tools), v, stillTool: typeof tools.echo }',
      { tools: ['echo', '__proto__', 'constructor'], dispatch },
    )
    expect(plain(r)).toMatchObject({
      ok: true,
      result: {
        proto: null,
        same: true,
        frozen: true,
        keys: ['echo', '__proto__', 'constructor'],
        v: { tool: '__proto__', args: { x: 1 } },
        stillTool: 'function',
      },
    })
    expect(calls.map((c) => c.name)).toEqual(['__proto__'])
  })

  it('a tool that is not listed cannot be called and nothing is dispatched', async () => {
    const { dispatch, calls } = recordingDispatch()
    const r = await run('return await tools.bash({ command: "rm -rf /" })', { tools: ['read'], dispatch })
    expect(r).toMatchObject({ ok: false, kind: 'exception' })
    expect(r.ok === false && r.message.split('\n')[0]).toBe(
      'Uncaught TypeError: tools.bash is not an available tool. Available tools: read.',
    )
    expect(calls).toEqual([])
  })

  it.each([
    ['undefined value', '{ a: undefined }', 'args.a is undefined'],
    ['function', '{ f: () => 1 }', 'args.f is a function'],
    ['symbol value', '{ s: Symbol("x") }', 'args.s is a symbol'],
    ['symbol key', '{ [Symbol("k")]: 1 }', 'args has a symbol-keyed property'],
    ['BigInt', '{ n: 1n }', 'args.n is a BigInt'],
    ['NaN', '{ n: NaN }', 'args.n is NaN'],
    ['Infinity', '{ n: [1, -Infinity] }', 'args.n[1] is -Infinity'],
    [
      'cycle',
      '(() => { const a: any = { b: {} }; a.b.a = a; return a })()',
      'args.b.a is a circular reference',
    ],
    ['getter', '{ get path() { return "/etc/passwd" } }', 'args.path is a getter/setter'],
    ['throwing getter', '{ get path() { throw new Error("boom") } }', 'args.path is a getter/setter'],
    ['class instance', '{ when: new Date(0) }', 'args.when is a Date object'],
    ['Map', 'new Map([["a", 1]])', 'args is a Map object'],
    ['sparse array', '[1, , 3]', 'args[1] is a hole in a sparse array'],
    [
      'array with extra props',
      'Object.assign([1], { extra: 2 })',
      'args has properties besides its elements',
    ],
    ['non-enumerable', 'Object.defineProperty({}, "hidden", { value: 1 })', 'args.hidden is non-enumerable'],
    ['odd key', '{ "a b": undefined }', 'args["a b"] is undefined'],
    ['Proxy with trap', 'new Proxy({}, { ownKeys() { throw new Error("trap") } })', 'trap'],
  ])(
    'sub-call arguments that are not lossless JSON reject in the VM and dispatch nothing: %s',
    async (_label, args, problem) => {
      const { dispatch, calls } = recordingDispatch()
      const r = await run(
        `try { await tools.echo(${args}); return "sent" } catch (e) { return e.name + ": " + e.message }`,
        {
          dispatch,
        },
      )
      expect(calls).toEqual([])
      expect(r.ok).toBe(true)
      expect(r.ok && r.result).toContain(problem)
    },
  )

  it('sub-call arguments longer than maxArgsChars reject inside the VM and dispatch nothing', async () => {
    const { dispatch, calls } = recordingDispatch()
    const send = (n: number) =>
      `try { await tools.echo({ s: "x".repeat(${n}) }); return "sent" } catch (e) { return e.name + ": " + e.message }`
    // {"s":"…"} is the text plus 8 characters
    expect(plain(await run(send(92), { dispatch, maxArgsChars: 100 }))).toMatchObject({
      ok: true,
      result: 'sent',
    })
    expect(plain(await run(send(93), { dispatch, maxArgsChars: 100 }))).toMatchObject({
      ok: true,
      result:
        'TypeError: tools.echo: the arguments are 101 characters of JSON; at most 100 can cross in one call. Send less per call: split the data across several calls.',
    })
    // the default: 1 Mi characters
    expect(plain(await run(send(1 << 20), { dispatch }))).toMatchObject({
      ok: true,
      result:
        'TypeError: tools.echo: the arguments are 1048584 characters of JSON; at most 1048576 can cross in one call. Send less per call: split the data across several calls.',
    })
    expect(calls.map((c) => c.argsJson.length)).toEqual([100])
  })

  it('a prototype-less object is plain JSON and crosses intact', async () => {
    const { dispatch, calls } = recordingDispatch()
    await run('const o = Object.create(null)\no.k = "v"\nawait tools.echo(o)', { dispatch })
    expect(calls.map((c) => c.argsJson)).toEqual(['{"k":"v"}'])
  })

  it('arguments cross as exactly the text JSON.stringify writes, flat or nested', async () => {
    const values = [
      '{}',
      '{ i: 0, neg: -0, big: 1e21, small: 5e-7, frac: 0.1, max: Number.MAX_SAFE_INTEGER }',
      '{ s: "quote \\" backslash \\\\ newline \\n tab \\t nul \\u0000 é 漢 😀 lone \\ud800", t: true, f: false, n: null }',
      '{ "a b": 1, "é": 2, "\\u2028": 3, "2": "index-like", "__proto__x": 4 }',
      '{ nested: { list: [1, "two", { three: [null] }] }, after: "x" }',
      '[1, { a: 2 }, "x"]',
    ]
    const { dispatch, calls } = recordingDispatch()
    const program = values.map((v) => `await tools.echo(${v})`).join('\n')
    const r = await run(program, { dispatch })
    expect(r.ok).toBe(true)
    const expected = values.map((v) => JSON.stringify(new Function(`return (${v})`)()))
    expect(calls.map((c) => c.argsJson)).toEqual(expected)
  })

  it('an infinite loop, a microtask flood and a promise flood are all stopped', async () => {
    for (const code of [
      'while (true) {}',
      'for (;;) { try { while (true) {} } catch (e) {} }',
      'const f = () => Promise.resolve().then(f)\nawait f()',
      'for (;;) new Promise(() => {})',
      'for (;;) { try { new Promise(() => { while (true) {} }) } catch {} }',
    ]) {
      const r = await run(code, { timeoutMs: 300, memoryBytes: 32 * 1024 * 1024 })
      expect(r.ok).toBe(false)
      // the native Promise constructor used to swallow the deadline interrupt (see prelude.ts)
      expect(r.durationMs).toBeLessThan(3_000)
      expect(r.ok === false && ['timeout', 'memory']).toContain(r.ok === false && r.kind)
    }
  })

  it('the Promise wrapper behaves like Promise', async () => {
    const r = await run(
      'const a = await new Promise((res) => res(1))\nconst b = await new Promise(() => { throw new Error("x") }).catch((e) => e.message)\nconst all = await Promise.all([1, Promise.resolve(2)])\nreturn [a, b, all, new Promise(() => {}) instanceof Promise, typeof Promise.withResolvers]',
    )
    expect(plain(r)).toMatchObject({ ok: true, result: [1, 'x', [1, 2], true, 'function'] })
  })

  it('memory bombs are stopped: huge strings and growing arrays', async () => {
    for (const code of [
      'return "x".repeat(1e9)',
      'let a = [1]\nfor (;;) a = a.concat(a)',
      'let s = "ab"\nconst keep = []\nfor (;;) { s = s + s; keep.push(s) }',
    ]) {
      const r = await run(code, { memoryBytes: 16 * 1024 * 1024 })
      expect(r.ok).toBe(false)
      expect(r.ok === false && ['memory', 'exception']).toContain(r.ok === false && r.kind)
    }
  })

  it('huge output is cut off at the limit', async () => {
    const r = await run('for (;;) console.log("x".repeat(1000))', { maxOutputBytes: 10_000 })
    expect(r).toMatchObject({ ok: false, kind: 'output-limit' })
    expect(r.logs.join('\n').length).toBeLessThanOrEqual(10_000)
  })

  it('deep nesting built at runtime hits the stack limit inside the VM, not the host', async () => {
    for (const code of [
      'let o = {}\nfor (let i = 0; i < 1e5; i++) o = { o }\nreturn JSON.stringify(o).length',
      'let o: any = []\nfor (let i = 0; i < 1e5; i++) o = [o]\nreturn String(o)',
      'return JSON.parse("[".repeat(1e6))',
      'let o: any = {}\nfor (let i = 0; i < 1e5; i++) o = new Proxy(o, {})\nreturn Object.keys(o)',
      'let o: any = {}\nfor (let i = 0; i < 1e5; i++) o = { o }\nawait tools.echo(o)',
      'let o: any = {}\nfor (let i = 0; i < 1e5; i++) o = { o }\nconsole.log(o)\nreturn o',
    ]) {
      const r = await run(code, { memoryBytes: 64 * 1024 * 1024 })
      expect(r.ok).toBe(false)
    }
    // the engine is still healthy afterwards
    expect(plain(await run('return 1'))).toMatchObject({ ok: true, result: 1 })
  })

  it('state does not leak between runs (fresh context each time)', async () => {
    await run('globalThis.leak = "secret"\nObject.prototype.leak2 = 1')
    expect(plain(await run('return [typeof leak, ({}).leak2 === undefined]'))).toMatchObject({
      ok: true,
      result: ['undefined', true],
    })
  })
})
