// @toolgate/providers: wire codecs, stream assembly, schema dialects and HTTP transport.

// Kept here for compatibility; the normalizer lives in core (the MCP bridge uses it too).
export {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  type NormalizedSchema,
  normalizeSchema,
  type SchemaNote,
} from '@toolgate/core'
export { CODECS, createModelClient, type HttpModelClient, type ModelClientOptions } from './client.js'
export { anthropicCodec } from './codecs/anthropic.js'
export type {
  CompiledTool,
  DecodedResponse,
  EncodedRequest,
  EncodeOptions,
  SchemaFallback,
  SchemaOmission,
  StreamDecoder,
  WireCodec,
} from './codecs/codec.js'
export { compileTools } from './codecs/codec.js'
export { openaiChatCodec } from './codecs/openai-chat.js'
export { openaiResponsesCodec } from './codecs/openai-responses.js'
export { type CollectedTurn, collectTurn } from './collect.js'
export {
  type AssistantMessage,
  type AssistantPart,
  type ContentBlock,
  type Message,
  type SystemMessage,
  type ToolCallPart,
  type ToolResultMessage,
  type ToolSchema,
  textOf,
  toolCallsOf,
  type UserMessage,
} from './messages.js'
export type { ModelClient, ModelRequest, ModelStreamEvent, Provider, Usage } from './model.js'
export { SchemaDialectError } from './schema/dialect-error.js'
export { DIALECTS, type DialectProfile, SCHEMA_DIALECTS, type SchemaDialect } from './schema/dialects.js'
export { FOREIGN_TOOL_PREFIX, isForeignTool } from './schema/foreign.js'
export { normalizeArgs } from './schema/normalize-args.js'
export { compileProviderSchema, type SchemaUsage, toProviderSchema } from './schema/to-provider-schema.js'
export {
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  scriptedModel,
} from './scripted.js'
export {
  ANTHROPIC_STOP_REASONS,
  normalizeStopReason,
  OPENAI_CHAT_STOP_REASONS,
  OPENAI_RESPONSES_STOP_REASONS,
  type StopDecision,
  type StopReason,
  stopDecision,
  truncatedCallResults,
  truncatedCallText,
} from './stop-reasons.js'
export {
  type ErrorBodyCut,
  ProviderAbortedError,
  ProviderError,
  type ProviderErrorKind,
  ProviderHttpError,
  ProviderLimitError,
  ProviderNetworkError,
  ProviderProtocolError,
  ProviderStreamError,
  ProviderTimeoutError,
  type ResponseLimit,
  type TimeoutPhase,
} from './transport/errors.js'
export { type Connection, postJson, providerMessage, type RetryInfo, retryAfterMs } from './transport/http.js'
export { resolveTransport, TRANSPORT_DEFAULTS, type TransportOptions } from './transport/settings.js'
export { parseSseText, readSse, readSseBatches, type SseMessage } from './transport/sse.js'
