// An OpenAI-compatible chat server on 127.0.0.1 that streams scripted turns (SSE), for driving
// `main(['run', ...])` in-process against a real HTTP connection.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ScriptedServer {
  readonly baseUrl: string
  /** The request bodies received, in order. */
  readonly requests: unknown[]
  close(): Promise<void>
}

/** Each turn is a list of SSE data payloads; `[DONE]` is appended. */
export async function modelServer(turns: readonly (readonly string[])[]): Promise<ScriptedServer> {
  const requests: unknown[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8')
    })
    req.on('end', () => {
      const n = requests.length
      requests.push(JSON.parse(body))
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const data of turns[n] ?? [text('no more turns'), finish('stop')]) res.write(`data: ${data}\n\n`)
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const chunk = (delta: object, finishReason: string | null = null) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })

export const text = (t: string) => chunk({ role: 'assistant', content: t })
export const finish = (reason: string) => chunk({}, reason)
export const call = (index: number, id: string, name: string, args: object) =>
  chunk({
    tool_calls: [{ index, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  })
