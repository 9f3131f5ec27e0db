export type {
  AbandonedSubCall,
  DispatchOutcome,
  SandboxDispatch,
  SandboxFailureKind,
  SandboxOptions,
  SandboxResult,
} from './sandbox.js'
export { runSandboxed, SANDBOX_DEFAULTS, utf8Length } from './sandbox.js'
export type { StripIssue, StripResult } from './strip.js'
export { formatStripIssues, MAX_SYNTAX_DEPTH, stripTypes } from './strip.js'
