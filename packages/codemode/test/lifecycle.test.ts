import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { SandboxOptions } from '../src/index.js'
import { runInPool } from '../src/sandbox.js'
import { createVmPool, type VmPool } from '../src/vm-pool.js'
import { gate, plain, recordingDispatch } from './helpers.js'

// The sandbox workers' lifecycle (vm-pool.ts): reused after clean runs and after stops they
// confirm, terminated and replaced when they do not stop, retired when they hold a lot of memory,
// and never what keeps a process alive.

function runIn(pool: VmPool, code: string, options: Partial<SandboxOptions> = {}) {
  return runInPool(
    { code, tools: ['echo'], dispatch: recordingDispatch().dispatch, timeoutMs: 5_000, ...options },
    pool,
  )
}

describe('the worker pool', () => {
  it('runs one program after another on the same worker, each in a fresh context', async () => {
    const pool = createVmPool()
    expect(plain(await runIn(pool, 'globalThis.mark = 1\nreturn 1'))).toMatchObject({ ok: true, result: 1 })
    expect(plain(await runIn(pool, 'return typeof mark'))).toMatchObject({ ok: true, result: 'undefined' })
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 1, busy: 0, booting: 0, stopping: 0, spawned: 1 })
  })

  it.each([
    ['a busy loop', 'while (true) {}'],
    // jobs are pumped in chunks, so the stop is seen between two chunks
    [
      'an endless chain of promise jobs',
      'const f = () => { Promise.resolve().then(f) }\nf()\nawait new Promise(() => {})',
    ],
  ])('%s stopped at its deadline gives its worker back: no new thread', async (_label, code) => {
    const pool = createVmPool()
    await runIn(pool, 'return 1')
    const r = await runIn(pool, code, { timeoutMs: 300 })
    // it ran (the pool was warm), and was stopped
    expect(r).toMatchObject({
      ok: false,
      kind: 'timeout',
      message: 'The program ran longer than 300 ms and was stopped.',
    })
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 1, busy: 0, booting: 0, stopping: 0, spawned: 1 })
    expect(plain(await runIn(pool, 'return 2'))).toMatchObject({ ok: true, result: 2 })
  })

  it('a run cancelled while it waits for a sub-call gives its worker back', async () => {
    const pool = createVmPool()
    const controller = new AbortController()
    const dispatched = gate()
    const r = runIn(pool, 'await tools.echo({})', {
      signal: controller.signal,
      dispatch: () => {
        dispatched.open()
        return new Promise(() => {})
      },
    })
    await dispatched.promise
    controller.abort()
    expect(await r).toMatchObject({ ok: false, kind: 'abort', abandoned: [{ subIndex: 0, name: 'echo' }] })
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 1, busy: 0, booting: 0, stopping: 0, spawned: 1 })
  })

  it('a worker held by a native builtin is terminated, and replaced while the pool is in use', async () => {
    const pool = createVmPool()
    const release = pool.retain()
    // the worker retain() starts is ready before the program runs, so the program reaches indexOf
    // well within its deadline on a busy machine
    await pool.quiet()
    const r = await runIn(pool, 'new Array(2 ** 32 - 1).indexOf(1)', { timeoutMs: 2_000 })
    expect(r).toMatchObject({
      ok: false,
      kind: 'timeout',
      message: 'The program ran longer than 2000 ms and was stopped.',
    })
    await pool.quiet()
    // the first worker (warmed by retain) is gone; its replacement waits idle
    expect(pool.stats()).toEqual({ idle: 1, busy: 0, booting: 0, stopping: 0, spawned: 2 })
    expect(plain(await runIn(pool, 'return 3'))).toMatchObject({ ok: true, result: 3 })
    expect(pool.stats().spawned).toBe(2)
    release()
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 0, busy: 0, booting: 0, stopping: 0, spawned: 2 })
  })

  it('a worker whose WebAssembly memory grew large is retired after its run', async () => {
    const pool = createVmPool()
    const r = await runIn(
      pool,
      'const a: string[] = []\nfor (let i = 0; i < 60; i++) a.push("x".repeat(1 << 20) + i)\nreturn a.length',
      {
        memoryBytes: 128 * 1024 * 1024,
        timeoutMs: 60_000,
      },
    )
    expect(plain(r)).toMatchObject({ ok: true, result: 60 })
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 0, busy: 0, booting: 0, stopping: 0, spawned: 1 })
  })

  it('runs at the same time get a worker each; two stay idle afterwards', async () => {
    const pool = createVmPool()
    const both = gate()
    let waiting = 0
    const dispatch = () => {
      if (++waiting === 3) both.open()
      return both.promise.then(() => ({ ok: true as const, value: 'go' }))
    }
    const runs = [1, 2, 3].map((n) => runIn(pool, `return (await tools.echo({})) + ${n}`, { dispatch }))
    expect((await Promise.all(runs)).map((r) => plain(r))).toMatchObject([
      { ok: true, result: 'go1' },
      { ok: true, result: 'go2' },
      { ok: true, result: 'go3' },
    ])
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 2, busy: 0, booting: 0, stopping: 0, spawned: 3 })
  })

  it('a run that finds no free worker takes the first one freed, not only the one it started', async () => {
    const pool = createVmPool()
    const first = await pool.acquire(new AbortController().signal)
    // no idle worker: this acquire starts a second one and waits
    const second = pool.acquire(new AbortController().signal)
    expect(pool.stats()).toMatchObject({ idle: 0, busy: 1, booting: 1, spawned: 2 })
    // the first worker is freed in the same tick, before the second can have booted
    first.release()
    await second
    expect(pool.stats()).toMatchObject({ idle: 0, busy: 1, booting: 1, spawned: 2 })
    ;(await second).release()
    // the started worker was not needed: it becomes a spare once it has booted
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 2, busy: 0, booting: 0, stopping: 0, spawned: 2 })
    expect(plain(await runIn(pool, 'return 1'))).toMatchObject({ ok: true, result: 1 })
  })

  it('a run cancelled while it waits for a worker gives a worker freed later back to the pool', async () => {
    const pool = createVmPool()
    const first = await pool.acquire(new AbortController().signal)
    const controller = new AbortController()
    const second = pool.acquire(controller.signal)
    controller.abort(new Error('cancelled'))
    await expect(second).rejects.toThrow('cancelled')
    first.release()
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 2, busy: 0, booting: 0, stopping: 0, spawned: 2 })
  })

  it('releasing the last user terminates the idle workers', async () => {
    const pool = createVmPool()
    const first = pool.retain()
    const second = pool.retain()
    await runIn(pool, 'return 1')
    first()
    first()
    await pool.quiet()
    expect(pool.stats().idle).toBe(1)
    second()
    await pool.quiet()
    expect(pool.stats()).toEqual({ idle: 0, busy: 0, booting: 0, stopping: 0, spawned: 1 })
  })
})

describe('a process that used run_code', () => {
  const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))

  /** Run fixtures/run-once.mjs; it never calls process.exit, so it ends only when nothing holds it. */
  function runOnce(mode: string): Promise<{ code: number | null; signal: string | null; stdout: string }> {
    return new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', `${fixtures}register-ts.mjs`, `${fixtures}run-once.mjs`, mode],
        { stdio: ['ignore', 'pipe', 'inherit'], timeout: 90_000 },
      )
      let stdout = ''
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8')
      })
      child.on('close', (code, signal) => resolve({ code, signal, stdout }))
    })
  }

  it.each([
    ['after a clean run, the plugin disposed', 'clean', '{"logs":[],"result":42}'],
    [
      'after a run whose worker had to be terminated',
      'stuck-builtin',
      '{"kind":"tool_error","code":"CODE_RUN_FAILED","message":"CODE_RUN_FAILED (timeout): The program ran longer than 500 ms and was stopped.\\nDo less per run: fewer or smaller tool calls, no busy loops, or split the work across several run_code calls (a larger timeout_ms is possible if the work is genuinely long).","info":{"kind":"timeout"}}',
    ],
    [
      "when only the runtime is disposed (the idle worker is unref'd)",
      'runtime-dispose-only',
      '{"logs":[],"result":42}',
    ],
  ])(
    'exits on its own %s',
    async (_label, mode, printed) => {
      const ran = await runOnce(mode)
      expect(ran).toEqual({ code: 0, signal: null, stdout: `${printed}\n` })
    },
    120_000,
  )
})
