export type { DispatchLogEntry, DispatchLogListener, SubCallDispatcher } from './dispatcher.js'
export { createDispatcher } from './dispatcher.js'
export { capMessage, MESSAGE_MAX_CHARS } from './outcome.js'
export type { CodeModeOptions } from './plugin.js'
export { codeMode, codeModePrompt, RUN_CODE, RUN_CODE_DESCRIPTION, renderCodeSdk } from './plugin.js'
export type { RunCodeFailure, RunCodeValue } from './render.js'
export {
  CODE_RUN_FAILED,
  NO_OUTPUT_TEXT,
  renderRunCodeFailure,
  renderRunCodeOutput,
  renderRunCodeValue,
} from './render.js'
export { runSandboxed } from './sandbox.js'
export type {
  AbandonedSubCall,
  DispatchOutcome,
  SandboxDispatch,
  SandboxFailureKind,
  SandboxOptions,
  SandboxResult,
  SettleSubCall,
} from './sandbox-options.js'
export { SANDBOX_DEFAULTS } from './sandbox-options.js'
export type { CodeSdkOptions, CodeSdkTool } from './sdk.js'
export { renderCodeSdkFromSchemas } from './sdk.js'
export type { StripIssue, StripResult } from './strip.js'
export { formatStripIssues, MAX_SYNTAX_DEPTH, stripTypes } from './strip.js'
export { MAX_PENDING_ARGS_CHARS, MAX_PENDING_SUB_CALLS } from './sub-calls.js'
