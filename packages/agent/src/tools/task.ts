// task (seed 003 §10.8, sub-agents): the model hands a self-contained piece of work to a sub-agent
// with its own context and a chosen subset of tools (read-only by default), and gets back only its
// conclusion — the intermediate calls never enter the parent's context. The sub-agent shares the
// parent's runtime: policy, approvals and the session log (its calls are logged as children of the
// task call, through the parent token) — and the task call's cancellation.
import { defineTool, type JsonObject, type Plugin, ToolError, textOutput } from '@toolgate/core'
import { type ModelClient, textOf } from '@toolgate/providers'
import type { ResultBudgetOptions } from '../budget/result-budget.js'
import type { ContextOptions } from '../context/pressure.js'
import type { AgentEvent } from '../events.js'
import { runAgent } from '../loop/run-agent.js'

export interface TaskToolOptions {
  /** The sub-agent's model (usually the parent's). */
  readonly model: ModelClient
  /** Tools a sub-agent may be given. Default: the read-only built-ins. */
  readonly allowTools?: readonly string[]
  /** Tools it gets when the call names none. Default: all of `allowTools`. */
  readonly defaultTools?: readonly string[]
  /** Model requests per task. Default 25. */
  readonly maxTurns?: number
  readonly system?: string
  /** Result budget of the sub-agent's calls (its own scope; sub-calls budgeted). */
  readonly resultBudget?: Omit<ResultBudgetOptions, 'budgetSubCalls'>
  readonly context?: ContextOptions
  readonly request?: { readonly maxTokens?: number }
  /** Every event of a sub-agent run, for a UI (the task's call id first). */
  readonly onEvent?: (taskCallId: string, event: AgentEvent) => void
}

export const READ_ONLY_TOOLS = ['read', 'ls', 'glob', 'grep'] as const

export const TASK_SYSTEM = [
  'You are a sub-agent. You were given one self-contained task by another agent, which sees only',
  'your final answer, not your tool calls. Use the tools to do the task, then answer with what was',
  'asked: findings with file paths and line numbers, or what you changed. Be complete but concise.',
].join(' ')

export function taskTool(options: TaskToolOptions): Plugin {
  const allow = [...(options.allowTools ?? READ_ONLY_TOOLS)]
  const defaults = [...(options.defaultTools ?? allow)]
  const parameters = {
    type: 'object',
    properties: {
      description: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'A few words on what the sub-agent does (shown to the user).',
      },
      prompt: {
        type: 'string',
        minLength: 1,
        maxLength: 20_000,
        description:
          'The whole task: the sub-agent sees nothing else of this conversation, so include every path, name and constraint it needs, and say what to report back.',
      },
      tools: {
        type: 'array',
        items: { type: 'string', enum: allow },
        uniqueItems: true,
        description: `The tools it may use (default: ${defaults.join(', ')}).`,
      },
    },
    required: ['description', 'prompt'],
    additionalProperties: false,
  } satisfies JsonObject
  return (ctx) => {
    ctx.register(
      defineTool({
        name: 'task',
        description: `Run a sub-agent on a self-contained piece of work (a search across the code, a review of some files) and get back only its conclusion; its tool calls do not fill your context. It has its own context and ${defaults.join(', ')} unless you choose from: ${allow.join(', ')}. Use it when the intermediate steps do not matter to you; do the work yourself when you need the evidence.`,
        parameters,
        output: textOutput(),
        presentCall: (args) => ({
          card: 'generic',
          title: `Task: ${String((args as { description?: unknown }).description ?? '')}`,
          kind: 'task',
        }),
        async execute(args, exec) {
          const { prompt, tools } = args as { prompt: string; tools?: string[] }
          const chosen = tools && tools.length > 0 ? tools : defaults
          const agent = `task:${exec.callId}`
          // The scope sees only the chosen tools: anything else is UNKNOWN_TOOL for its calls.
          const restriction = ctx.runtime.agent(agent).restrict({ allow: chosen })
          try {
            const run = runAgent({
              model: options.model,
              runtime: ctx.runtime,
              agent,
              parent: exec.parentToken(),
              messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
              system: options.system ?? TASK_SYSTEM,
              signal: exec.signal,
              maxTurns: options.maxTurns ?? 25,
              jobNotices: false,
              ...(options.resultBudget
                ? { resultBudget: { ...options.resultBudget, budgetSubCalls: true } }
                : {}),
              ...(options.context ? { context: options.context } : {}),
              ...(options.request ? { request: options.request } : {}),
            })
            for await (const event of run) options.onEvent?.(exec.callId, event)
            const result = await run.result
            const last = [...result.messages].reverse().find((m) => m.role === 'assistant')
            const answer = last?.role === 'assistant' ? textOf(last).trim() : ''
            if (result.reason !== 'completed')
              throw new ToolError(
                `The sub-agent stopped before finishing (${result.reason}${result.message ? `: ${result.message}` : ''}).${answer ? ` Its last words: ${answer}` : ''} Do the rest yourself or give it a narrower task.`,
              )
            return answer === '' ? 'The sub-agent finished without a written answer.' : answer
          } finally {
            restriction.dispose()
          }
        },
      }),
    )
  }
}
