import {
  type ApprovalOutcome,
  createApprovalService,
  createRuntime,
  defineTool,
  jsonOutput,
  textOutput,
} from '@toolgate/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { codeMode, renderCodeSdk } from '../src/plugin.js'
import { gate } from './helpers.js'

function setup(options?: { mode?: 'code' | 'both'; approval?: ApprovalOutcome; maxParallel?: number }) {
  const approval = createApprovalService()
  if (options?.approval) approval.answer(async () => options.approval!)
  const runtime = createRuntime({ approval })
  const log: string[] = []
  let running = 0
  let maxRunning = 0
  runtime.register(
    defineTool({
      name: 'read_note',
      description: 'Read a note by id.',
      parameters: z.object({ id: z.string() }),
      output: jsonOutput(z.object({ id: z.string(), words: z.number() })),
      isConcurrencySafe: () => true,
      execute: async (args) => {
        running++
        maxRunning = Math.max(maxRunning, running)
        log.push(`start ${args.id}`)
        await new Promise((resolve) => setImmediate(resolve))
        running--
        log.push(`end ${args.id}`)
        return { id: args.id, words: args.id.length * 10 }
      },
    }),
  )
  runtime.register(
    defineTool({
      name: 'write_note',
      description: 'Write a note.',
      parameters: z.object({ id: z.string(), text: z.string() }),
      output: textOutput(),
      execute: async (args, exec) => {
        log.push(`write ${args.id} parent=${exec.parent?.callId ?? 'none'}`)
        exec.deferContext({ role: 'user', content: [{ type: 'text', text: `note ${args.id} changed` }] })
        return `wrote ${args.id}`
      },
    }),
  )
  const plugin = codeMode({ mode: options?.mode ?? 'code', maxParallel: options?.maxParallel ?? 4 })
  runtime.use(plugin)
  return {
    runtime,
    log,
    plugin,
    get maxRunning() {
      return maxRunning
    },
  }
}

const run = (code: string, callId = 'rc1') => ({
  callId,
  name: 'run_code',
  arguments: { code, description: 'test program' },
})

describe('codeMode visibility', () => {
  it("under 'code' the model sees only run_code; a direct call is UNKNOWN_TOOL before any policy, with a hint", async () => {
    const { runtime } = setup()
    let policyCalls = 0
    runtime.on('tools/pre-execute', (_e, next) => {
      policyCalls++
      return next()
    })
    expect(runtime.schemas().map((s) => s.name)).toEqual(['run_code'])
    const direct = await runtime.execute({ callId: 'd', name: 'read_note', arguments: { id: 'a' } })
    expect(direct.error).toEqual({
      kind: 'unknown_tool',
      code: 'UNKNOWN_TOOL',
      message:
        'Tool "read_note" is only available inside run_code: call run_code with a program that uses `await tools.read_note(args)`.',
    })
    expect(policyCalls).toBe(0)
    expect(runtime.mode({ callId: 'd', name: 'read_note', arguments: { id: 'a' } }).kind).toBe('exclusive')
  })

  it("under 'both' the model sees every tool", () => {
    const { runtime } = setup({ mode: 'both' })
    expect(runtime.schemas().map((s) => s.name)).toEqual(['read_note', 'run_code', 'write_note'])
  })

  it('per agent scope: only that agent is in code mode', () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 't',
        description: 'T.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => 'x',
      }),
    )
    runtime.agent('coder').use(codeMode({ mode: 'code' }))
    expect(runtime.schemas('coder').map((s) => s.name)).toEqual(['run_code'])
    expect(runtime.schemas('other').map((s) => s.name)).toEqual(['t'])
  })
})

describe('run_code', () => {
  it('runs sub-calls through the pipeline; values come back structured; contexts are carried', async () => {
    const { runtime, log } = setup()
    const result = await runtime.execute(
      run(`
        const notes = await Promise.all(['a', 'bb'].map((id) => tools.read_note({ id })))
        const total: number = notes.reduce((n, x) => n + x.words, 0)
        console.log('read', notes.length)
        await tools.write_note({ id: 'sum', text: String(total) })
        return { total }
      `),
    )
    expect(result.isError).toBe(false)
    expect(result.value).toEqual({ logs: ['read 2'], result: { total: 30 } })
    expect(result.content).toEqual([{ type: 'text', text: 'read 2\n{\n  "total": 30\n}' }])
    expect(result.additionalContexts).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'note sum changed' }] },
    ])
    expect(log).toContain('write sum parent=rc1')
    const events = runtime.session.events()
    const calls = events.filter((e) => e.type === 'tool/call').map((e) => [e.callId, e.parentCallId ?? null])
    expect(calls).toEqual([
      ['rc1', null],
      ['rc1:code:1', 'rc1'],
      ['rc1:code:2', 'rc1'],
      ['rc1:code:3', 'rc1'],
    ])
    const dispatch = events
      .filter((e) => e.type === 'tool/code-dispatch')
      .map((e) => `${e.phase}:${e.subCallId}`)
    expect(dispatch).toEqual([
      'start:rc1:code:1',
      'start:rc1:code:2',
      'settle:rc1:code:1',
      'settle:rc1:code:2',
      'start:rc1:code:3',
      'settle:rc1:code:3',
    ])
    // The settle event logs the sub-result's own frozen content: shared, not copied again.
    for (const id of ['rc1:code:1', 'rc1:code:2', 'rc1:code:3']) {
      const logged = events.find((e) => e.type === 'tool/result' && e.callId === id)
      const settled = events.find(
        (e) => e.type === 'tool/code-dispatch' && e.phase === 'settle' && e.subCallId === id,
      )
      expect(settled?.content).toBe(logged?.content)
    }
    // Sub-calls compute no presentationMeta and are committed like any call.
    expect(runtime.metrics().read_note?.calls).toBe(2)
  })

  it('parallel-safe sub-calls overlap up to the limit; an exclusive one is a barrier', async () => {
    const h = setup({ maxParallel: 2 })
    await h.runtime.execute(
      run(`
        const p = ['a', 'b', 'c'].map((id) => tools.read_note({ id }))
        const w = tools.write_note({ id: 'x', text: 'y' })
        const q = tools.read_note({ id: 'd' })
        await Promise.all([...p, w, q])
      `),
    )
    expect(h.maxRunning).toBe(2)
    const write = h.log.indexOf('write x parent=rc1')
    expect(h.log.slice(0, write).filter((l) => l.startsWith('end')).length).toBe(3)
    expect(h.log.indexOf('start d')).toBeGreaterThan(write)
  })

  it('a denial is binding: the program gets a ToolCallError with the tool name and no internal code', async () => {
    const { runtime } = setup({ approval: 'rejected' })
    runtime.on('tools/pre-execute', (exec, next) => (exec.name === 'write_note' ? { kind: 'ask' } : next()))
    const result = await runtime.execute(
      run(`
        try {
          await tools.write_note({ id: 'x', text: 'y' })
          return 'wrote'
        } catch (e) {
          return { name: e.name, toolName: e.toolName, message: e.message, code: e.code ?? null }
        }
      `),
    )
    expect(result.value).toEqual({
      logs: [],
      result: {
        name: 'ToolCallError',
        toolName: 'write_note',
        message:
          'The user rejected this write_note call; it did not run. Do not retry it unchanged: ask the user how to proceed or take a different approach.',
        code: null,
      },
    })
  })

  it('the program waits while a person decides an approval', async () => {
    const approval = createApprovalService()
    const decision = gate<ApprovalOutcome>()
    const asked = gate()
    approval.answer(() => {
      asked.open()
      return decision.promise
    })
    const runtime = createRuntime({ approval })
    runtime.register(
      defineTool({
        name: 'bash',
        description: 'Run.',
        parameters: z.object({ c: z.string() }),
        output: textOutput(),
        execute: (a) => `ran ${a.c}`,
      }),
    )
    runtime.on('tools/pre-execute', (exec, next) => (exec.name === 'bash' ? { kind: 'ask' } : next()))
    runtime.use(codeMode())
    const pending = runtime.execute(run(`return await tools.bash({ c: 'ls' })`))
    // the program is waiting in its worker while the person decides
    await asked.promise
    expect(runtime.session.events().map((e) => e.type)).toContain('approval/asked')
    decision.open('allowed-once')
    expect((await pending).value).toEqual({ logs: [], result: 'ran ls' })
  })

  it('hidden, restricted and recursive calls fail inside the program', async () => {
    const { runtime, log } = setup()
    runtime.restrict({ deny: ['write_note'] })
    const result = await runtime.execute(
      run(`
        const out: string[] = []
        for (const name of ['write_note', 'run_code']) {
          try {
            await (tools as any)[name]({ id: 'x', text: 'y' })
            out.push(name + ' ran')
          } catch (e) {
            out.push(e.message)
          }
        }
        return out
      `),
    )
    expect(result.value).toEqual({
      logs: [],
      result: [
        'tools.write_note is not an available tool. Available tools: read_note.',
        'tools.run_code is not an available tool. Available tools: read_note.',
      ],
    })
    expect(log).toEqual([])
    expect(runtime.session.events().filter((e) => e.type === 'tool/call')).toHaveLength(1)
  })

  it('failures are CODE_RUN_FAILED with a kind and what to do next', async () => {
    const { runtime } = setup()
    const thrown = await runtime.execute(run(`console.log('before'); throw new Error('boom')`))
    expect(thrown.error?.code).toBe('CODE_RUN_FAILED')
    expect(thrown.error?.kind).toBe('tool_error')
    expect(thrown.error?.info).toEqual({ kind: 'exception' })
    expect(thrown.content[0]?.type === 'text' && thrown.content[0].text).toMatch(
      /^CODE_RUN_FAILED \(exception\): .*boom[\s\S]*Output before the failure:\nbefore$/,
    )
    const syntax = await runtime.execute(run('enum E { A }'))
    expect(syntax.error?.info).toEqual({ kind: 'syntax' })
  })

  it('nothing at all is stated explicitly', async () => {
    const { runtime } = setup()
    expect((await runtime.execute(run('const x = 1'))).content).toEqual([
      { type: 'text', text: '(run_code completed with no output)' },
    ])
  })

  it('disposing the plugin cancels its running programs and their sub-calls', async () => {
    const runtime = createRuntime()
    const started = gate()
    let subSignal: AbortSignal | undefined
    runtime.register(
      defineTool({
        name: 'wait',
        description: 'Waits until cancelled.',
        parameters: z.object({}),
        output: textOutput(),
        execute: (_a, exec) =>
          new Promise<string>((_r, reject) => {
            subSignal = exec.signal
            started.open()
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')))
          }),
      }),
    )
    const installed = runtime.use(codeMode())
    const pending = runtime.execute(run('await tools.wait({})'))
    await started.promise
    installed.dispose()
    const result = await pending
    expect(result.error).toMatchObject({ code: 'CODE_RUN_FAILED', info: { kind: 'abort' } })
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'CODE_RUN_FAILED (abort): The run was cancelled before the program finished.\nTool calls still running were cancelled. Do not retry unless you are asked to.',
      },
    ])
    expect(subSignal?.aborted).toBe(true)
  })

  it('cancelling the outer call interrupts the program and its sub-calls', async () => {
    const runtime = createRuntime({ abortGraceMs: 100 })
    let subSignal: AbortSignal | undefined
    let started!: () => void
    const startedP = new Promise<void>((r) => (started = r))
    runtime.register(
      defineTool({
        name: 'slow',
        description: 'Slow.',
        parameters: z.object({}),
        output: textOutput(),
        execute: (_a, exec) =>
          new Promise<string>((_r, reject) => {
            subSignal = exec.signal
            started()
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')))
          }),
      }),
    )
    runtime.use(codeMode())
    const controller = new AbortController()
    const pending = runtime.execute({ ...run('await tools.slow({})'), signal: controller.signal })
    await startedP
    controller.abort()
    const result = await pending
    expect(subSignal?.aborted).toBe(true)
    expect(result.error?.kind).toBe('aborted')
    const settles = runtime.session
      .events()
      .filter((e) => e.type === 'tool/code-dispatch' && e.phase === 'settle')
    expect(settles).toHaveLength(1)
  })

  it('a code-dispatch-log listener rewrites only the logged copy', async () => {
    const { runtime, plugin } = setup()
    plugin.onDispatchLog((entry) => ({ ...entry, content: [{ type: 'text', text: '[redacted]' }] }))
    const result = await runtime.execute(run(`return (await tools.read_note({ id: 'abc' })).words`))
    expect(result.value).toEqual({ logs: [], result: 30 })
    const settle = runtime.session
      .events()
      .find((e) => e.type === 'tool/code-dispatch' && e.phase === 'settle')
    expect(settle?.content).toEqual([{ type: 'text', text: '[redacted]' }])
    const subResult = runtime.session
      .events()
      .find((e) => e.type === 'tool/result' && e.callId === 'rc1:code:1')
    expect(subResult?.value).toEqual({ id: 'abc', words: 30 })
  })
})

describe('renderCodeSdk', () => {
  it('declares the visible tools (not run_code), sorted and byte-stable', () => {
    const a = setup().runtime
    const b = setup().runtime
    const sdk = renderCodeSdk(a)
    expect(sdk).toBe(renderCodeSdk(b))
    expect(sdk).toContain('read_note')
    expect(sdk).toContain('write_note')
    expect(sdk).not.toMatch(/^\s+run_code:/m)
    expect(sdk.indexOf('read_note')).toBeLessThan(sdk.indexOf('write_note'))
  })
})
