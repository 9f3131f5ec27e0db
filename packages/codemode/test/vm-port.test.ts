import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  RELEASE_SYNC,
} from 'quickjs-emscripten'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadEngine } from '../src/engine.js'
import type { SandboxOptions } from '../src/index.js'
import { openPort, type VmPort } from '../src/vm-port.js'
import { plain, recordingDispatch, run } from './helpers.js'

// The direct port (quickjs-emscripten's C functions) and the public one (its handle API) must
// behave the same; the sandbox uses the direct one whenever the library allows it.

let module: Awaited<ReturnType<typeof newQuickJSWASMModule>>
beforeAll(async () => {
  module = await newQuickJSWASMModule(RELEASE_SYNC)
})

// A port like the prelude's: reading [0] takes what jobs wrote; writing [1] then [2] records an
// id and a text.
const PORT_SOURCE = `(() => {
  let out = ''
  const port = Object.create(null)
  let id
  Object.defineProperty(port, 0, { get() { const o = out; out = ''; return o } })
  Object.defineProperty(port, 1, { set(v) { id = v } })
  Object.defineProperty(port, 2, { set(v) { out += id + ' ' + v + ';' } })
  globalThis.later = (text) => { Promise.resolve().then(() => { out += text }) }
  globalThis.spin = () => { Promise.resolve().then(() => { for (;;) {} }) }
  return port
})()`

type Fixture = { runtime: QuickJSRuntime; vm: QuickJSContext; portHandle: QuickJSHandle; port: VmPort }
const open: Fixture[] = []

function fixture(direct: boolean): Fixture {
  const runtime = module.newRuntime()
  const vm = runtime.newContext()
  const portHandle = vm.unwrapResult(vm.evalCode(PORT_SOURCE))
  const port = openPort(module, runtime, vm, portHandle, { direct })
  const f = { runtime, vm, portHandle, port }
  open.push(f)
  return f
}

afterEach(() => {
  for (const f of open.splice(0)) {
    f.port.dispose()
    f.portHandle.dispose()
    f.vm.dispose()
    f.runtime.dispose()
  }
})

function evalVoid(vm: QuickJSContext, code: string): void {
  vm.unwrapResult(vm.evalCode(code)).dispose()
}

describe('openPort', () => {
  it('uses the C functions with the quickjs-emscripten version this package pins', () => {
    expect(fixture(true).port.kind).toBe('direct')
  })

  it('can be told to use the public API', () => {
    expect(fixture(false).port.kind).toBe('public')
  })

  describe.each([
    ['direct', true],
    ['public', false],
  ])('the %s port', (_kind, direct) => {
    it('pumps nothing when no job is pending, then runs every pending job', () => {
      const { vm, port } = fixture(direct)
      expect(port.pump()).toBeUndefined()
      expect(port.take()).toBe('')
      evalVoid(vm, 'later("a"); later("b")')
      expect(port.take()).toBe('')
      expect(port.pump()).toBeUndefined()
      expect(port.take()).toBe('ab')
      expect(port.take()).toBe('')
    })

    it('settles with text of any size and script, byte for byte', () => {
      const { port } = fixture(direct)
      const long = `${'x'.repeat(5000)} é 漢字 😀`
      port.settle(0, true, '"short"')
      port.settle(7, false, long)
      port.settle(12, true, '')
      // a failure's id crosses as -id - 1
      expect(port.take()).toBe(`0 "short";-8 ${long};12 ;`)
    })

    it('an interrupted job rejects its promise: the pump itself reports nothing', () => {
      // QuickJS turns a job's exception into a rejection, the deadline's interrupt included; the
      // pump's exception branch is defensive and mirrors the library's executePendingJobs.
      const { runtime, vm, port } = fixture(direct)
      evalVoid(vm, 'spin()')
      runtime.setInterruptHandler(() => true)
      expect(port.pump()).toBeUndefined()
      expect(port.take()).toBe('')
    })

    it('dispose is idempotent', () => {
      const { port } = fixture(direct)
      port.dispose()
      port.dispose()
    })
  })
})

describe('runSandboxed on the direct port', () => {
  it('keeps crossing correctly after the wasm memory grows in the middle of a run', async () => {
    const memory = (await loadEngine()).getWasmMemory()
    const before = memory.buffer.byteLength
    const { dispatch, calls } = recordingDispatch()
    const r = await run(
      'const first = await tools.echo({ at: "start" })\nconst big: string[] = []\nfor (let i = 0; i < 48; i++) big.push("x".repeat(1 << 20) + i)\nconst second = await tools.echo({ at: "after", n: big.length, tail: big[47].slice(-2), text: "é漢😀" })\nreturn [first.args.at, second.args]',
      { dispatch, memoryBytes: 128 * 1024 * 1024, timeoutMs: 20_000 },
    )
    expect(memory.buffer.byteLength).toBeGreaterThan(before)
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
})

describe('runSandboxed on either port', () => {
  const programs: [string, string, Partial<SandboxOptions>][] = [
    [
      'sequential sub-calls',
      'let s = 0\nfor (let i = 0; i < 30; i++) s += (await tools.echo({ i })).args.i\nreturn s',
      {},
    ],
    [
      'concurrent sub-calls and non-ASCII text',
      'const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => tools.echo({ t: "é漢😀" + i })))\nreturn rs.map((r) => r.args.t).join(",")',
      {},
    ],
    [
      'a failed sub-call',
      'try { await tools.echo({}) } catch (e) { return [e.name, e.toolName, e.message] }',
      {},
    ],
    ['a memory bomb', 'const a = []\nfor (;;) a.push("x".repeat(1000))', { memoryBytes: 8 * 1024 * 1024 }],
    ['a deadline', 'for (;;) {}', { timeoutMs: 100 }],
    ['the output limit', 'for (;;) console.log("x".repeat(100))', { maxOutputBytes: 1000 }],
  ]

  it.each(programs)('%s: the same result', async (_label, code, options) => {
    const answer = (name: string, args: unknown) =>
      name === 'echo' && JSON.stringify(args) === '{}'
        ? ({ ok: false, message: 'Nothing to echo.' } as const)
        : ({ ok: true, value: { tool: name, args } } as const)
    const results = []
    for (const directPort of [true, false]) {
      const { dispatch } = recordingDispatch(answer as Parameters<typeof recordingDispatch>[0])
      results.push(plain(await run(code, { ...options, dispatch, directPort })))
    }
    expect(results[0]).toEqual(results[1])
  })
})
