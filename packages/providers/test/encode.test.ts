import type { ToolSchema } from '@toolgate/core'
import {
  anthropicCodec,
  type Message,
  openaiChatCodec,
  openaiResponsesCodec,
  retryAfterMs,
} from '@toolgate/providers'
import { describe, expect, test } from 'vitest'

const history: Message[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: [{ type: 'text', text: 'read a and b' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'text', text: 'Reading.' },
      { type: 'tool-call', callId: 'c1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'tool-call', callId: 'c2', name: 'read', arguments: '{"path":' },
    ],
  },
  { role: 'tool', callId: 'c1', name: 'read', content: [{ type: 'text', text: 'A' }], isError: false },
  {
    role: 'tool',
    callId: 'c2',
    name: 'read',
    content: [{ type: 'text', text: 'INVALID_ARGS' }],
    isError: true,
  },
]
const read: ToolSchema = {
  name: 'read',
  description: 'Read a file',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
    required: ['path'],
    additionalProperties: false,
  },
}
const env: ToolSchema = {
  name: 'env',
  description: 'Set env',
  parameters: {
    type: 'object',
    properties: { vars: { type: 'object', additionalProperties: { type: 'string' } } },
  },
}
const opts = { model: 'm', maxTokens: 100, stream: true, strictTools: true }

describe('results packaging', () => {
  test('anthropic: all results of a turn in ONE user message; malformed arguments sent as {}', () => {
    const { body } = anthropicCodec.encodeRequest({ messages: history }, { ...opts, strictTools: false })
    expect(body).toEqual({
      model: 'm',
      max_tokens: 100,
      system: 'You are terse.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read a and b' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
            { type: 'tool_use', id: 'c2', name: 'read', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'c1',
              content: [{ type: 'text', text: 'A' }],
              is_error: false,
            },
            {
              type: 'tool_result',
              tool_use_id: 'c2',
              content: [{ type: 'text', text: 'INVALID_ARGS' }],
              is_error: true,
            },
          ],
        },
      ],
      stream: true,
    })
  })

  test('openai-chat: one tool message per call, arguments passed as the raw string', () => {
    const { body } = openaiChatCodec.encodeRequest({ messages: history }, opts)
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'read a and b' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
          { id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'tool', tool_call_id: 'c2', content: 'INVALID_ARGS' },
    ])
    expect(body.stream_options).toEqual({ include_usage: true })
  })

  test('openai-responses: function_call and function_call_output items', () => {
    const { body } = openaiResponsesCodec.encodeRequest({ messages: history }, opts)
    expect(body.input).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'input_text', text: 'read a and b' }] },
      { role: 'assistant', content: 'Reading.' },
      { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'function_call', call_id: 'c2', name: 'read', arguments: '{"path":' },
      { type: 'function_call_output', call_id: 'c1', output: 'A' },
      { type: 'function_call_output', call_id: 'c2', output: 'INVALID_ARGS' },
    ])
  })
})

describe('tools[] with per-tool strict fallback', () => {
  test('openai-chat: read goes strict, env (open map) falls back to non-strict and is reported', () => {
    const encoded = openaiChatCodec.encodeRequest({ messages: [], tools: [read, env] }, opts)
    expect(encoded.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read',
          description: 'Read a file',
          parameters: {
            type: 'object',
            properties: { path: { type: 'string' }, limit: { type: ['integer', 'null'], minimum: 1 } },
            required: ['path', 'limit'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
      { type: 'function', function: { name: 'env', description: 'Set env', parameters: env.parameters } },
    ])
    expect([...encoded.strictTools]).toEqual(['read'])
    expect(encoded.schemaFallbacks).toEqual([
      {
        tool: 'env',
        keyword: 'additionalProperties',
        path: '/properties/vars/additionalProperties',
        message:
          'openai-strict cannot express `additionalProperties` at /properties/vars/additionalProperties: an open object (extra keys allowed) cannot be expressed; every key must be declared',
      },
    ])
  })

  test('openai-responses always sends strict explicitly (the wire defaults it to true)', () => {
    const { body } = openaiResponsesCodec.encodeRequest(
      { messages: [], tools: [read] },
      { ...opts, strictTools: false },
    )
    expect(body.tools).toEqual([
      {
        type: 'function',
        name: 'read',
        description: 'Read a file',
        parameters: read.parameters,
        strict: false,
      },
    ])
  })

  test('anthropic strict keeps optional properties and moves minimum into the description', () => {
    const { body } = anthropicCodec.encodeRequest(
      { messages: [], tools: [read], toolChoice: 'required' },
      opts,
    )
    expect(body.tools).toEqual([
      {
        name: 'read',
        description: 'Read a file',
        input_schema: {
          type: 'object',
          properties: { path: { type: 'string' }, limit: { description: 'minimum: 1', type: 'integer' } },
          required: ['path'],
          additionalProperties: false,
        },
        strict: true,
      },
    ])
    expect(body.tool_choice).toEqual({ type: 'any' })
  })
})

describe('non-streamed responses', () => {
  test('each codec decodes its response shape', () => {
    expect(
      anthropicCodec.decodeResponse({
        content: [
          { type: 'text', text: 'ok' },
          { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 2 },
      }),
    ).toEqual({
      message: {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'ok' },
          { type: 'tool-call', callId: 't1', name: 'read', arguments: '{"path":"a"}' },
        ],
      },
      stopReason: 'tool_use',
      rawStopReason: 'tool_use',
      usage: { inputTokens: 1, outputTokens: 2, promptTokens: 1 },
    })
    expect(
      openaiChatCodec.decodeResponse({
        choices: [
          {
            message: {
              content: null,
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      }),
    ).toEqual({
      message: { role: 'assistant', parts: [{ type: 'tool-call', callId: 'c', name: 'x', arguments: '{}' }] },
      stopReason: 'tool_use',
      rawStopReason: 'tool_calls',
    })
    expect(
      openaiResponsesCodec.decodeResponse({
        status: 'completed',
        output: [
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] },
          { type: 'function_call', call_id: 'c9', name: 'grep', arguments: '{"pattern":"x"}' },
        ],
      }),
    ).toEqual({
      message: {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'hi' },
          { type: 'tool-call', callId: 'c9', name: 'grep', arguments: '{"pattern":"x"}' },
        ],
      },
      stopReason: 'tool_use',
      rawStopReason: 'completed',
    })
  })
})

test('retry-after: seconds, HTTP date, retry-after-ms', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')
  expect(retryAfterMs(new Headers({ 'retry-after': '3' }), now)).toBe(3000)
  expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:05 GMT' }), now)).toBe(5000)
  expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:27:00 GMT' }), now)).toBe(0)
  expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250)
  expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
})
