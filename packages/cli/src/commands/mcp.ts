// `toolgate mcp list|approve <server>|serve`: the configured MCP servers, their state, tool count
// and schema bytes; approving a project server once (remembered per path + config hash); serving
// the built-in tools to an MCP client (mcp-serve.ts).
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { createRuntime } from '@toolgate/core'
import { fileTrustStore, loadMcpConfig, McpManager } from '@toolgate/mcp'
import type { ParsedArgs } from '../args.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO, OutStream } from '../io.js'
import { terminalSafe } from '../render/terminal-text.js'
import { mcpServeCommand } from './mcp-serve.js'
import { describeServer } from './mcp-session.js'

export async function mcpCommand(parsed: ParsedArgs, rawIo: CliIO): Promise<ExitCode> {
  const root = resolve(rawIo.cwd, typeof parsed.options.root === 'string' ? parsed.options.root : '.')
  const [action, server] = parsed.positionals
  if (action === 'serve') return serve(parsed, rawIo, root)
  // Everything list and approve print comes from configuration files (a repository's .mcp.json),
  // servers or argv, and none of it is styled: every line goes out terminal-safe (DESIGN §6).
  const io: CliIO = { ...rawIo, stdout: safeStream(rawIo.stdout), stderr: safeStream(rawIo.stderr) }
  if (action === 'approve') {
    if (!server) {
      io.stderr.write('toolgate mcp approve: name the server to approve (see toolgate mcp list)\n')
      return EXIT.usage
    }
    const entry = loadMcpConfig({ root }).servers.find((s) => s.name === server)
    if (!entry) {
      io.stderr.write(`toolgate mcp approve: no server "${server}" is configured in ${root}\n`)
      return EXIT.config
    }
    if (!entry.config) {
      io.stderr.write(`toolgate mcp approve: "${server}" has configuration problems; fix them first:\n`)
      for (const p of entry.problems) io.stderr.write(`  ${p.file}: ${p.field}: ${p.message}\n`)
      return EXIT.config
    }
    const trust = fileTrustStore()
    trust.approve(root, entry)
    io.stdout.write(
      `approved ${server} for ${root} (until its configuration changes); recorded in ${trust.path}\n`,
    )
    return EXIT.ok
  }
  if (action !== 'list') {
    io.stderr.write(`toolgate mcp: unknown action ${JSON.stringify(action)}; use list, approve or serve\n`)
    return EXIT.usage
  }
  const runtime = createRuntime()
  const manager = McpManager.fromConfig({ root }).attach(runtime)
  try {
    await manager.start()
    manager.sync()
    const report = manager.report()
    if (parsed.options.json === true) {
      io.stdout.write(`${JSON.stringify({ servers: report, fileProblems: manager.fileProblems })}\n`)
      return EXIT.ok
    }
    for (const p of manager.fileProblems) io.stdout.write(`problem  ${p.file}: ${p.field}: ${p.message}\n`)
    if (report.length === 0) {
      io.stdout.write(
        `no MCP servers configured for ${root} (.mcp.json, .toolgate/settings.json, ~/.toolgate/settings.json)\n`,
      )
      return EXIT.ok
    }
    for (const r of report) {
      io.stdout.write(
        `${r.name}  ${r.transport}  ${describeServer(r)}  tools ${r.tools}  schema ${r.schemaBytes.toLocaleString('en-US')} bytes\n`,
      )
      for (const problem of r.problems) io.stdout.write(`  left out: ${problem}\n`)
      for (const c of r.collisions)
        io.stdout.write(`  renamed: ${c.original} -> ${c.assigned} (${c.keptBy} kept the name)\n`)
    }
    return EXIT.ok
  } finally {
    await manager.dispose()
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function safeStream(stream: OutStream): OutStream {
  return { write: (text: string) => stream.write(terminalSafe(text)) }
}

/** `mcp serve` owns stdout (the MCP stream): its own messages go to stderr, terminal-safe. */
function serve(parsed: ParsedArgs, io: CliIO, root: string): Promise<ExitCode> | ExitCode {
  if (!isDirectory(root)) {
    io.stderr.write(terminalSafe(`toolgate mcp serve: the workspace root ${root} is not a directory\n`))
    return EXIT.config
  }
  return mcpServeCommand(parsed, io, root)
}
