// The SDK's stdio server transport, with what a long-lived server needs around it: the end of
// stdin (the client went away) closes the connection — the SDK transport only listens for data
// and errors, so a client that exits would leave the server, and every call it is running,
// behind. One message is capped (the SDK's ReadBuffer closes the transport above the cap).
import type { Readable, Writable } from 'node:stream'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'

/** One JSON-RPC message from the client may be at most this large. */
export const MAX_CLIENT_MESSAGE_BYTES = 10 * 1024 * 1024

export function stdioServerTransport(
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): StdioServerTransport {
  const transport = new StdioServerTransport(stdin, stdout, { maxBufferSize: MAX_CLIENT_MESSAGE_BYTES })
  const start = transport.start.bind(transport)
  transport.start = async () => {
    await start()
    const end = () => {
      stdin.off('end', end)
      stdin.off('close', end)
      void transport.close()
    }
    stdin.once('end', end)
    stdin.once('close', end)
  }
  return transport
}
