// `toolgate mcp serve [--root DIR]`: the built-in tools, with toolgate's policy, sandbox and
// session log, served over stdio to any MCP client (issue 16 §4). stdout carries the protocol
// only; one line on stderr says where the session log is. An `ask` goes to the client as an
// elicitation request; a client without elicitation gets the denial (fail closed).
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { jsonlSink } from '@toolgate/core/node'
import { serveRuntime, stdioServerTransport } from '@toolgate/mcp'
import type { ParsedArgs } from '../args.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { createSession, type Preset } from '../wiring.js'

export async function mcpServeCommand(parsed: ParsedArgs, io: CliIO, root: string): Promise<ExitCode> {
  const o = parsed.options
  const preset = (o.preset as Preset | undefined) ?? 'workspace-write'
  const logPath =
    typeof o.log === 'string'
      ? resolve(io.cwd, o.log)
      : join(
          tmpdir(),
          `toolgate-mcp-serve-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.jsonl`,
        )
  let sink: ReturnType<typeof jsonlSink>
  try {
    mkdirSync(dirname(logPath), { recursive: true })
    sink = jsonlSink(logPath)
  } catch (error) {
    io.stderr.write(`toolgate mcp serve: cannot open the session log: ${(error as Error).message}\n`)
    return EXIT.config
  }
  let session: Awaited<ReturnType<typeof createSession>>
  try {
    // Asks are answered by the client (elicitation), so the approval policy is on-request.
    session = await createSession({ root, preset, approvalPolicy: 'on-request', sink })
  } catch (error) {
    sink.close()
    io.stderr.write(`toolgate mcp serve: could not set up the session: ${(error as Error).message}\n`)
    return EXIT.config
  }
  // The protocol needs the real streams (process.stdin/stdout in the binary).
  const transport = stdioServerTransport(io.stdin as unknown as Readable, io.stdout as unknown as Writable)
  const served = await serveRuntime({
    runtime: session.runtime,
    approval: session.approval,
    transport,
    serverInfo: { name: 'toolgate', version: '0.1.0' },
  })
  io.stderr.write(`toolgate mcp serve: workspace ${root}, preset ${preset}; session log ${logPath}\n`)
  const stop = () => void served.close()
  io.interrupt?.addEventListener('abort', stop, { once: true })
  if (io.interrupt?.aborted) stop()
  await served.closed
  io.interrupt?.removeEventListener('abort', stop)
  await session.runtime.dispose().catch(() => undefined)
  sink.close()
  return io.interrupt?.aborted ? EXIT.interrupted : EXIT.ok
}
