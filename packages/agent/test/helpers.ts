import { createRuntime, defineTool, type RuntimeOptions, textOutput } from '@toolgate/core'
import type { Message } from '@toolgate/providers'
import { z } from 'zod'
import type { AgentEvent, AgentRun } from '../src/index.js'

/** A promise with its resolver, for ordering without sleeps. */
export function gate<T = void>() {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

interface ToolLog {
  started: string[]
  order: string[]
}

/** A runtime with small test tools: echo (parallel), note (exclusive), wait (blocks on its signal). */
export function testRuntime(options: RuntimeOptions = {}, hooks: { onWaitStart?: () => void } = {}) {
  const runtime = createRuntime({ abortGraceMs: 200, ...options })
  const log: ToolLog = { started: [], order: [] }
  runtime.register(
    defineTool({
      name: 'echo',
      description: 'Echo the text back.',
      parameters: z.object({ text: z.string() }),
      output: textOutput(),
      isConcurrencySafe: () => true,
      presentCall: (args) => ({ card: 'generic', title: `echo ${args.text}` }),
      presentResult: (args, result) => ({
        card: 'generic',
        title: `echoed ${args.text}`,
        summary: result.isError ? 'failed' : 'ok',
      }),
      async execute(args) {
        log.started.push(`echo:${args.text}`)
        await Promise.resolve()
        log.order.push(`echo:${args.text}`)
        return args.text
      },
    }),
  )
  runtime.register(
    defineTool({
      name: 'note',
      description: 'Write a note (exclusive).',
      parameters: z.object({ text: z.string() }),
      output: textOutput(),
      async execute(args) {
        log.started.push(`note:${args.text}`)
        log.order.push(`note:${args.text}`)
        return `noted ${args.text}`
      },
    }),
  )
  runtime.register(
    defineTool({
      name: 'wait',
      description: 'Wait until cancelled.',
      parameters: z.object({}),
      output: textOutput(),
      isConcurrencySafe: () => true,
      execute(_args, exec) {
        log.started.push('wait')
        hooks.onWaitStart?.()
        return new Promise<string>((_resolve, reject) => {
          exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })
        })
      },
    }),
  )
  return { runtime, log }
}

export async function drain(run: AgentRun): Promise<AgentEvent[]> {
  const events: AgentEvent[] = []
  for await (const e of run) events.push(e)
  return events
}

/**
 * What every provider requires of a history: each tool call id of an assistant message has exactly
 * one tool result, and results come after their call, before the next assistant message.
 */
export function assertValidHistory(messages: readonly Message[]): void {
  let open = new Set<string>()
  const answered = new Set<string>()
  for (const m of messages) {
    if (m.role === 'assistant') {
      if (open.size > 0)
        throw new Error(`calls without results before the next reply: ${[...open].join(', ')}`)
      if (m.parts.length === 0) throw new Error('empty assistant message')
      open = new Set(m.parts.flatMap((p) => (p.type === 'tool-call' ? [p.callId] : [])))
    } else if (m.role === 'tool') {
      if (!open.has(m.callId) || answered.has(m.callId)) throw new Error(`unexpected result for ${m.callId}`)
      open.delete(m.callId)
      answered.add(m.callId)
    }
  }
  if (open.size > 0) throw new Error(`calls without results: ${[...open].join(', ')}`)
}
