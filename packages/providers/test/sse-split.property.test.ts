import { CODECS, type ModelStreamEvent, type Provider, readSse } from '@toolgate/providers'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { anthropic, openaiChat, openaiResponses } from './transcripts.js'

async function decode(provider: Provider, chunks: Uint8Array[]): Promise<ModelStreamEvent[]> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      controller.close()
    },
  })
  const decoder = CODECS[provider].createStreamDecoder()
  const out: ModelStreamEvent[] = []
  for await (const m of readSse(body, (r) => r.read())) {
    out.push(...decoder.push(m))
    if (decoder.finished) break
  }
  out.push(...decoder.end())
  return out
}

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Uint8Array[] = []
  let prev = 0
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(prev, p))
    prev = p
  }
  return out
}

describe.each([
  ['anthropic', anthropic.parallel],
  ['openai-chat', openaiChat.parallel],
  ['openai-responses', openaiResponses.parallel],
  ['anthropic', anthropic.maxTokens],
  ['openai-chat', openaiChat.maxTokens.replaceAll('\n', '\r\n')],
] as const)('%s', (provider, text) => {
  test('splitting the SSE bytes anywhere (inside UTF-8 sequences too) yields identical events', async () => {
    const bytes = new TextEncoder().encode(text)
    const whole = await decode(provider, [bytes])
    expect(whole.at(-1)?.type).toBe('finish')
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (cuts) => {
        expect(await decode(provider, split(bytes, cuts))).toEqual(whole)
      }),
      { numRuns: 150 },
    )
  })
})
