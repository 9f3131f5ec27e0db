// @toolgate/policy — shell classification and sandbox (issue 4 §1, §3).
// The permission engine (rules, presets, protected paths, grants) appends its exports below.

// Permission engine (issue 4 §2): rules, presets, protected paths, grants, denial fuse.
export * from './permissions/index.js'
export { bwrapArgs, protectedMounts } from './sandbox/bwrap.js'
export { confine } from './sandbox/confine.js'
export { probeSandbox } from './sandbox/probe.js'
export {
  type Confinement,
  DEFAULT_PROTECTED_PATHS,
  type Enforcement,
  type SandboxMode,
  type SandboxPolicy,
  type SandboxProbe,
} from './sandbox/types.js'
export {
  type CommandPart,
  classifyCommand,
  classifyUncached,
  clearClassifyCache,
  MAX_COMMAND_LENGTH,
  splitCompound,
} from './shell/classify.js'
export { initShellParser } from './shell/parser.js'
export type { CommandClassification, SimpleCommandInfo } from './shell/types.js'
