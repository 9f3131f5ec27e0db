import { ToolDefinitionError } from '../errors/tool-error.js'
import type { SchemaInput } from '../schema/compile.js'
import type { StandardSchemaV1 } from '../schema/standard-schema.js'
import type {
  ContentBlock,
  JsonObject,
  JsonValue,
  ToolCallView,
  ToolExecution,
  ToolResult,
  ToolResultView,
  ToolRunContext,
} from '../types.js'

// A tool has three layers (seed 000 §2): model-visible (name, description, parameters,
// deferLoading), host-only (execute, output, timeouts, concurrency, content hooks) and
// presentation (presentCall/presentResult). Only the first layer is ever sent to a model;
// `schemas()` builds it by explicit allowlist.

/** The TypeScript type a schema validates to: inferred from a Standard Schema, JSON otherwise. */
export type InferSchema<S> = S extends StandardSchemaV1<infer _In, infer Out> ? Out : JsonValue
/** Arguments are inferred from the parameters schema; a plain JSON Schema gives a JSON object. */
export type InferArgs<S> = S extends StandardSchemaV1<infer _In, infer Out> ? Out : JsonObject

export interface ToolOutputDefinition<Args, Value> {
  /** Validated against every successful value. */
  readonly schema: SchemaInput
  /** Pure projection of the canonical value into model-visible content. */
  render(args: Args, value: Value): readonly ContentBlock[]
  /** Pure projection into replayable presentation data (becomes `result.meta`). */
  presentationMeta?(args: Args, value: Value): JsonValue
}

/** The result as it stands before finalization; what content hooks receive. */
export interface CandidateResult {
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
  readonly value?: JsonValue
  readonly meta?: JsonValue
  readonly error?: ToolResult['error']
}

export interface ToolDefinition<Args = JsonObject, Value = JsonValue> {
  readonly name: string
  readonly description: string
  readonly parameters: SchemaInput
  readonly deferLoading?: boolean
  readonly output: ToolOutputDefinition<Args, Value>
  execute(args: Args, exec: ToolRunContext): Promise<Value> | Value
  /** Content prepared by the execution, applied before post-execute policy. */
  projectContent?(exec: ToolExecution, result: CandidateResult): readonly ContentBlock[] | undefined
  /** Last, synchronous, content-only step; called exactly once for every outcome; must not throw. */
  finalizeContent?(exec: ToolExecution, result: CandidateResult): readonly ContentBlock[] | undefined
  /** Declaring it promises the body forwards `exec.signal` to cooperative work. */
  readonly timeoutMs?: number
  /** Only an exact `true` runs the call in parallel with its siblings. */
  isConcurrencySafe?(args: Args): boolean
  /** When the user interrupts: 'cancel' (default) stops the call; 'block' lets it finish. */
  readonly interruptBehavior?: 'cancel' | 'block'
  /**
   * A failure of this tool skips its later same-tool siblings in the batch (seed 003 §6.6: bash
   * does). `true`: any failed result. A function decides per settled result, so a tool whose
   * failures are values (bash's non-zero exit) can still cascade on them. Results that are
   * already skips or interruptions (cancelled, aborted, sibling_failed) and calls that never ran
   * (unknown tool, invalid arguments) never cascade.
   */
  readonly cascadeOnFailure?: boolean | ((result: ToolResult) => boolean)
  /** Pure, replay-safe UI cards; never model content. */
  presentCall?(args: Args): ToolCallView | undefined
  presentResult?(args: Args, result: ToolResult): ToolResultView | undefined
}

/** A tool whose argument and value types are erased (what the registry stores). */
export type AnyToolDefinition = ToolDefinition<never, never> | ToolDefinition<JsonObject, JsonValue>

const NAME = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * Define a tool with arguments typed from its parameters schema. Invalid definitions throw a
 * `ToolDefinitionError` naming the field; they never reach the registry.
 */
export function defineTool<P extends SchemaInput, Value>(
  definition: ToolDefinition<InferArgs<P>, Value> & { readonly parameters: P },
): ToolDefinition<InferArgs<P>, Value> {
  checkDefinition(definition as unknown as ToolDefinition<unknown, unknown>)
  return Object.freeze({ ...definition })
}

export function checkDefinition(definition: ToolDefinition<unknown, unknown>): void {
  const name = (definition as { name?: unknown }).name
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ToolDefinitionError(
      `Tool name ${JSON.stringify(name)} is invalid: use 1-64 characters from a-z, A-Z, 0-9, "_" and "-"`,
    )
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    throw new ToolDefinitionError(
      `Tool "${name}" needs a non-empty description: it is all the model knows of it`,
    )
  }
  if (typeof definition.parameters !== 'object' || definition.parameters === null) {
    throw new ToolDefinitionError(
      `Tool "${name}" needs a parameters schema (a Standard Schema or JSON Schema)`,
    )
  }
  const output = definition.output as Partial<ToolOutputDefinition<unknown, unknown>> | undefined
  if (!output || typeof output !== 'object' || !output.schema || typeof output.render !== 'function') {
    throw new ToolDefinitionError(
      `Tool "${name}" needs an output declaration { schema, render }; use textOutput() or jsonOutput(schema) for common shapes`,
    )
  }
  if (typeof definition.execute !== 'function') {
    throw new ToolDefinitionError(`Tool "${name}" needs an execute(args, exec) function`)
  }
  const timeout = definition.timeoutMs
  if (timeout !== undefined && !(typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0)) {
    throw new ToolDefinitionError(
      `Tool "${name}" has timeoutMs ${String(timeout)}: it must be a positive finite number of milliseconds`,
    )
  }
  const interrupt = definition.interruptBehavior
  if (interrupt !== undefined && interrupt !== 'cancel' && interrupt !== 'block') {
    throw new ToolDefinitionError(
      `Tool "${name}" has interruptBehavior ${String(interrupt)}: use 'cancel' or 'block'`,
    )
  }
}

export type { SchemaInput }
