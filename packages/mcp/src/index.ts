// @toolgate/mcp: MCP servers as toolgate tool sources, on the official MCP SDK.

export { type ConfigFile, MAX_CONFIG_BYTES, mcpConfigFiles, toolgateHome } from './config/files.js'
export { type LoadedConfig, type LoadOptions, loadMcpConfig } from './config/load.js'
export { canonicalJson, configHash, fileTrustStore, type TrustStore } from './config/trust.js'
export type {
  ConfigProblem,
  HttpServerConfig,
  ServerConfig,
  ServerEntry,
  ServerSource,
  StdioServerConfig,
} from './config/types.js'
export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type ForeignTool,
  McpConnection,
  RECONNECT,
  type ServerState,
} from './connection.js'
export {
  McpManager,
  type McpManagerOptions,
  type ServerReport,
  type ServerStatus,
  START_LIMITS,
  type SyncReport,
} from './manager.js'
export { CallGate, type GateKind } from './server/call-gate.js'
export {
  approvalMessage,
  approvalSchema,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  elicitApproval,
  NO_ELICITATION,
  type PendingCall,
} from './server/elicit-approval.js'
export {
  MAX_PROGRESS_PER_CALL,
  objectOutputSchema,
  type ServedRuntime,
  type ServeOptions,
  serveRuntime,
  toCallToolResult,
} from './server/serve.js'
export { MAX_CLIENT_MESSAGE_BYTES, stdioServerTransport } from './server/stdio.js'
export { mapContent } from './tools/content.js'
export { mcpMessages } from './tools/messages.js'
export {
  buildToolName,
  capDescription,
  MAX_DESCRIPTION,
  type NameCollision,
  normalizeNamePart,
  TOOL_NAME_PATTERN,
} from './tools/naming.js'
export {
  contentTokens,
  DEFAULT_MAX_OUTPUT_TOKENS,
  estimateTokens,
  IMAGE_TOKENS,
  limitContent,
} from './tools/output-limit.js'
export { directorySpill, type SpillSink } from './tools/spill-sink.js'
export { CREDENTIAL_NAME, childEnvironment } from './transport/env.js'
export { GroupStdioTransport } from './transport/stdio.js'
