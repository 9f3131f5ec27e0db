// toolgate CLI: `main(argv, io)` returns the exit code (README "Exit codes"); bin.ts wires it to
// the process. Tests call main directly or spawn the built binary.
//
// Start-up cost is what a user meets first (issue 15 §3): this module loads only the argument
// parser and the command specs (bin.ts imports it, not the package index with its re-exports). A
// command's code, and the runtime, tools, policy, providers and Code Mode behind it, is imported
// when that command runs, never for --help or --version.
import { type CommandSpec, helpText, type ParsedArgs, parseArgs } from './args.js'
import { chatSpec, demoSpec, mcpSpec, replaySpec, runSpec } from './commands/specs.js'
import { EXIT, type ExitCode } from './exit-codes.js'
import type { CliIO } from './io.js'
import { version } from './version.js'

type CommandRun = (parsed: ParsedArgs, io: CliIO) => Promise<ExitCode>

type Command = {
  readonly spec: CommandSpec
  /** Imports the command's module when it runs (lazy: see the top of this file). */
  readonly load: () => Promise<CommandRun>
}

const COMMANDS = {
  demo: { spec: demoSpec, load: async () => (await import('./commands/demo.js')).demoCommand },
  run: { spec: runSpec, load: async () => (await import('./commands/run.js')).runCommand },
  chat: { spec: chatSpec, load: async () => (await import('./commands/chat.js')).chatCommand },
  replay: { spec: replaySpec, load: async () => (await import('./commands/replay.js')).replayCommand },
  mcp: { spec: mcpSpec, load: async () => (await import('./commands/mcp.js')).mcpCommand },
} as const satisfies Record<string, Command>

export function topHelp(): string {
  return [
    'toolgate — a small terminal agent built on the toolgate tool runtime',
    '',
    'Usage: toolgate [command] [options]   (no command, on a terminal: an interactive session, as `toolgate chat`)',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((c) => `  ${c.spec.name.padEnd(10)}${c.spec.summary}`),
    '',
    'Options:',
    '  -h, --help     Show help (also: toolgate <command> --help, toolgate help <command>)',
    '  -v, --version  Print the version',
    '',
    'Exit codes: 0 ok, 1 task failed, 2 usage error, 3 config error, 130 interrupted.',
    'Environment: NO_COLOR disables colour; output that is not a terminal gets no colour and no progress.',
    '',
  ].join('\n')
}

export async function main(argv: readonly string[], io: CliIO): Promise<ExitCode> {
  const [first, ...rest] = argv
  if (first === undefined) {
    // A person at a terminal gets a session; a script gets the help and a usage error.
    if (io.stdin?.isTTY === true && io.stdout.isTTY === true) return dispatch(COMMANDS.chat, [], io)
    io.stderr.write(topHelp())
    return EXIT.usage
  }
  if (first === '--help' || first === '-h') {
    io.stdout.write(topHelp())
    return EXIT.ok
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    io.stdout.write(`toolgate ${version()}\n`)
    return EXIT.ok
  }
  if (first === 'help') {
    const name = rest[0]
    if (name === undefined) {
      io.stdout.write(topHelp())
      return EXIT.ok
    }
    const command = lookup(name)
    if (!command) return unknown(name, io)
    io.stdout.write(helpText(command.spec))
    return EXIT.ok
  }
  const command = lookup(first)
  if (!command) return unknown(first, io)
  return dispatch(command, rest, io)
}

async function dispatch(command: Command, argv: readonly string[], io: CliIO): Promise<ExitCode> {
  // Every command's options are parsed here, against its spec: usage errors and --help alike.
  const parsed = parseArgs(command.spec, argv)
  if (!parsed.ok) {
    io.stderr.write(`${parsed.error}\n`)
    return EXIT.usage
  }
  if (parsed.help) {
    io.stdout.write(helpText(command.spec))
    return EXIT.ok
  }
  const run = await command.load()
  return run(parsed, io)
}

function lookup(name: string): Command | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name as keyof typeof COMMANDS] : undefined
}

function unknown(name: string, io: CliIO): ExitCode {
  const hint = name.startsWith('-') ? `unknown option ${name}` : `unknown command "${name}"`
  io.stderr.write(
    `toolgate: ${hint}. Commands: ${Object.keys(COMMANDS).join(', ')}. See \`toolgate --help\`.\n`,
  )
  return EXIT.usage
}
