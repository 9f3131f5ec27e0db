// @toolgate/policy — shell classification and sandbox (issue 4 §1, §3).
// The permission engine (rules, presets, protected paths, grants) appends its exports below.

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
