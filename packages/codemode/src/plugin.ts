import { defineTool, type JsonValue, linkSignals, type Plugin, type Runtime, ToolError } from '@toolgate/core'
import { z } from 'zod'
import { createDispatcher, type DispatchLogListener } from './dispatcher.js'
import { CODE_RUN_FAILED, type RunCodeValue, renderRunCodeFailure, renderRunCodeValue } from './render.js'
import { runInPool } from './sandbox.js'
import { SANDBOX_DEFAULTS } from './sandbox-options.js'
import { type CodeSdkOptions, renderCodeSdkFromSchemas } from './sdk.js'
import { warmStripper } from './strip.js'
import { sharedVmPool } from './vm-pool.js'

// Code Mode (seed 000 §6, seed 001 §6.10): the model writes a short TypeScript program that
// calls tools with `await tools.name(args)`; intermediate values never enter its context. Under
// mode 'code' the model sees only run_code, and a model-direct call to any other tool (a call
// without a parent token) is UNKNOWN_TOOL before any policy runs, with a hint to call it from
// inside run_code. Under 'both' it sees both. Every sub-call is an ordinary pipeline call.

export const RUN_CODE = 'run_code'

export interface CodeModeOptions {
  readonly mode?: 'code' | 'both'
  /** Wall-clock budget of one run (default 30 s; the model may ask for up to maxTimeoutMs). */
  readonly timeoutMs?: number
  readonly maxTimeoutMs?: number
  readonly memoryBytes?: number
  readonly maxOutputBytes?: number
  /** The longest JSON text one sub-call's arguments may be (default 1 Mi characters). */
  readonly maxArgsChars?: number
  /** Parallel-safe sub-calls in flight at once (default 4). */
  readonly maxParallel?: number
}

export const RUN_CODE_DESCRIPTION = [
  'Run a short TypeScript program that calls tools with `await tools.<name>(args)` and returns a result.',
  'Use it to chain several tool calls, loop over results, or filter large outputs before you read them: only what the program logs with console.log and what it returns reaches you.',
  'The program is the body of an async function (top-level await and return work); types are erased, so no enums or namespaces. There is no require, import, process, fs, network or timers: only `tools` and `console`.',
  'Each tools.<name>(args) resolves to the tool’s structured value (see the SDK declaration) or rejects with a ToolCallError { toolName, message }; denied calls stay denied.',
  'Output: the console lines, then the returned value (strings as they are, other values as JSON).',
].join(' ')

const runCodeParameters = z.object({
  code: z.string().min(1).describe('The program: TypeScript, the body of an async function.'),
  description: z.string().min(1).describe('One line saying what the program does (shown to the user).'),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Wall-clock limit in milliseconds (default 30000).'),
})

const runCodeValue = {
  type: 'object',
  properties: {
    logs: { type: 'array', items: { type: 'string' } },
    result: {},
    abandoned: { type: 'array', items: { type: 'string' } },
  },
  required: ['logs'],
  additionalProperties: false,
} as const

type RunCodeOutput = RunCodeValue & { readonly abandoned?: readonly string[] }

/** The run_code plugin (DESIGN.md §4): `runtime.use(codeMode({ mode: 'code' }))`, or per agent scope. */
export function codeMode(options: CodeModeOptions = {}): Plugin & {
  /** `tools/code-dispatch-log`: rewrite the logged copy of each sub-result (not what the program gets). */
  onDispatchLog(listener: DispatchLogListener): () => void
} {
  const logListeners: DispatchLogListener[] = []
  const mode = options.mode ?? 'code'
  const plugin: Plugin = (ctx) => {
    const runtime = ctx.runtime
    installedModes.set(runtime, mode)
    const agentOf = (agent: string | undefined) => agent
    // A sandbox worker starts now (unref'd, in the background), so the first run_code does not
    // wait for a thread to start; disposing the plugin cancels its runs, which terminates their
    // workers, and lets the pool terminate its idle ones once no plugin uses it (vm-pool.ts).
    const pool = sharedVmPool()
    const runs = new Set<AbortController>()
    const release = pool.retain()
    // The host's share of a first run was mostly the TypeScript parser's first use (~30 ms measured
    // on the shared machine): pay it once, right after the install, not when the first call waits.
    setImmediate(warmStripper).unref()
    ctx.onDispose(() => {
      for (const run of runs) run.abort(new Error('The code mode plugin was disposed.'))
      release()
    })
    ctx.register(
      defineTool({
        name: RUN_CODE,
        description: RUN_CODE_DESCRIPTION,
        parameters: runCodeParameters,
        output: {
          schema: runCodeValue,
          render: (_args, value: RunCodeOutput) => [
            {
              type: 'text',
              text: renderRunCodeValue(
                value.result === undefined
                  ? { logs: value.logs }
                  : { logs: value.logs, result: value.result },
                (value.abandoned ?? []).map((entry, i) => ({ subIndex: i, name: entry })),
              ),
            },
          ],
        },
        presentCall: (args) => ({ card: 'generic', title: `run_code: ${args.description}`, kind: 'code' }),
        async execute(args, exec): Promise<RunCodeOutput> {
          const timeoutMs = Math.min(
            args.timeout_ms ?? options.timeoutMs ?? SANDBOX_DEFAULTS.timeoutMs,
            options.maxTimeoutMs ?? 600_000,
          )
          const tools = runtime
            .toolDescriptors(agentOf(exec.agent), { exclude: [RUN_CODE] })
            .map((d) => d.name)
          const dispatcher = createDispatcher({
            runtime,
            exec,
            maxParallel: options.maxParallel ?? 4,
            logListeners,
          })
          const run = new AbortController()
          runs.add(run)
          const signal = linkSignals(exec.signal, run.signal)
          let result: Awaited<ReturnType<typeof runInPool>>
          try {
            result = await runInPool(
              {
                code: args.code,
                tools,
                dispatch: dispatcher.dispatch,
                signal: signal.signal,
                timeoutMs,
                ...(options.memoryBytes === undefined ? {} : { memoryBytes: options.memoryBytes }),
                ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
                ...(options.maxArgsChars === undefined ? {} : { maxArgsChars: options.maxArgsChars }),
              },
              pool,
            )
          } finally {
            runs.delete(run)
            signal.dispose()
            await dispatcher.finish()
          }
          if (!result.ok) {
            throw new ToolError(renderRunCodeFailure(result), {
              code: CODE_RUN_FAILED,
              info: { kind: result.kind },
            })
          }
          const value: { logs: readonly string[]; result?: JsonValue; abandoned?: readonly string[] } = {
            logs: result.logs,
          }
          if (result.result !== undefined) value.result = result.result
          if (result.abandoned.length > 0) value.abandoned = result.abandoned.map((a) => a.name)
          return value
        },
      }),
    )
    // Sub-calls may not start another program; under 'code' the model reaches tools only via run_code.
    ctx.filter((toolName, context) => {
      if (toolName === RUN_CODE) {
        return context.parent
          ? { hidden: true, hint: 'run_code cannot be called from inside a run_code program.' }
          : undefined
      }
      if (mode === 'code' && !context.parent) {
        return {
          hidden: true,
          hint: `Tool "${toolName}" is only available inside run_code: call run_code with a program that uses \`await tools.${toolName}(args)\`.`,
        }
      }
      return undefined
    })
  }
  return Object.assign(plugin, {
    onDispatchLog(listener: DispatchLogListener) {
      logListeners.push(listener)
      return () => {
        const i = logListeners.indexOf(listener)
        if (i >= 0) logListeners.splice(i, 1)
      }
    },
  })
}

/** The mode codeMode() was installed with, per runtime: 'both' means tools[] holds the descriptions. */
const installedModes = new WeakMap<Runtime, 'code' | 'both'>()

/**
 * The TypeScript SDK declaration shown to the model with run_code (sorted, byte-stable). Under
 * mode 'both' it refers to the tool definitions for descriptions instead of repeating them.
 */
export function renderCodeSdk(runtime: Runtime, agent?: string, options?: CodeSdkOptions): string {
  const descriptions = options?.descriptions ?? (installedModes.get(runtime) === 'both' ? 'refer' : 'full')
  return renderCodeSdkFromSchemas(
    runtime.toolDescriptors(agent, { exclude: [RUN_CODE] }).map((d) => ({
      name: d.name,
      description: d.description,
      parameters: d.parameters,
      output: d.output,
    })),
    { descriptions },
  )
}

/** System-prompt material for Code Mode: how to use run_code, then the SDK declaration. */
export function codeModePrompt(runtime: Runtime, agent?: string): string {
  return `You can call tools from TypeScript with the run_code tool. The \`tools\` object it provides is declared as:\n\n\`\`\`ts\n${renderCodeSdk(runtime, agent)}\`\`\`\n`
}
