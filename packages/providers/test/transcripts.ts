// Realistic SSE transcripts of each wire format (shapes as the vendors document and send them).
import { sseText } from './loopback.js'

export const anthropic = {
  /** Text, then two parallel tool_use blocks (the second one's input split mid-token). */
  parallel: sseText([
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [],
          model: 'claude',
          stop_reason: null,
          usage: { input_tokens: 120, output_tokens: 1 },
        },
      },
    },
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    },
    { event: 'ping', data: { type: 'ping' } },
    {
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '我来读两个' } },
    },
    {
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' files.' } },
    },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_01', name: 'read', input: {} },
      },
    },
    {
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
    },
    {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"path": "a.ts"}' },
      },
    },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_02', name: 'read', input: {} },
      },
    },
    {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: '{"pa' },
      },
    },
    {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: 'th": "b.ts"}' },
      },
    },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 2 } },
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 42 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]),
  /** Cut inside the second tool_use block (no content_block_stop, no message_stop). */
  cutPrefix: sseText([
    {
      event: 'message_start',
      data: { type: 'message_start', message: { id: 'msg_2', usage: { input_tokens: 5 } } },
    },
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_A', name: 'read', input: {} },
      },
    },
    {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"path":"x"}' },
      },
    },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_B', name: 'write', input: {} },
      },
    },
    {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"path":"y","content":"hel' },
      },
    },
  ]),
  /** max_tokens inside a tool call: the block is closed with cut-off input. */
  maxTokens: sseText([
    {
      event: 'message_start',
      data: { type: 'message_start', message: { id: 'msg_3', usage: { input_tokens: 5 } } },
    },
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_W', name: 'write', input: {} },
      },
    },
    {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"path":"big.txt","content":"lorem ips' },
      },
    },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 1024 } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]),
  text(text: string, stop: string | null = 'end_turn'): string {
    return sseText([
      {
        event: 'message_start',
        data: { type: 'message_start', message: { id: 'msg_t', usage: { input_tokens: 3 } } },
      },
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: { type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 2 } },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ])
  },
}

const chunk = (delta: unknown, finish: string | null = null) => ({
  data: {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  },
})

export const openaiChat = {
  /** Two calls whose argument deltas interleave by index; malformed JSON in the second. */
  parallel: sseText([
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'Reading 两个 files.' }),
    chunk({
      tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
    chunk({
      tool_calls: [
        { index: 1, id: 'call_b', type: 'function', function: { name: 'grep', arguments: '{"pattern":' } },
      ],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: '"TODO", }' } }] }),
    chunk({}, 'tool_calls'),
    {
      data: {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        choices: [],
        usage: { prompt_tokens: 50, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 10 } },
      },
    },
    { data: '[DONE]' },
  ]),
  cutPrefix: sseText([
    chunk({
      tool_calls: [
        { index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
      ],
    }),
    chunk({
      tool_calls: [
        {
          index: 1,
          id: 'call_b',
          type: 'function',
          function: { name: 'write', arguments: '{"path":"b","con' },
        },
      ],
    }),
  ]),
  maxTokens: sseText([
    chunk({
      tool_calls: [
        {
          index: 0,
          id: 'call_w',
          type: 'function',
          function: { name: 'write', arguments: '{"path":"big.txt","content":"lorem ips' },
        },
      ],
    }),
    chunk({}, 'length'),
    { data: '[DONE]' },
  ]),
  text(text: string, finish: string | null = 'stop'): string {
    return sseText([chunk({ content: text }), chunk({}, finish), { data: '[DONE]' }])
  },
}

const rev = (type: string, rest: Record<string, unknown>) => ({ event: type, data: { type, ...rest } })
const fc = (id: string, callId: string, name: string) => ({
  type: 'function_call',
  id,
  call_id: callId,
  name,
  arguments: '',
  status: 'in_progress',
})

export const openaiResponses = {
  /** Two function_call items whose argument deltas interleave by item_id. */
  parallel: sseText([
    rev('response.created', { response: { id: 'resp_1', status: 'in_progress', output: [] } }),
    rev('response.output_item.added', {
      output_index: 0,
      item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] },
    }),
    rev('response.output_text.delta', {
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'Reading ',
    }),
    rev('response.output_text.delta', {
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: '两个 files.',
    }),
    rev('response.output_item.added', { output_index: 1, item: fc('fc_1', 'call_1', 'read') }),
    rev('response.output_item.added', { output_index: 2, item: fc('fc_2', 'call_2', 'grep') }),
    rev('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: '{"path":' }),
    rev('response.function_call_arguments.delta', { item_id: 'fc_2', output_index: 2, delta: '{"pattern":' }),
    rev('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: '"a.ts"}' }),
    rev('response.function_call_arguments.delta', { item_id: 'fc_2', output_index: 2, delta: '"TODO"}' }),
    rev('response.function_call_arguments.done', {
      item_id: 'fc_1',
      output_index: 1,
      arguments: '{"path":"a.ts"}',
    }),
    rev('response.output_item.done', {
      output_index: 1,
      item: { ...fc('fc_1', 'call_1', 'read'), arguments: '{"path":"a.ts"}', status: 'completed' },
    }),
    rev('response.function_call_arguments.done', {
      item_id: 'fc_2',
      output_index: 2,
      arguments: '{"pattern":"TODO"}',
    }),
    rev('response.output_item.done', {
      output_index: 2,
      item: { ...fc('fc_2', 'call_2', 'grep'), arguments: '{"pattern":"TODO"}', status: 'completed' },
    }),
    rev('response.completed', {
      response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 70, output_tokens: 30 } },
    }),
  ]),
  cutPrefix: sseText([
    rev('response.output_item.added', { output_index: 0, item: fc('fc_1', 'call_1', 'read') }),
    rev('response.function_call_arguments.delta', {
      item_id: 'fc_1',
      output_index: 0,
      delta: '{"path":"a"}',
    }),
    rev('response.function_call_arguments.done', {
      item_id: 'fc_1',
      output_index: 0,
      arguments: '{"path":"a"}',
    }),
    rev('response.output_item.added', { output_index: 1, item: fc('fc_2', 'call_2', 'write') }),
    rev('response.function_call_arguments.delta', {
      item_id: 'fc_2',
      output_index: 1,
      delta: '{"path":"b","con',
    }),
  ]),
  maxTokens: sseText([
    rev('response.output_item.added', { output_index: 0, item: fc('fc_w', 'call_w', 'write') }),
    rev('response.function_call_arguments.delta', {
      item_id: 'fc_w',
      output_index: 0,
      delta: '{"path":"big.txt","content":"lorem ips',
    }),
    rev('response.function_call_arguments.done', {
      item_id: 'fc_w',
      output_index: 0,
      arguments: '{"path":"big.txt","content":"lorem ips',
    }),
    rev('response.incomplete', {
      response: { id: 'resp_3', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    }),
  ]),
  text(text: string): string {
    return sseText([
      rev('response.output_text.delta', { item_id: 'm', output_index: 0, content_index: 0, delta: text }),
      rev('response.completed', { response: { id: 'r', status: 'completed' } }),
    ])
  },
}
