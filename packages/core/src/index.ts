// @toolgate/core: the tool runtime (DESIGN.md §4). Runs anywhere JavaScript runs; Node-only
// adapters (the JSONL session file) live in '@toolgate/core/node'.

export type {
  ApprovalAnswerer,
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalService,
} from './approval/service.js'
export { createApprovalService } from './approval/service.js'
export { assertNever } from './errors/assert-never.js'
export { errorDetail, failures } from './errors/failures.js'
export { DeadlineExceeded, SiblingFailed, ToolDefinitionError, ToolError } from './errors/tool-error.js'
export * from './jobs/index.js'
export type { MaterializeResult } from './json/materialize.js'
export { MAX_JSON_DEPTH, materialize, parseJson } from './json/materialize.js'
export { stringifyJson } from './json/stringify.js'
export type { ToolMetrics } from './metrics/metrics.js'
export { UNKNOWN_TOOLS } from './metrics/metrics.js'
export { timeoutPolicy } from './plugins/timeout.js'
export type {
  ExecuteOutcome,
  ExecuteWrapper,
  PostExecuteListener,
  PostExecuteResult,
  PreExecuteListener,
  Restriction,
  ResultObserver,
  VisibilityFilter,
} from './registry/registry.js'
export type {
  AgentScope,
  DisposeReport,
  HookEvent,
  Plugin,
  PluginContext,
  Runtime,
  RuntimeOptions,
  ScopeContext,
  ToolDescriptor,
} from './runtime.js'
export { createRuntime } from './runtime.js'
export type { BatchOptions } from './scheduler/batch.js'
export { batchContexts } from './scheduler/batch.js'
export type { CompiledSchema, JsonSchemaObject, SchemaInput } from './schema/compile.js'
export { compileSchema, isStandardSchema } from './schema/compile.js'
export {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  type NormalizedSchema,
  normalizeSchema,
  type SchemaNote,
} from './schema/normalize-draft.js'
export type { StandardSchemaV1 } from './schema/standard-schema.js'
export type {
  RuntimeSessionLog,
  SessionEvent,
  SessionEventType,
  SessionLog,
  SessionSink,
} from './session/log.js'
export { createSessionLog, discardSink, memorySink, SessionPayloadError } from './session/log.js'
export { linkSignals } from './signal/link.js'
export type {
  AnyToolDefinition,
  CandidateResult,
  InferArgs,
  InferSchema,
  ToolDefinition,
  ToolOutputDefinition,
} from './tool/define.js'
export { defineTool } from './tool/define.js'
export { jsonOutput, textOutput } from './tool/output.js'
export type * from './types.js'
