import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import {
  type ApprovalOutcome,
  createApprovalService,
  createRuntime,
  defineTool,
  jsonOutput,
  ToolError,
  type ToolExecution,
  textOutput,
  UNKNOWN_TOOLS,
} from '../src/index.js'
import { echoTool, gate, objectTool, text } from './helpers.js'

const call = (name: string, args: unknown, callId = 'c1') => ({ callId, name, arguments: args as string })

describe('lookup', () => {
  it('an unknown tool suggests the closest visible names', async () => {
    const runtime = createRuntime()
    runtime.register(echoTool)
    const result = await runtime.execute(call('ecko', '{}'))
    expect(result).toMatchObject({
      callId: 'c1',
      name: 'ecko',
      isError: true,
      content: text(
        'No tool named "ecko" is available. Did you mean "echo"? Call one of the tools listed in your tool definitions.',
      ),
      error: { kind: 'unknown_tool', code: 'UNKNOWN_TOOL' },
    })
  })

  it('a tool hidden by an agent restriction is unknown to that agent only', async () => {
    const runtime = createRuntime()
    runtime.register(echoTool)
    runtime.agent('reviewer').restrict({ deny: ['echo'] })
    const denied = await runtime.execute({ ...call('echo', '{"text":"a"}'), agent: 'reviewer' })
    expect(denied.error?.kind).toBe('unknown_tool')
    expect(runtime.schemas('reviewer')).toEqual([])
    const allowed = await runtime.execute({ ...call('echo', '{"text":"a"}'), agent: 'writer' })
    expect(allowed.content).toEqual(text('A'))
  })
})

describe('arguments', () => {
  it('malformed JSON says where it broke and asks for valid JSON', async () => {
    const runtime = createRuntime()
    runtime.register(echoTool)
    const result = await runtime.execute(call('echo', '{"text": "a",}'))
    expect(result.error).toEqual({
      kind: 'invalid_input',
      code: 'INVALID_ARGS',
      message:
        'The arguments for echo are not valid JSON: broke at line 1 column 14 near "{\\"text\\": \\"a\\",}"; send one complete, valid JSON object.',
    })
  })

  it('a schema violation names every offending field with the expected type', async () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'two',
        description: 'Two fields.',
        parameters: z.object({ path: z.string(), limit: z.number() }),
        output: textOutput(),
        execute: () => 'x',
      }),
    )
    const result = await runtime.execute(call('two', { path: 1, limit: 'x' }))
    expect(result.error?.message).toBe(
      [
        'The arguments for two do not match its parameters schema:',
        '- arguments.path: Invalid input: expected string, received number',
        '- arguments.limit: Invalid input: expected number, received string',
        'Fix these fields and call two again.',
      ].join('\n'),
    )
  })

  it('validates plain JSON Schema with ajv, naming missing and extra fields', async () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'raw',
        description: 'Raw JSON Schema tool.',
        parameters: {
          type: 'object',
          properties: { n: { type: 'integer' } },
          required: ['n'],
          additionalProperties: false,
        },
        output: textOutput(),
        execute: () => 'ok',
      }),
    )
    const result = await runtime.execute(call('raw', { m: 1 }))
    expect(result.error?.message).toBe(
      [
        'The arguments for raw do not match its parameters schema:',
        '- "m" is not a parameter of raw; did you mean "n"?',
        '- arguments.n: is required but missing',
        'Fix these fields and call raw again.',
      ].join('\n'),
    )
  })

  it('invalid arguments never reach a policy listener (validation before policy)', async () => {
    const runtime = createRuntime()
    runtime.register(echoTool)
    const pre = vi.fn(() => ({ kind: 'allow' as const }))
    runtime.on('tools/pre-execute', pre)
    await runtime.execute(call('echo', '{"text": 5}'))
    expect(pre).not.toHaveBeenCalled()
  })

  it('listeners and the body see frozen arguments; the string is parsed once', async () => {
    const runtime = createRuntime()
    const seen: unknown[] = []
    runtime.register(
      objectTool('peek', {
        execute: (args, exec) => {
          seen.push(Object.isFrozen(args), Object.isFrozen(exec.arguments), Object.isFrozen(exec))
          return 'ok'
        },
      }),
    )
    runtime.on('tools/pre-execute', (exec, next) => {
      seen.push(Object.isFrozen(exec.arguments), Object.isFrozen(exec))
      return next()
    })
    const parse = vi.spyOn(JSON, 'parse')
    await runtime.execute(call('peek', '{"a":{"b":1}}'))
    expect(parse).toHaveBeenCalledTimes(1)
    parse.mockRestore()
    expect(seen).toEqual([true, true, true, true, true])
  })

  it("the body gets the schema's output: the arguments snapshot itself when equal, else a frozen copy", async () => {
    const runtime = createRuntime()
    const seen: { args: unknown; same: boolean; frozen: boolean }[] = []
    runtime.register(
      defineTool({
        name: 'shape',
        description: 'Shape.',
        parameters: z.object({ text: z.string(), tags: z.array(z.string()).default(['none']) }),
        output: textOutput(),
        execute: (args, exec) => {
          seen.push({ args, same: args === exec.arguments, frozen: Object.isFrozen(args) })
          return 'ok'
        },
      }),
    )
    await runtime.execute(call('shape', '{"text":"a","tags":["x"]}'))
    // A default filled in: the schema's value, not the model's.
    await runtime.execute(call('shape', '{"text":"b"}'))
    expect(seen).toEqual([
      { args: { text: 'a', tags: ['x'] }, same: true, frozen: true },
      { args: { text: 'b', tags: ['none'] }, same: false, frozen: true },
    ])
    expect(Object.isFrozen((seen[1]!.args as { tags: string[] }).tags)).toBe(true)
  })
})

describe('tools/pre-execute', () => {
  const setup = () => {
    const body = vi.fn(() => 'ran')
    const runtime = createRuntime({ approval: createApprovalService() })
    runtime.register(
      objectTool('t', {
        execute: body,
      }),
    )
    return { runtime, body }
  }

  it('next() delegates and the default is allow', async () => {
    const { runtime, body } = setup()
    const order: string[] = []
    runtime.on('tools/pre-execute', (_e, next) => {
      order.push('first')
      return next()
    })
    runtime.on('tools/pre-execute', (_e, next) => {
      order.push('second')
      return next()
    })
    const result = await runtime.execute(call('t', {}))
    expect(order).toEqual(['first', 'second'])
    expect(result.content).toEqual(text('ran'))
    expect(body).toHaveBeenCalledTimes(1)
  })

  it('deny stops the body and carries the reason and info', async () => {
    const { runtime, body } = setup()
    runtime.on('tools/pre-execute', () => ({
      kind: 'deny',
      reason: 'Not in this folder; use src/ instead.',
      info: { rule: 'r1' },
    }))
    const result = await runtime.execute(call('t', {}))
    expect(body).not.toHaveBeenCalled()
    expect(result.error).toEqual({
      kind: 'permission_denied',
      code: 'PERMISSION_DENIED',
      message: 'Not in this folder; use src/ instead.',
      info: { rule: 'r1' },
    })
    expect(result.content).toEqual(text('Not in this folder; use src/ instead.'))
  })

  it('cancel is a cancellation, not a policy violation', async () => {
    const { runtime } = setup()
    runtime.on('tools/pre-execute', () => ({ kind: 'cancel' }))
    const result = await runtime.execute(call('t', {}))
    expect(result.error).toEqual({
      kind: 'cancelled',
      code: 'CANCELLED_BEFORE_START',
      message:
        'This t call was cancelled before it started (a policy cancelled it); it had no effect. Re-issue it if it is still needed.',
    })
  })

  it('a malformed decision fails closed', async () => {
    const { runtime, body } = setup()
    runtime.on('tools/pre-execute', () => ({ kind: 'maybe' }) as never)
    const result = await runtime.execute(call('t', {}))
    expect(body).not.toHaveBeenCalled()
    expect(result.error?.kind).toBe('permission_denied')
    expect(result.error?.message).toBe(
      'This t call was denied: a policy gave no valid decision, so it failed closed; it did not run. Retrying will not help: continue without it or tell the user the policy is broken.',
    )
  })

  it('a throwing listener is a final result: post-execute is skipped, finalizeContent still runs', async () => {
    const finalize = vi.fn(() => undefined)
    const runtime = createRuntime()
    runtime.register(
      objectTool('t', {
        execute: () => 'ran',
        finalizeContent: finalize,
      }),
    )
    const post = vi.fn((_e: unknown, _r: unknown, next: () => unknown) => next())
    runtime.on('tools/pre-execute', () => {
      throw new Error('listener bug')
    })
    runtime.on('tools/post-execute', post as never)
    const result = await runtime.execute(call('t', {}))
    expect(result.error).toEqual({
      kind: 'exception',
      code: 'LISTENER_EXCEPTION',
      message:
        'The t tool failed unexpectedly (a tools/pre-execute listener failed: listener bug). This is not caused by your arguments; you may retry once, then report the problem.',
    })
    expect(post).not.toHaveBeenCalled()
    expect(finalize).toHaveBeenCalledTimes(1)
  })

  it('next() called twice by one listener is a listener bug', async () => {
    const { runtime, body } = setup()
    runtime.on('tools/pre-execute', (_e, next) => {
      next()
      return next()
    })
    const result = await runtime.execute(call('t', {}))
    expect(body).not.toHaveBeenCalled()
    expect(result.error?.message).toContain('next() called more than once by the same listener')
  })
})

describe('approvals', () => {
  const setup = (outcome?: ApprovalOutcome | Error, withService = true) => {
    const approval = createApprovalService()
    const requests: unknown[] = []
    if (outcome !== undefined) {
      approval.answer(async (request) => {
        requests.push(request)
        if (outcome instanceof Error) throw outcome
        return outcome
      })
    }
    const runtime = createRuntime(withService ? { approval } : {})
    const body = vi.fn(() => 'ran')
    runtime.register(
      objectTool('bash', {
        execute: body,
      }),
    )
    runtime.on('tools/pre-execute', () => ({
      kind: 'ask',
      reason: 'runs a command',
      displayReason: 'Run pnpm lint?',
    }))
    return { runtime, body, requests }
  }

  it('only allowed-once continues; the request names the call and carries no arguments', async () => {
    const { runtime, body, requests } = setup('allowed-once')
    const result = await runtime.execute({ ...call('bash', { command: 'pnpm lint' }), agent: 'main' })
    expect(result.content).toEqual(text('ran'))
    expect(body).toHaveBeenCalledTimes(1)
    expect(requests).toHaveLength(1)
    const request = requests[0] as Record<string, unknown>
    expect(Object.keys(request).sort()).toEqual([
      'agent',
      'callId',
      'displayReason',
      'reason',
      'signal',
      'toolName',
    ])
    expect(request).toMatchObject({ callId: 'c1', toolName: 'bash', agent: 'main', reason: 'runs a command' })
    expect(runtime.session.events().map((e) => e.type)).toEqual([
      'tool/call',
      'approval/asked',
      'approval/decided',
      'tool/result',
    ])
    expect(runtime.session.events()[2]).toMatchObject({ callId: 'c1', outcome: 'allowed-once' })
  })

  it.each([
    [
      'rejected',
      'APPROVAL_REJECTED',
      'The user rejected this bash call; it did not run. Do not retry it unchanged: ask the user how to proceed or take a different approach.',
    ],
    [
      'cancelled',
      'APPROVAL_CANCELLED',
      'The approval prompt for this bash call was dismissed without a decision; it did not run. Ask the user whether to proceed before trying again.',
    ],
    [
      'unavailable',
      'APPROVAL_UNAVAILABLE',
      'This bash call needs approval, but the approval prompt was unavailable; it did not run. Use a different approach that does not need approval, or ask the user to allow it.',
    ],
  ] as const)('%s is a refusal with its own code and message', async (outcome, code, message) => {
    const { runtime, body } = setup(outcome)
    const result = await runtime.execute(call('bash', {}))
    expect(body).not.toHaveBeenCalled()
    expect(result.error).toEqual({ kind: 'approval_refused', code, message })
  })

  it('no answerer, a throwing answerer and no service are denials with their own messages', async () => {
    const none = setup(undefined)
    expect((await none.runtime.execute(call('bash', {}))).error?.message).toBe(
      'This bash call needs approval, but no one is available to answer the approval prompt; it did not run. Use a different approach that does not need approval, or ask the user to allow it.',
    )
    const throwing = setup(new Error('tty closed'))
    expect((await throwing.runtime.execute(call('bash', {}))).error?.message).toBe(
      'This bash call needs approval, but the approval prompt failed (tty closed); it did not run. Use a different approach that does not need approval, or ask the user to allow it.',
    )
    const unsupported = setup(undefined, false)
    expect((await unsupported.runtime.execute(call('bash', {}))).error).toEqual({
      kind: 'approval_refused',
      code: 'APPROVAL_UNSUPPORTED',
      message:
        'This bash call needs approval, but this session has no approval service, so it was denied and did not run. Use a different approach that does not need approval.',
    })
    for (const s of [none, throwing, unsupported]) expect(s.body).not.toHaveBeenCalled()
  })

  it("policy 'never' denies every ask without asking", async () => {
    const approval = createApprovalService({ policy: 'never' })
    const answerer = vi.fn(async () => 'allowed-once' as const)
    approval.answer(answerer)
    const runtime = createRuntime({ approval })
    runtime.register(echoTool)
    runtime.on('tools/pre-execute', () => ({ kind: 'ask' }))
    const result = await runtime.execute(call('echo', { text: 'x' }))
    expect(answerer).not.toHaveBeenCalled()
    expect(result.error?.message).toBe(
      "This echo call needs approval, but the session is non-interactive (approval policy 'never'); it did not run. Use a different approach that does not need approval, or ask the user to allow it.",
    )
  })

  it('an interruption while the prompt is open is a cancellation, never a rejection', async () => {
    const approval = createApprovalService()
    const asked = gate()
    approval.answer(
      (request) =>
        new Promise((resolve) => {
          asked.resolve()
          request.signal.addEventListener('abort', () => resolve('rejected'))
        }),
    )
    const runtime = createRuntime({ approval })
    runtime.register(echoTool)
    runtime.on('tools/pre-execute', () => ({ kind: 'ask' }))
    const controller = new AbortController()
    const pending = runtime.execute({ ...call('echo', { text: 'x' }), signal: controller.signal })
    await asked.promise
    controller.abort()
    const result = await pending
    expect(result.error?.kind).toBe('cancelled')
    expect(result.error?.code).toBe('CANCELLED_BEFORE_START')
  })
})

describe('guards', () => {
  it('are monotonic: a string denies and no listener can re-allow', async () => {
    const runtime = createRuntime()
    const body = vi.fn(() => 'ran')
    runtime.register(
      objectTool('t', {
        execute: body,
      }),
    )
    runtime.guard((exec) => (exec.name === 't' ? 'Protected: .git/hooks cannot be written.' : undefined))
    runtime.on('tools/pre-execute', () => ({ kind: 'allow' }))
    runtime.on('tools/post-execute', (_e, result, next) =>
      result.isError ? { kind: 'accept', content: text('rewritten') } : next(),
    )
    const result = await runtime.execute(call('t', {}))
    expect(body).not.toHaveBeenCalled()
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({
      kind: 'permission_denied',
      code: 'PERMISSION_DENIED',
      message:
        'This t call was denied by a guard: Protected: .git/hooks cannot be written. It did not run and no approval can allow it; do not retry it: take a different approach.',
    })
    // Post-execute may reword the content of a denial, but it stays a denial.
    expect(result.content).toEqual(text('rewritten'))
  })

  it('a throwing guard is final and denies', async () => {
    const runtime = createRuntime()
    const body = vi.fn(() => 'ran')
    runtime.register(
      objectTool('t', {
        execute: body,
      }),
    )
    runtime.guard(() => {
      throw new Error('guard bug')
    })
    const result = await runtime.execute(call('t', {}))
    expect(body).not.toHaveBeenCalled()
    expect(result.error?.kind).toBe('exception')
  })
})

describe('tools/execute wrappers and the body', () => {
  it('each body gets its own signal, even when nothing can stop the call or its caller signal is shared', async () => {
    const runtime = createRuntime({ timeouts: false })
    const seen: AbortSignal[] = []
    runtime.register(
      defineTool({
        name: 'look',
        description: 'Look.',
        parameters: z.object({}),
        output: textOutput(),
        isConcurrencySafe: () => true,
        execute: (_args, exec) => {
          seen.push(exec.signal)
          return 'ok'
        },
      }),
    )
    await runtime.execute(call('look', {}, 'a'))
    await runtime.execute(call('look', {}, 'b'))
    const shared = new AbortController()
    await runtime.executeBatch([call('look', {}, 'c'), call('look', {}, 'd')], { signal: shared.signal })
    // Four distinct signals: listeners a body adds never pile up on a shared one.
    expect(new Set(seen).size).toBe(4)
    expect(seen.some((s) => s === shared.signal)).toBe(false)
    expect(seen.map((s) => s.aborted)).toEqual([false, false, false, false])
  })

  it('a wrapper may replace the signal, but the caller’s abort still reaches the body', async () => {
    const runtime = createRuntime()
    const started = gate()
    let bodySignal: AbortSignal | undefined
    runtime.register(
      objectTool('wait', {
        execute: (_a, exec) =>
          new Promise<string>((_resolve, reject) => {
            bodySignal = exec.signal
            started.resolve()
            exec.signal.addEventListener('abort', () => reject(exec.signal.reason))
          }),
      }),
    )
    const replacement = new AbortController()
    const seen: AbortSignal[] = []
    runtime.on('tools/execute', async (exec, next) => {
      seen.push(exec.signal)
      const outcome = await next({ signal: replacement.signal })
      seen.push(exec.signal)
      return outcome
    })
    const controller = new AbortController()
    const pending = runtime.execute({ ...call('wait', {}), signal: controller.signal })
    await started.promise
    expect(bodySignal).not.toBe(replacement.signal)
    controller.abort()
    const result = await pending
    expect(result.error).toEqual({
      kind: 'aborted',
      code: 'ABORTED',
      message:
        'This wait call was interrupted while running (the user cancelled); it may have partially completed. Check the current state before retrying.',
    })
    // The wrapper's own view of exec.signal is unchanged after next() returns.
    expect(seen[0]).toBe(seen[1])
  })

  it('ToolError is a tool_error; any other throw is an exception', async () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'find',
        description: 'Find.',
        parameters: z.object({ fail: z.enum(['expected', 'bug']) }),
        output: textOutput(),
        execute: (args) => {
          if (args.fail === 'expected')
            throw new ToolError('File src/x.ts not found; call ls to see what exists.', {
              info: { path: 'src/x.ts' },
            })
          throw new TypeError('cannot read properties of undefined')
        },
      }),
    )
    expect((await runtime.execute(call('find', { fail: 'expected' }))).error).toEqual({
      kind: 'tool_error',
      code: 'TOOL_ERROR',
      message: 'File src/x.ts not found; call ls to see what exists.',
      info: { path: 'src/x.ts' },
    })
    expect((await runtime.execute(call('find', { fail: 'bug' }))).error).toEqual({
      kind: 'exception',
      code: 'TOOL_EXCEPTION',
      message:
        'The find tool failed unexpectedly (internal error: cannot read properties of undefined). This is not caused by your arguments; you may retry once, then report the problem.',
    })
  })

  it('a retry wrapper may call next() again', async () => {
    const runtime = createRuntime()
    let attempts = 0
    runtime.register(
      objectTool('flaky', {
        execute: () => {
          attempts++
          if (attempts < 3) throw new Error('transient')
          return `ok after ${attempts}`
        },
      }),
    )
    runtime.on('tools/execute', async (_exec, next) => {
      let outcome = await next()
      for (let i = 0; i < 3 && !outcome.ok; i++) outcome = await next()
      return outcome
    })
    expect((await runtime.execute(call('flaky', {}))).content).toEqual(text('ok after 3'))
  })
})

describe('output', () => {
  const outputTool = (value: unknown) =>
    objectTool('out', {
      output: jsonOutput(z.object({ n: z.number() })),
      execute: () => value as { n: number },
    })

  it('renders a validated value, keeps it by reference, and deep-freezes the result', async () => {
    const runtime = createRuntime()
    runtime.register(outputTool({ n: 1 }))
    const result = await runtime.execute(call('out', {}))
    expect(result.value).toEqual({ n: 1 })
    expect(result.content).toEqual(text('{\n  "n": 1\n}'))
    expect(Object.isFrozen(result)).toBe(true)
    expect(Object.isFrozen(result.content)).toBe(true)
    expect(Object.isFrozen(result.content[0])).toBe(true)
    expect(Object.isFrozen(result.value)).toBe(true)
    expect(Object.isFrozen(result.timing)).toBe(true)
  })

  it.each([
    [
      { n: 'x' },
      'its value does not match output.schema: value.n: Invalid input: expected number, received string',
    ],
    [{ n: Number.NaN }, 'its value value.n is NaN, which JSON cannot represent; send a finite number'],
  ])('an invalid value %o is invalid_output, blamed on the tool', async (value, detail) => {
    const runtime = createRuntime()
    runtime.register(outputTool(value))
    expect((await runtime.execute(call('out', {}))).error).toEqual({
      kind: 'invalid_output',
      code: 'INVALID_TOOL_OUTPUT',
      message: `The out tool produced an invalid result (${detail}). This is a bug in the tool, not in your arguments; you may retry once, then report the problem.`,
    })
  })

  it('presentationMeta becomes meta; a throwing render is invalid_output', async () => {
    const runtime = createRuntime()
    runtime.register(
      objectTool('m', {
        output: {
          schema: { type: 'string' },
          render: (_a: unknown, v: string) => text(v) as never,
          presentationMeta: (_a: unknown, v: string) => ({ length: v.length }),
        },
        execute: () => 'abc',
      }),
    )
    runtime.register(
      objectTool('r', {
        output: {
          schema: { type: 'string' },
          render: () => {
            throw new Error('render bug')
          },
        },
        execute: () => 'abc',
      }),
    )
    expect((await runtime.execute(call('m', {}))).meta).toEqual({ length: 3 })
    expect((await runtime.execute(call('r', {}))).error?.message).toBe(
      'The r tool produced an invalid result (render threw (render bug)). This is a bug in the tool, not in your arguments; you may retry once, then report the problem.',
    )
  })
})

describe('tools/post-execute', () => {
  const setup = () => {
    const runtime = createRuntime()
    runtime.register(
      objectTool('n', {
        output: jsonOutput(z.object({ n: z.number() })),
        execute: () => ({ n: 1 }),
      }),
    )
    return runtime
  }

  it('accept content replaces presentation only: the value stays', async () => {
    const runtime = setup()
    runtime.on('tools/post-execute', () => ({ kind: 'accept', content: text('[redacted]') }))
    const result = await runtime.execute(call('n', {}))
    expect(result.content).toEqual(text('[redacted]'))
    expect(result.value).toEqual({ n: 1 })
  })

  it('accept value is re-validated and re-rendered', async () => {
    const runtime = setup()
    runtime.on('tools/post-execute', () => ({ kind: 'accept', value: { n: 2 } }))
    const result = await runtime.execute(call('n', {}))
    expect(result.value).toEqual({ n: 2 })
    expect(result.content).toEqual(text('{\n  "n": 2\n}'))
    const bad = setup()
    bad.on('tools/post-execute', () => ({ kind: 'accept', value: { n: 'two' } }))
    expect((await bad.execute(call('n', {}))).error?.kind).toBe('invalid_output')
  })

  it('block removes the value and gives the model corrective feedback', async () => {
    const runtime = setup()
    runtime.on('tools/post-execute', () => ({
      kind: 'block',
      feedback: text('This output contained a secret; do not request it again.'),
      additionalContexts: [{ role: 'user', content: text('Reminder: secrets are off limits.') }],
    }))
    const result = await runtime.execute(call('n', {}))
    expect(result).toMatchObject({
      isError: true,
      content: text('This output contained a secret; do not request it again.'),
      error: { kind: 'hook_blocked', code: 'BLOCKED' },
      additionalContexts: [{ role: 'user', content: text('Reminder: secrets are off limits.') }],
    })
    expect(result.value).toBe(undefined)
  })

  it('replacing both content and value, or the value of a failure, is an error', async () => {
    const both = setup()
    both.on('tools/post-execute', () => ({ kind: 'accept', value: { n: 3 }, content: text('x') }))
    expect((await both.execute(call('n', {}))).error?.message).toContain('it replaced both content and value')
    const failed = setup()
    failed.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' }))
    failed.on('tools/post-execute', () => ({ kind: 'accept', value: { n: 3 } }))
    expect((await failed.execute(call('n', {}))).error?.message).toContain(
      'it replaced the value of a failed result',
    )
  })

  it('denials and invalid arguments pass through post-execute', async () => {
    const runtime = setup()
    const seen: string[] = []
    runtime.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'denied' }))
    runtime.on('tools/post-execute', (_e, result, next) => {
      seen.push(result.error?.kind ?? 'ok')
      return next()
    })
    await runtime.execute(call('n', {}))
    await runtime.execute(call('n', 'not json'))
    expect(seen).toEqual(['permission_denied', 'invalid_input'])
  })
})

describe('finalizeContent', () => {
  it('runs exactly once for every outcome, with the finalizer captured at start', async () => {
    const calls: string[] = []
    const runtime = createRuntime()
    const block = gate()
    const tool = defineTool({
      name: 'f',
      description: 'F.',
      parameters: z.object({ mode: z.enum(['ok', 'throw', 'wait']) }),
      output: textOutput(),
      execute: async (args) => {
        if (args.mode === 'throw') throw new Error('x')
        if (args.mode === 'wait') await block.promise
        return 'done'
      },
      finalizeContent: (exec, result) => {
        calls.push(`${exec.callId}:${result.isError ? result.error?.kind : 'ok'}`)
        return [...result.content, { type: 'text', text: '[finalized]' }]
      },
    })
    const registration = runtime.register(tool)
    const ok = await runtime.execute(call('f', { mode: 'ok' }, 'a'))
    await runtime.execute(call('f', { mode: 'throw' }, 'b'))
    await runtime.execute(call('f', '{oops', 'c'))
    // Re-registering mid-call does not change the finalizer this call captured.
    const waiting = runtime.execute(call('f', { mode: 'wait' }, 'd'))
    registration.dispose()
    runtime.register({ ...tool, finalizeContent: () => text('other finalizer') })
    block.resolve()
    const late = await waiting
    expect(calls).toEqual(['a:ok', 'b:exception', 'c:invalid_input', 'd:ok'])
    expect(ok.content).toEqual([...text('done'), ...text('[finalized]')])
    expect(late.content).toEqual([...text('done'), ...text('[finalized]')])
  })

  it('a throwing finalizer becomes an error result and is not called again', async () => {
    const finalize = vi.fn(() => {
      throw new Error('finalizer bug')
    })
    const runtime = createRuntime()
    runtime.register(
      objectTool('f', {
        execute: () => 'x',
        finalizeContent: finalize,
      }),
    )
    const result = await runtime.execute(call('f', {}))
    expect(finalize).toHaveBeenCalledTimes(1)
    expect(result.error?.message).toBe(
      'The f tool failed unexpectedly (finalizeContent failed: finalizer bug). This is not caused by your arguments; you may retry once, then report the problem.',
    )
  })
})

describe('tools/result observers and the session log', () => {
  it('a tool logs its own events with emit(): checked, copied, stamped with its call id', async () => {
    const runtime = createRuntime()
    const payload = { note: 'seen', callId: 'forged', seq: 0, nested: { list: [1, 2] } }
    runtime.register(
      defineTool({
        name: 'noter',
        description: 'Notes.',
        parameters: z.object({}),
        output: textOutput(),
        execute: (_args, exec) => {
          exec.emit('note/seen', payload)
          expect(() => exec.emit('note/bad', { when: new Date(0) } as never)).toThrow(
            'session event note/bad is not lossless JSON: payload.when is a Date, not a plain object or array; convert it to plain JSON first',
          )
          return 'ok'
        },
      }),
    )
    await runtime.execute(call('noter', {}, 'n1'))
    const event = runtime.session.events().find((e) => e.type === 'note/seen')
    expect(event).toEqual({ seq: 2, type: 'note/seen', callId: 'n1', note: 'seen', nested: { list: [1, 2] } })
    expect(Object.isFrozen(event)).toBe(true)
    expect(event?.nested).not.toBe(payload.nested)
    expect(Object.isFrozen(event?.nested)).toBe(true)
  })

  it('a call decided synchronously still commits after execute() returns', async () => {
    const runtime = createRuntime()
    runtime.register(
      defineTool({
        name: 'sync',
        description: 'Sync.',
        parameters: z.object({}),
        output: textOutput(),
        execute: () => 'at once',
      }),
    )
    const observed: string[] = []
    runtime.on('tools/result', (_exec, result) => observed.push(result.callId))
    const done = runtime.execute(call('sync', {}, 's1'))
    const unknown = runtime.execute(call('nope', {}, 'u1'))
    // tool/call is logged before anything runs; the results are committed later.
    expect(observed).toEqual([])
    expect(runtime.session.events().map((e) => `${e.type} ${e.callId}`)).toEqual([
      'tool/call s1',
      'tool/call u1',
    ])
    await Promise.all([done, unknown])
    expect([...observed].sort()).toEqual(['s1', 'u1'])
  })

  it('observers see exactly the logged, frozen result; their failures are contained', async () => {
    const runtime = createRuntime()
    runtime.register(echoTool)
    const seen: unknown[] = []
    runtime.on('tools/result', () => {
      throw new Error('observer bug')
    })
    runtime.on('tools/result', (exec: ToolExecution, result) => {
      seen.push(result, Object.isFrozen(exec))
    })
    const result = await runtime.execute(call('echo', { text: 'hi' }))
    expect(seen[0]).toBe(result)
    expect(seen[1]).toBe(true)
    const events = runtime.session.events()
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'listener/error', 'tool/result'])
    expect(events[0]).toEqual({
      seq: 1,
      type: 'tool/call',
      callId: 'c1',
      name: 'echo',
      arguments: { text: 'hi' },
    })
    expect(events[1]).toEqual({
      seq: 2,
      type: 'listener/error',
      stage: 'tools/result',
      callId: 'c1',
      error: 'observer bug',
    })
    expect(events[2]).toMatchObject({
      seq: 3,
      type: 'tool/result',
      callId: 'c1',
      content: text('HI'),
      value: 'HI',
      isError: false,
    })
  })

  it('tool/call is logged before anything of the call runs', async () => {
    const runtime = createRuntime()
    const types: string[] = []
    runtime.register(
      objectTool('probe', {
        execute: () => {
          types.push(...runtime.session.events().map((e) => e.type))
          return 'x'
        },
      }),
    )
    runtime.on('tools/pre-execute', (_e, next) => {
      types.push(`pre:${runtime.session.events().length}`)
      return next()
    })
    await runtime.execute(call('probe', {}))
    expect(types).toEqual(['pre:1', 'tool/call'])
  })

  it('the raw text of unparsable arguments is logged', async () => {
    const runtime = createRuntime()
    runtime.register(echoTool)
    await runtime.execute(call('echo', '{"text": '))
    expect(runtime.session.events()[0]).toEqual({
      seq: 1,
      type: 'tool/call',
      callId: 'c1',
      name: 'echo',
      argumentsText: '{"text": ',
    })
  })
})

describe('deferContext and concludeTurn', () => {
  it('carry context after the result and mark a successful result as the end of the turn', async () => {
    const runtime = createRuntime()
    runtime.register(
      objectTool('sub', {
        execute: (_a, exec) => {
          exec.deferContext({ role: 'user', content: text('context from sub') })
          exec.concludeTurn()
          return 'done'
        },
      }),
    )
    const result = await runtime.execute(call('sub', {}))
    expect(result.additionalContexts).toEqual([{ role: 'user', content: text('context from sub') }])
    expect(result.concludesTurn).toBe(true)
  })
})

describe('metrics', () => {
  it('count calls, successes and failures by kind, with each call’s own duration', async () => {
    const runtime = createRuntime()
    runtime.register(echoTool)
    await runtime.execute(call('echo', { text: 'a' }))
    await runtime.execute(call('echo', { text: 1 }))
    await runtime.execute(call('nope', {}))
    const metrics = runtime.metrics()
    expect(metrics.echo).toMatchObject({
      calls: 2,
      successes: 1,
      failures: 1,
      failuresByKind: { invalid_input: 1 },
    })
    expect(metrics.echo?.durationMs.recent).toHaveLength(2)
    // An invented name is counted in the one shared entry, never under its own name.
    expect(metrics.nope).toBe(undefined)
    expect(metrics[UNKNOWN_TOOLS]).toMatchObject({
      calls: 1,
      successes: 0,
      failures: 1,
      failuresByKind: { unknown_tool: 1 },
    })
  })
})

describe('render output checks', () => {
  it.each([
    ['an extra key', [{ type: 'text', text: 'x', cache: true }]],
    ['a getter', [Object.defineProperty({ type: 'text' }, 'text', { get: () => 'x', enumerable: true })]],
    ['a non-string text', [{ type: 'text', text: 1 }]],
    ['an unknown block type', [{ type: 'audio', data: 'x' }]],
  ])('render output with %s is not adopted as is', async (_what, blocks) => {
    const runtime = createRuntime()
    runtime.register(
      objectTool('r', {
        output: { schema: { type: 'string' }, render: () => blocks as never },
        execute: () => 'x',
      }),
    )
    const result = await runtime.execute({ callId: 'c', name: 'r', arguments: {} })
    if (result.isError) expect(result.error?.kind).toBe('invalid_output')
    else {
      // Only the getter case is acceptable content once copied (read once, as plain data).
      expect(result.content).toEqual([{ type: 'text', text: 'x' }])
      expect(Object.isFrozen(result.content[0])).toBe(true)
      expect(Object.getOwnPropertyDescriptor(result.content[0], 'text')?.get).toBe(undefined)
    }
  })
})
