// stdio transport with process-group ownership. The SDK's StdioClientTransport spawns the server
// in toolgate's own process group and kills only the direct child; a server that starts helpers
// (npx -> node, uvx -> python) would leave them running. This transport uses the SDK's own
// framing (ReadBuffer, serializeMessage) and spawns the server as the leader of a new process
// group, so close() signals the whole group: SIGTERM, then SIGKILL after a grace.
import { type ChildProcess, spawn } from 'node:child_process'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

export interface GroupStdioOptions {
  readonly command: string
  readonly args: readonly string[]
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string
  /** Called with every stderr chunk (decoded as UTF-8). */
  readonly onStderr?: (chunk: string) => void
  /** Grace between closing stdin, SIGTERM and SIGKILL (default 1,000 ms each). */
  readonly killGraceMs?: number
  /** Largest single message accepted from the server (default 64 MiB: the SDK's cap is 10 MiB). */
  readonly maxMessageBytes?: number
}

export interface ExitInfo {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private child?: ChildProcess
  private readonly buffer: ReadBuffer
  private exited?: ExitInfo
  private closing = false

  constructor(private readonly options: GroupStdioOptions) {
    this.buffer = new ReadBuffer({ maxBufferSize: options.maxMessageBytes ?? 64 * 1024 * 1024 })
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** How the process ended, once it has. */
  get exit(): ExitInfo | undefined {
    return this.exited
  }

  start(): Promise<void> {
    if (this.child) throw new Error('GroupStdioTransport already started')
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: { ...this.options.env },
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        // A new process group (and session) led by the server: killable as a whole.
        detached: true,
        shell: false,
        windowsHide: true,
      })
      this.child = child
      child.once('error', (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.once('spawn', () => resolve())
      child.once('exit', (code, signal) => {
        this.exited = { code, signal }
      })
      child.once('close', (code, signal) => {
        this.exited ??= { code, signal }
        this.onclose?.()
      })
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk)
        } catch (error) {
          this.onerror?.(error as Error)
          void this.close()
          return
        }
        for (;;) {
          let message: JSONRPCMessage | null
          try {
            message = this.buffer.readMessage()
          } catch (error) {
            // A line that is not JSON-RPC (a server printing to stdout) is reported and skipped.
            this.onerror?.(error as Error)
            continue
          }
          if (message === null) break
          this.onmessage?.(message)
        }
      })
      child.stderr?.setEncoding('utf8')
      child.stderr?.on('data', (chunk: string) => this.options.onStderr?.(chunk))
      child.stdin?.on('error', (error) => this.onerror?.(error))
      child.stdout?.on('error', (error) => this.onerror?.(error))
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (!stdin || this.exited || stdin.destroyed) {
        reject(new Error('the server process is not running'))
        return
      }
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', resolve)
    })
  }

  /** Close stdin, then SIGTERM the group, then SIGKILL it; resolves when the process is gone. */
  async close(): Promise<void> {
    const child = this.child
    if (!child || this.closing) return
    this.closing = true
    const grace = this.options.killGraceMs ?? 1000
    const gone = new Promise<void>((resolve) => {
      if (this.exited) resolve()
      else child.once('exit', () => resolve())
    })
    const within = (ms: number) =>
      Promise.race([
        gone.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
      ])
    try {
      child.stdin?.end()
    } catch {}
    if (!this.exited && !(await within(grace))) {
      this.killGroup(child, 'SIGTERM')
      if (!(await within(grace))) {
        this.killGroup(child, 'SIGKILL')
        await within(grace)
      }
    }
    // The leader may be gone while helpers it started still run in the group.
    this.killGroup(child, 'SIGKILL')
    this.buffer.clear()
  }

  private killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
    if (child.pid === undefined) return
    try {
      process.kill(-child.pid, signal)
    } catch {
      // ESRCH: the group is already empty.
    }
  }
}
