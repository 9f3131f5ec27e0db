// A real HTTP server on 127.0.0.1 that plays scripted responses, one per request, in order.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Handler = (req: IncomingMessage, res: ServerResponse, body: unknown) => void | Promise<void>

export interface Loopback {
  /** The OpenAI-style base (`<origin>/v1`). */
  readonly baseUrl: string
  /** The host root (Anthropic's base URL form: requests go to `<origin>/v1/messages`). */
  readonly origin: string
  readonly requests: { url: string; headers: IncomingMessage['headers']; body: unknown }[]
  /** Resolves when the client closes the connection of request n (0-based). */
  closed(n: number): Promise<void>
  close(): Promise<void>
}

export async function loopback(handlers: Handler[]): Promise<Loopback> {
  const requests: Loopback['requests'] = []
  const closes: { promise: Promise<void>; resolve: () => void }[] = []
  const gate = (n: number) => {
    while (closes.length <= n) {
      let resolve!: () => void
      const promise = new Promise<void>((r) => {
        resolve = r
      })
      closes.push({ promise, resolve })
    }
    return closes[n]!
  }
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const body: unknown = text === '' ? undefined : JSON.parse(text)
    const n = requests.length
    requests.push({ url: req.url ?? '', headers: req.headers, body })
    res.on('close', () => gate(n).resolve())
    const handler = handlers[n]
    if (!handler) {
      res.writeHead(500).end('no handler')
      return
    }
    await handler(req, res, body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    closed: (n) => gate(n).promise,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Format SSE: `event:` line when named (Anthropic, Responses), then `data:`. */
export function sseText(events: readonly { event?: string; data: unknown }[]): string {
  return events
    .map(
      (e) =>
        `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    )
    .join('')
}

/** Send a whole SSE body and end the response normally. */
export function sse(text: string): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(text)
  }
}

/** Send part of an SSE body, then destroy the socket (connection cut). */
export function sseCut(text: string): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(text, () => setTimeout(() => res.socket?.destroy(), 5))
  }
}

export function status(code: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers })
    res.end(JSON.stringify(body))
  }
}

/** Bytes a hostile handler managed to send before the client went away. */
export interface Sent {
  bytes: number
}

/**
 * Write `head`, then `piece()` again and again, as fast as the client reads, until the client
 * closes the connection (an endless body; backpressure keeps the server's own memory flat).
 */
export function endless(
  code: number,
  contentType: string,
  head: string,
  piece: () => string,
  sent: Sent = { bytes: 0 },
): Handler {
  return (_req, res) =>
    new Promise<void>((resolve) => {
      res.writeHead(code, { 'content-type': contentType })
      let open = true
      res.on('close', () => {
        open = false
        resolve()
      })
      const write = (text: string) => {
        sent.bytes += Buffer.byteLength(text)
        return res.write(text)
      }
      const pump = () => {
        while (open) if (!write(piece())) return void res.once('drain', pump)
      }
      if (write(head)) pump()
      else res.once('drain', pump)
    })
}

/** Write `head`, then `piece()` every `everyMs` until the client closes the connection. */
export function drip(
  code: number,
  contentType: string,
  head: string,
  piece: () => string,
  everyMs: number,
): Handler {
  return (_req, res) =>
    new Promise<void>((resolve) => {
      res.writeHead(code, { 'content-type': contentType })
      res.write(head)
      const timer = setInterval(() => res.write(piece()), everyMs)
      res.on('close', () => {
        clearInterval(timer)
        resolve()
      })
    })
}
