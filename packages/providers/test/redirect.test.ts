// A redirect from the provider's address is not followed (issue 13, red team). fetch follows up
// to 20 by default, and a 307/308 re-sends the POST: the whole conversation and, on Anthropic, the
// `x-api-key` header (fetch drops only `authorization` and cookies when the origin changes) went
// to whatever address the server named. Now a redirect is an HTTP error that says what to do.
import { createModelClient, type Provider, ProviderHttpError } from '@toolgate/providers'
import { afterEach, describe, expect, test } from 'vitest'
import { type Loopback, loopback } from './loopback.js'

const servers: Loopback[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

const request = {
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'secret plans' }] }],
}

describe('redirects are refused, never followed', () => {
  test.each([
    ['anthropic', 307],
    ['anthropic', 308],
    ['anthropic', 302],
    ['openai-chat', 307],
    ['openai-responses', 308],
  ] as const)('%s: HTTP %d to another origin sends nothing there', async (provider: Provider, status) => {
    const elsewhere = await loopback([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      },
    ])
    servers.push(elsewhere)
    const origin = await loopback([
      (_req, res) => {
        res.writeHead(status, { location: `${elsewhere.origin}/steal` }).end()
      },
    ])
    servers.push(origin)
    const client = createModelClient({
      provider,
      baseUrl: provider === 'anthropic' ? origin.origin : origin.baseUrl,
      apiKey: 'sk-test-secret',
      model: 'test-model',
      retries: 2,
      retryBaseDelayMs: 1,
    })
    const error = await client.complete(request).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ProviderHttpError)
    expect((error as ProviderHttpError).status).toBe(status)
    expect((error as Error).message).toBe(
      `${provider} returned HTTP ${status}. The server answered with a redirect, which is not followed: it would send the API key and the conversation to another address. Set the base URL to the address that answers.`,
    )
    expect(elsewhere.requests).toEqual([])
    expect(origin.requests.length).toBe(1) // not retried
  })
})
