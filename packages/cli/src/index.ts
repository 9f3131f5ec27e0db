// The package's public surface: `main` (main.ts) and the pieces a host program may reuse.

export { keyAnswer, terminalAnswerer } from './approval/prompt.js'
export {
  type CommandSpec,
  helpText,
  type OptionSpec,
  type ParsedArgs,
  type ParseResult,
  parseArgs,
} from './args.js'
export { type Endpoint, PROVIDERS, resolveEndpoint } from './endpoint.js'
export { EXIT, type ExitCode } from './exit-codes.js'
export { type CliIO, type InStream, nodeIO, type OutStream } from './io.js'
export { main, topHelp } from './main.js'
export {
  type CallCardInput,
  type ResultCardInput,
  type ResultLike,
  renderCallCard,
  renderResultCard,
} from './render/cards.js'
export { colorEnabled, createStyle, type Style, stripAnsi } from './render/colors.js'
export { version } from './version.js'
