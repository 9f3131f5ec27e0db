import type { ApprovalService } from './approval/service.js'
import { describeThrown } from './errors/failures.js'
import { createJobsService, type InProcessJobsService, type JobsServiceOptions } from './jobs/index.js'
import { MetricsRecorder, type ToolMetrics } from './metrics/metrics.js'
import { checkBatchOptions, checkCall, checkCalls, checkRuntimeOptions } from './options/check.js'
import { runCall, type SettledCall } from './pipeline/call.js'
import { isThenable } from './pipeline/execute.js'
import { resultEvent } from './pipeline/finalize.js'
import { type Prepared, prepareCall } from './pipeline/prepare.js'
import type { CallOptions, PipelineHost } from './pipeline/state.js'
import { timeoutPolicy } from './plugins/timeout.js'
import { disposable } from './registry/disposable.js'
import {
  type ExecuteWrapper,
  type PostExecuteListener,
  type PreExecuteListener,
  Registry,
  type Restriction,
  type ResultObserver,
  type VisibilityFilter,
} from './registry/registry.js'
import { type BatchOptions, runBatch } from './scheduler/batch.js'
import { createSessionLog, type SessionLog, type SessionSink } from './session/log.js'
import { Deadlines } from './signal/deadlines.js'
import type { AnyToolDefinition, ToolDefinition } from './tool/define.js'
import type {
  Disposable,
  JsonObject,
  ToolCall,
  ToolExecution,
  ToolExecutionMode,
  ToolGuard,
  ToolResult,
  ToolSchema,
} from './types.js'

// The runtime wires the registry, the pipeline, the scheduler, approvals, the session log, jobs
// and metrics together, and is the only public way in. Plugins get a scoped context: what they
// register is disposed with them, last in first out.

export interface RuntimeOptions {
  /** Absent: every `ask` is denied (APPROVAL_UNSUPPORTED). */
  readonly approval?: ApprovalService
  /** Default: an in-memory log (`runtime.session.events()`). */
  readonly session?: SessionSink
  /** executeBatch default pool size (10). */
  readonly maxParallel?: number
  /**
   * How long host code that ignores its abort (a body, a listener, a wrapper, an approval
   * answerer) is waited for after the call was stopped, before the call settles (2,000 ms).
   */
  readonly abortGraceMs?: number
  /**
   * How long a listener, wrapper or async validator may take while nothing stops the call
   * (60,000 ms); then the call ends with LISTENER_EXCEPTION. Bodies and approval prompts have none.
   */
  readonly listenerTimeoutMs?: number
  /** Install the timeout policy plugin that enforces `timeoutMs` (default true). */
  readonly timeouts?: boolean
  /** The background jobs service, or options for the in-process one. */
  readonly jobs?: InProcessJobsService | JobsServiceOptions
}

export type HookEvent = 'tools/pre-execute' | 'tools/execute' | 'tools/post-execute' | 'tools/result'
type ListenerOf<E extends HookEvent> = E extends 'tools/pre-execute'
  ? PreExecuteListener
  : E extends 'tools/execute'
    ? ExecuteWrapper
    : E extends 'tools/post-execute'
      ? PostExecuteListener
      : ResultObserver

/** What a plugin or an agent scope can register; everything returns a Disposable. */
export interface ScopeContext {
  register<Args, Value>(tool: ToolDefinition<Args, Value>): Disposable
  on<E extends HookEvent>(event: E, listener: ListenerOf<E>): Disposable
  guard(guard: ToolGuard): Disposable
  /** Hide tools from this scope's calls (allowlist and/or denylist). */
  restrict(restriction: Restriction): Disposable
  /** Hide tools by rule, with a hint for the model (Code Mode). */
  filter(filter: VisibilityFilter): Disposable
}

export interface PluginContext extends ScopeContext {
  readonly runtime: Runtime
  /** The definition a call resolves to (for policies that read a tool's own declarations). */
  toolOf(exec: Pick<ToolExecution, 'name' | 'agent'>): AnyToolDefinition | undefined
  /** Register something to undo when the plugin is disposed. */
  onDispose(dispose: () => void): void
}

// biome-ignore lint/suspicious/noConfusingVoidType: DESIGN.md §4 spells it `void | (() => void)`: a plugin may return nothing
export type Plugin = (ctx: PluginContext) => void | (() => void)

export interface AgentScope extends ScopeContext {
  readonly id: string
  use(plugin: Plugin): Disposable
}

export interface DisposeReport {
  /** Bodies or listeners that ignored their abort and had still not settled (at most 1,024). */
  readonly pendingOrphans: readonly { readonly callId: string; readonly stage: string }[]
  /** Present when more orphans were pending than are tracked one by one: how many more. */
  readonly untrackedOrphans?: number
}

/** Host-side description of a tool (never sent to a model as is): for SDK typings and UIs. */
export interface ToolDescriptor {
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
  readonly output: JsonObject
  readonly definition: AnyToolDefinition
}

export interface Runtime extends ScopeContext {
  use(plugin: Plugin): Disposable
  agent(id: string): AgentScope
  schemas(agent?: string): readonly ToolSchema[]
  /** The definition a name resolves to for an agent (UI cards call presentCall/presentResult). */
  tool(name: string, agent?: string): AnyToolDefinition | undefined
  /**
   * Tools a program may call on behalf of an agent (restrictions applied, Code Mode's own
   * visibility filter ignored since sub-calls carry a parent), sorted by name.
   */
  toolDescriptors(agent?: string, options?: { exclude?: readonly string[] }): readonly ToolDescriptor[]
  mode(call: ToolCall): ToolExecutionMode
  execute(call: ToolCall): Promise<ToolResult>
  executeBatch(calls: readonly ToolCall[], options?: BatchOptions): Promise<ToolResult[]>
  readonly session: SessionLog
  readonly jobs: InProcessJobsService
  readonly approval: ApprovalService | undefined
  metrics(): Readonly<Record<string, ToolMetrics>>
  dispose(): Promise<DisposeReport>
}

const PARALLEL: ToolExecutionMode = Object.freeze({ kind: 'parallel' })
const EXCLUSIVE: ToolExecutionMode = Object.freeze({ kind: 'exclusive' })

export function createRuntime(runtimeOptions?: RuntimeOptions): Runtime {
  const options = checkRuntimeOptions(runtimeOptions)
  const registry = new Registry()
  const session = createSessionLog(options.session)
  const metrics = new MetricsRecorder()
  const jobs = isJobsService(options.jobs) ? options.jobs : createJobsService(options.jobs)
  // Orphans are host code that ignored its abort; a model can make many (a tool that hangs on some
  // input). Past MAX_TRACKED_ORPHANS their late outcome is still logged, but only counted here:
  // this map would otherwise keep every never-settling promise alive.
  const orphans = new Map<Promise<unknown>, { callId: string; stage: string }>()
  let untrackedOrphans = 0
  const live = new Map<symbol, ToolExecution>()
  const maxParallel = options.maxParallel ?? 10

  const reportListenerError = (stage: string, callId: string, error: unknown) => {
    try {
      session.appendTrusted('listener/error', { stage, callId, error: describeThrown(error) })
    } catch {
      // Telemetry never changes an outcome (inv. 9).
    }
  }

  const host: PipelineHost = {
    registry,
    session,
    approval: options.approval,
    jobs,
    graceMs: options.abortGraceMs ?? 2000,
    listenerTimeoutMs: options.listenerTimeoutMs ?? 60_000,
    deadlines: new Deadlines(),
    live,
    reportListenerError,
    trackOrphan(exec, stage, promise) {
      const tracked = orphans.size < MAX_TRACKED_ORPHANS
      if (tracked) orphans.set(promise, { callId: exec.callId, stage })
      else untrackedOrphans++
      const settle = (outcome: 'fulfilled' | 'rejected', error?: unknown) => {
        if (tracked) orphans.delete(promise)
        else untrackedOrphans--
        try {
          session.appendTrusted('tool/late-settle', {
            callId: exec.callId,
            name: exec.name,
            stage,
            outcome,
            ...(error === undefined ? {} : { error: describeThrown(error) }),
          })
        } catch {}
      }
      promise.then(
        () => settle('fulfilled'),
        (error: unknown) => settle('rejected', error ?? 'rejected'),
      )
    },
  }

  const parentLive = (p: { token: symbol }) => live.has(p.token)

  const prepare = (call: ToolCall) => prepareCall(registry, call, parentLive)
  const modeOf = (prepared: Prepared): ToolExecutionMode => {
    const tool = prepared.tool
    if (!tool || prepared.failure || !prepared.validated?.ok) return EXCLUSIVE
    const classify = tool.definition.isConcurrencySafe as ((args: unknown) => unknown) | undefined
    if (!classify) return EXCLUSIVE
    try {
      return classify(prepared.validated.value) === true ? PARALLEL : EXCLUSIVE
    } catch {
      return EXCLUSIVE
    }
  }
  const mode = (call: ToolCall) => {
    checkCall('mode: call', call)
    // A tool without a classifier is exclusive whatever its arguments (so is a name that does not
    // resolve): answer without parsing and validating the call, which execute does anyway.
    const tool = typeof call.name === 'string' ? registry.view(call.agent).tools.get(call.name) : undefined
    if (tool?.definition.isConcurrencySafe === undefined) return EXCLUSIVE
    return modeOf(prepare(call))
  }

  /** The one exit point: observers, then the log, then the counters — in commit order. */
  const commit = ({ result, exec }: SettledCall) => {
    for (const observer of registry.view(exec.agent).result) {
      try {
        // Synchronous observers; one that returns a promise is not awaited, but its rejection
        // is contained like a throw (inv. 9), never an unhandled rejection.
        const returned: unknown = observer(exec, result)
        if (isThenable(returned))
          Promise.resolve(returned).catch((error: unknown) =>
            reportListenerError('tools/result', result.callId, error),
          )
      } catch (error) {
        reportListenerError('tools/result', result.callId, error)
      }
    }
    session.appendFresh(resultEvent(result))
    metrics.record(result)
  }

  const asSettled = (settled: SettledCall) => settled
  const committed = (settled: SettledCall) => {
    commit(settled)
    return settled.result
  }
  const run = (call: ToolCall, callOptions: CallOptions) => runCall(host, call, callOptions, asSettled)

  const scope = (agent: string | undefined, track: (d: Disposable) => Disposable): ScopeContext => ({
    register: (tool) => track(registry.registerTool(tool as unknown as ToolDefinition<never, never>, agent)),
    on: (event, listener) => {
      switch (event) {
        case 'tools/pre-execute':
          return track(registry.onPre(listener as PreExecuteListener, agent))
        case 'tools/execute':
          return track(registry.onExecute(listener as ExecuteWrapper, agent))
        case 'tools/post-execute':
          return track(registry.onPost(listener as PostExecuteListener, agent))
        case 'tools/result':
          return track(registry.onResult(listener as ResultObserver, agent))
        default:
          throw new Error(
            `Unknown event ${JSON.stringify(event)}: use tools/pre-execute, tools/execute, tools/post-execute or tools/result`,
          )
      }
    },
    guard: (guard) => track(registry.addGuard(guard, agent)),
    restrict: (restriction) => track(registry.restrict(restriction, agent)),
    filter: (filter) => track(registry.addFilter(filter, agent)),
  })

  const use = (plugin: Plugin, agent: string | undefined): Disposable => {
    const owned: (() => void)[] = []
    const track = (d: Disposable) => {
      owned.push(() => d.dispose())
      return d
    }
    const ctx: PluginContext = {
      ...scope(agent, track),
      runtime,
      toolOf: (exec) => registry.view(exec.agent).tools.get(exec.name)?.definition,
      onDispose: (dispose) => void owned.push(dispose),
    }
    try {
      const teardown = plugin(ctx)
      if (typeof teardown === 'function') owned.push(teardown)
    } catch (error) {
      for (const d of owned.reverse()) d()
      throw error
    }
    // Last in, first out: what was registered last may depend on what came before.
    return disposable(() => {
      for (let i = owned.length - 1; i >= 0; i--) owned[i]!()
    })
  }

  const identity = (d: Disposable) => d
  const runtime: Runtime = {
    ...scope(undefined, identity),
    use: (plugin) => use(plugin, undefined),
    agent: (id) => ({ id, ...scope(id, identity), use: (plugin: Plugin) => use(plugin, id) }),
    schemas: (agent) => registry.schemas(agent),
    tool: (name, agent) => registry.view(agent).tools.get(name)?.definition,
    toolDescriptors(agent, descriptorOptions) {
      const view = registry.view(agent)
      const exclude = new Set(descriptorOptions?.exclude ?? [])
      return [...view.tools.values()]
        .filter((t) => !exclude.has(t.name) && registry.restricted(view, t.name) === false)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((t) =>
          Object.freeze({
            name: t.name,
            description: t.definition.description,
            parameters: t.parameters.jsonSchema,
            output: t.output.jsonSchema,
            definition: t.definition,
          }),
        )
    },
    mode,
    execute(call) {
      try {
        checkCall('execute: call', call)
      } catch (error) {
        return Promise.reject(error)
      }
      return runCall(host, call, undefined, committed)
    },
    executeBatch(calls, batchOptions) {
      let checked: BatchOptions
      try {
        checkCalls(calls)
        checked = checkBatchOptions(batchOptions)
      } catch (error) {
        return Promise.reject(error)
      }
      return runBatch(
        {
          prepare,
          mode: modeOf,
          run,
          commit,
          reportListenerError,
          cascadePolicy(prepared) {
            const declared = prepared.tool?.definition.cascadeOnFailure
            if (!declared) return undefined
            if (declared === true)
              return (result) => result.isError && !NO_CASCADE.has(result.error?.kind ?? '')
            return (result) => {
              if (result.isError && NO_CASCADE.has(result.error?.kind ?? '')) return false
              try {
                return declared(result) === true
              } catch (error) {
                // A throwing policy is a bug in the tool: it is reported and does not cascade.
                reportListenerError('cascadeOnFailure', result.callId, error)
                return false
              }
            }
          },
        },
        calls,
        checked,
        maxParallel,
      )
    },
    session,
    jobs,
    approval: options.approval,
    metrics: () => metrics.snapshot(),
    async dispose() {
      await jobs.dispose()
      const pending = [...orphans.entries()]
      if (pending.length > 0) {
        // Give orphaned bodies one more grace period to settle, then report what is left.
        let timer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([
          Promise.allSettled(pending.map(([p]) => p)),
          new Promise((resolve) => {
            timer = setTimeout(resolve, host.graceMs)
          }),
        ])
        clearTimeout(timer)
      }
      const left = [...orphans.values()]
      const untracked = untrackedOrphans
      if (left.length > 0 || untracked > 0) {
        try {
          session.appendTrusted('runtime/orphans', {
            pending: left,
            ...(untracked > 0 ? { untracked } : {}),
          })
        } catch {}
      }
      return untracked > 0 ? { pendingOrphans: left, untrackedOrphans: untracked } : { pendingOrphans: left }
    },
  }
  if (options.timeouts !== false) runtime.use(timeoutPolicy())
  return runtime
}

/** Orphans tracked one by one (for the dispose report); more are counted, their outcomes still logged. */
const MAX_TRACKED_ORPHANS = 1024

/** Failures that say a call never really ran do not cascade to siblings. */
const NO_CASCADE = new Set(['cancelled', 'sibling_failed', 'aborted', 'unknown_tool', 'invalid_input'])

function isJobsService(value: unknown): value is InProcessJobsService {
  return (
    typeof value === 'object' && value !== null && typeof (value as { start?: unknown }).start === 'function'
  )
}
