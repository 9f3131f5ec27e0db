import { ToolDefinitionError } from '../errors/tool-error.js'
import type { CompiledSchema } from '../schema/compile.js'
import { compileSchema } from '../schema/compile.js'
import type { AnyToolDefinition, ToolDefinition } from '../tool/define.js'
import { checkDefinition } from '../tool/define.js'
import type {
  ContentBlock,
  Disposable,
  JsonValue,
  ParentToken,
  PostToolDecision,
  PreToolDecision,
  ToolExecution,
  ToolGuard,
  ToolResult,
  ToolSchema,
} from '../types.js'
import { disposable } from './disposable.js'

// The registry holds everything registered — tools, listeners, guards, restrictions,
// visibility filters — each tagged with its scope (global, or one agent). A call only ever
// sees the view for its agent: global entries plus that agent's, in registration order. Views
// are built once per registry change and cached, so the hot path does no filtering.

export type PreExecuteListener = (
  exec: ToolExecution,
  next: () => PreToolDecision | Promise<PreToolDecision>,
) => PreToolDecision | Promise<PreToolDecision>

/** What the body produced, before output validation and rendering. */
export type ExecuteOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown }

/**
 * An around-wrapper of the body. `next({ signal })` hands the body another signal (the caller's is
 * fused back in); `next({ timeoutMs })` asks for a deadline (the tightest one wins).
 */
export type ExecuteWrapper = (
  exec: ToolExecution,
  next: (override?: { signal?: AbortSignal; timeoutMs?: number }) => Promise<ExecuteOutcome>,
) => Promise<ExecuteOutcome>

/** The result as post-execute listeners see it: frozen candidate (not yet finalized). */
export interface PostExecuteResult {
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
  readonly value?: JsonValue
  readonly meta?: JsonValue
  readonly error?: ToolResult['error']
}

export type PostExecuteListener = (
  exec: ToolExecution,
  result: PostExecuteResult,
  next: () => PostToolDecision | Promise<PostToolDecision>,
) => PostToolDecision | Promise<PostToolDecision>

export type ResultObserver = (exec: ToolExecution, result: ToolResult) => void

export interface Restriction {
  readonly allow?: readonly string[]
  readonly deny?: readonly string[]
}

/** Hides a tool for a call context; returns a model-facing hint when hidden (Code Mode). */
export type FilterContext = { readonly agent?: string; readonly parent?: ParentToken }

export type VisibilityFilter = (
  toolName: string,
  context: FilterContext,
) => { readonly hidden: true; readonly hint?: string } | undefined

export interface RegisteredTool {
  readonly name: string
  readonly definition: AnyToolDefinition
  readonly parameters: CompiledSchema
  readonly output: CompiledSchema
  readonly schema: ToolSchema
}

type Entry<T> = { readonly value: T; readonly agent: string | undefined }

export interface AgentView {
  readonly tools: ReadonlyMap<string, RegisteredTool>
  readonly pre: readonly PreExecuteListener[]
  readonly execute: readonly ExecuteWrapper[]
  readonly post: readonly PostExecuteListener[]
  readonly result: readonly ResultObserver[]
  readonly guards: readonly ToolGuard[]
  readonly restrictions: readonly Restriction[]
  readonly filters: readonly VisibilityFilter[]
  /** Visibility decided for a tool name without a parent; cached per view. */
  schemas?: readonly ToolSchema[]
}

/** Agent views kept built at once; an agent id past this only costs a rebuild of its view. */
const MAX_CACHED_VIEWS = 256

export class Registry {
  private readonly views = new Map<string | undefined, AgentView>()
  private readonly tools: Entry<RegisteredTool>[] = []
  private readonly pre: Entry<PreExecuteListener>[] = []
  private readonly execute: Entry<ExecuteWrapper>[] = []
  private readonly post: Entry<PostExecuteListener>[] = []
  private readonly result: Entry<ResultObserver>[] = []
  private readonly guards: Entry<ToolGuard>[] = []
  private readonly restrictions: Entry<Restriction>[] = []
  private readonly filters: Entry<VisibilityFilter>[] = []

  /** Validate, compile and add a tool; schemas are derived here, once. */
  registerTool(definition: ToolDefinition<never, never>, agent: string | undefined): Disposable {
    checkDefinition(definition as unknown as ToolDefinition<unknown, unknown>)
    const name = definition.name
    if (this.tools.some((entry) => entry.agent === agent && entry.value.name === name)) {
      throw new ToolDefinitionError(
        `A tool named "${name}" is already registered ${agent === undefined ? 'globally' : `for agent "${agent}"`}; dispose it first or pick another name`,
      )
    }
    let parameters: CompiledSchema
    let output: CompiledSchema
    try {
      parameters = compileSchema(definition.parameters, `Tool "${name}" parameters`)
      output = compileSchema(definition.output.schema, `Tool "${name}" output.schema`)
    } catch (error) {
      throw new ToolDefinitionError((error as Error).message)
    }
    // The model-facing declaration: an explicit allowlist, nothing host-only (inv. 7).
    const schema: ToolSchema = Object.freeze({
      name,
      description: definition.description,
      parameters: parameters.jsonSchema,
      ...(definition.deferLoading === true ? { deferLoading: true } : {}),
    })
    const registered: RegisteredTool = Object.freeze({
      name,
      definition: definition as AnyToolDefinition,
      parameters,
      output,
      schema,
    })
    return this.add(this.tools, registered, agent)
  }

  onPre = (l: PreExecuteListener, agent?: string) => this.add(this.pre, l, agent)
  onExecute = (l: ExecuteWrapper, agent?: string) => this.add(this.execute, l, agent)
  onPost = (l: PostExecuteListener, agent?: string) => this.add(this.post, l, agent)
  onResult = (l: ResultObserver, agent?: string) => this.add(this.result, l, agent)
  addGuard = (g: ToolGuard, agent?: string) => this.add(this.guards, g, agent)
  restrict = (r: Restriction, agent?: string) => this.add(this.restrictions, Object.freeze({ ...r }), agent)
  addFilter = (f: VisibilityFilter, agent?: string) => this.add(this.filters, f, agent)

  private add<T>(list: Entry<T>[], value: T, agent: string | undefined): Disposable {
    const entry: Entry<T> = { value, agent }
    list.push(entry)
    this.changed()
    return disposable(() => {
      const index = list.indexOf(entry)
      if (index >= 0) list.splice(index, 1)
      this.changed()
    })
  }

  private changed(): void {
    this.views.clear()
  }

  /** The entries that apply to one agent's calls, in registration order. */
  view(agent: string | undefined): AgentView {
    const cached = this.views.get(agent)
    if (cached) return cached
    // Agent ids come from calls: cache a bounded number of views (the oldest is rebuilt on need).
    if (this.views.size >= MAX_CACHED_VIEWS) this.views.delete(this.views.keys().next().value)
    const pick = <T>(list: Entry<T>[]) =>
      list.filter((e) => e.agent === undefined || e.agent === agent).map((e) => e.value)
    const tools = new Map<string, RegisteredTool>()
    for (const entry of this.tools) if (entry.agent === undefined) tools.set(entry.value.name, entry.value)
    // An agent's own tool shadows a global one of the same name, for that agent only.
    if (agent !== undefined)
      for (const entry of this.tools) if (entry.agent === agent) tools.set(entry.value.name, entry.value)
    const view: AgentView = {
      tools,
      pre: pick(this.pre),
      execute: pick(this.execute),
      post: pick(this.post),
      result: pick(this.result),
      guards: pick(this.guards),
      restrictions: pick(this.restrictions),
      filters: pick(this.filters),
    }
    this.views.set(agent, view)
    return view
  }

  /** How many agent views are cached now (for tests of the bound). */
  get cachedViews(): number {
    return this.views.size
  }

  /** Is `name` hidden from this view by an agent restriction (allow / deny lists)? */
  restricted(view: AgentView, name: string): boolean {
    for (const r of view.restrictions) {
      if (r.allow && !r.allow.includes(name)) return true
      if (r.deny?.includes(name)) return true
    }
    return false
  }

  /** Is `name` visible to this call? Returns the tool, or why not (with a hint when filtered). */
  lookup(
    view: AgentView,
    name: string,
    context: FilterContext,
  ): { readonly tool: RegisteredTool } | { readonly tool?: undefined; readonly hint?: string } {
    const tool = view.tools.get(name)
    if (!tool || this.restricted(view, name)) return {}
    const hidden = this.hiddenBy(view, name, context)
    if (hidden) return hidden.hint === undefined ? {} : { hint: hidden.hint }
    return { tool }
  }

  /** The tool `name` resolves to for this call, if visible (the hot path: allocates nothing). */
  find(view: AgentView, name: string, context: FilterContext): RegisteredTool | undefined {
    const tool = view.tools.get(name)
    if (!tool || this.restricted(view, name)) return undefined
    if (view.filters.length > 0 && this.hiddenBy(view, name, context)) return undefined
    return tool
  }

  private hiddenBy(view: AgentView, name: string, context: FilterContext) {
    for (const filter of view.filters) {
      const hidden = filter(name, context)
      if (hidden) return hidden
    }
    return undefined
  }

  /** Model-facing schemas, sorted by name so identical registrations give identical bytes. */
  schemas(agent: string | undefined): readonly ToolSchema[] {
    const view = this.view(agent)
    if (view.schemas) return view.schemas
    const context = agent === undefined ? {} : { agent }
    const visible = [...view.tools.keys()]
      .filter((name) => this.find(view, name, context) !== undefined)
      .sort()
      .map((name) => view.tools.get(name)!.schema)
    view.schemas = Object.freeze(visible)
    return view.schemas
  }

  /** Names visible to a context (for "did you mean" suggestions). */
  visibleNames(
    view: AgentView,
    context: { readonly agent?: string; readonly parent?: ParentToken },
  ): string[] {
    return [...view.tools.keys()].filter((name) => this.find(view, name, context) !== undefined)
  }
}
