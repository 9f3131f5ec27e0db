// The SDK dispatches notifications one microtask late (Promise.resolve().then(handler)) but
// responses at once. Progress notifications sent right before a result arrive in the same chunk,
// so the response settles the request and removes its progress handler first, and the progress is
// dropped ("unknown token"). Delivering responses one microtask later keeps the server's order.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js'

export class OrderedTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void

  constructor(readonly inner: Transport) {
    inner.onclose = () => this.onclose?.()
    inner.onerror = (error) => this.onerror?.(error)
    inner.onmessage = (message, extra) => {
      const isResponse = 'id' in message && !('method' in message)
      if (isResponse) queueMicrotask(() => this.onmessage?.(message, extra))
      else this.onmessage?.(message, extra)
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
