// A server's stderr: the last bytes are kept for error reports ("failed to start: <tail>"), and
// lines go to the session log up to a byte cap per server, so a chatty server cannot grow either.

export class StderrTail {
  private chunks: string[] = []
  private size = 0
  private logged = 0
  private droppedFromLog = 0
  private partial = ''

  constructor(
    private readonly keepBytes: number,
    private readonly logCapBytes: number,
    private readonly log: (line: string) => void,
  ) {}

  push(chunk: string): void {
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size > this.keepBytes && this.chunks.length > 1) this.size -= this.chunks.shift()!.length
    if (this.size > this.keepBytes && this.chunks.length === 1) {
      const only = this.chunks[0]!
      this.chunks[0] = only.slice(only.length - this.keepBytes)
      this.size = this.chunks[0].length
    }
    const text = this.partial + chunk
    const lines = text.split('\n')
    this.partial = (lines.pop() ?? '').slice(-this.keepBytes)
    for (const line of lines) this.logLine(line)
  }

  private logLine(line: string): void {
    if (line === '') return
    if (this.logged + line.length > this.logCapBytes) {
      if (this.droppedFromLog === 0)
        this.log(`[stderr log cap of ${this.logCapBytes} bytes reached; further stderr is not logged]`)
      this.droppedFromLog += line.length
      return
    }
    this.logged += line.length
    this.log(line)
  }

  /** The last `keepBytes` of stderr, trimmed, without control sequences. */
  tail(): string {
    return sanitize(this.chunks.join('')).trim()
  }
}

/** Control characters (terminal escapes) never reach a model or a terminal from a server. */
export function sanitize(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
}
