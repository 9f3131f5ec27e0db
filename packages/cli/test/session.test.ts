// Sessions (issue 15 §1), in-process against a loopback OpenAI-compatible server: the log is the
// whole transcript; --continue / --resume rebuild the exact history (an interrupted call answered
// as such); chat's slash commands; ask_user headless; the task tool's sub-agent.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { COMPACTION_PROMPT, HEADLESS_ANSWER, INTERRUPTED_TEXT, TASK_SYSTEM } from '@toolgate/agent'
import { describe, expect, test } from 'vitest'
import { main } from '../src/index.js'
import { call, finish, scriptServer, text } from './binary-helpers.js'
import { testIO } from './helpers.js'

const base = (url: string, root: string) => [
  '--provider',
  'openai-chat',
  '--base-url',
  url,
  '--model',
  'm',
  '--root',
  root,
  '--no-code',
]
/** The log's events (a line torn by a crash is skipped, as readers do). */
const events = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { type: string; [k: string]: unknown }]
      } catch {
        return []
      }
    })
type Wire = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown }
const strip = (messages: Wire[]) => messages.filter((m) => m.role !== 'system')

describe.concurrent('sessions', () => {
  test('run, then run --continue: the second request carries the first conversation; one log, two headers', {
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-continue-'))
    writeFileSync(join(root, 'notes.txt'), 'milk\n')
    const server = await scriptServer([
      () => [call('c1', 'read', { path: 'notes.txt' }), finish('tool_calls')],
      () => [text('It says milk.'), finish('stop')],
      () => [text('You asked what your notes say.'), finish('stop')],
    ])
    try {
      expect(await main(['run', ...base(server.baseUrl, root), 'What do my notes say?'], testIO().io)).toBe(0)
      const second = testIO()
      expect(
        await main(['run', ...base(server.baseUrl, root), '--continue', 'What did I ask?'], second.io),
      ).toBe(0)
      const [first, , third] = server.requests.map((r) => strip(r.body.messages))
      // The continued request = everything of the first task + the new message.
      expect(third!.slice(0, -1)).toEqual([
        ...first!,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"notes.txt"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: expect.stringContaining('milk') },
        { role: 'assistant', content: 'It says milk.' },
      ])
      expect(third!.at(-1)).toEqual({ role: 'user', content: 'What did I ask?' })
      const logs = join(root, '.toolgate', 'sessions')
      const log = /^ {2}log +(.+)$/m.exec(second.stdout.text())![1]!
      expect(log.startsWith(logs)).toBe(true)
      expect(readFileSync(join(logs, '.gitignore'), 'utf8')).toBe('*\n')
      const starts = events(log).filter((e) => e.type === 'session/start')
      expect(starts).toEqual([
        expect.objectContaining({
          provider: 'openai-chat',
          model: 'm',
          preset: 'workspace-write',
          root,
          version: '0.1.0',
        }),
        expect.objectContaining({ resumedFrom: log, messages: 4 }),
      ])
    } finally {
      await server.close()
    }
  })

  test('--resume of a session that died mid-call: the call gets an interrupted result, in the request and the log', {
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-resume-'))
    const log = join(root, 'died.jsonl')
    const lines = [
      {
        seq: 1,
        type: 'session/start',
        version: '0.1.0',
        provider: 'openai-chat',
        model: 'm',
        preset: 'workspace-write',
        root,
      },
      {
        seq: 2,
        type: 'agent/message',
        message: { role: 'user', content: [{ type: 'text', text: 'Build it.' }] },
      },
      {
        seq: 3,
        type: 'agent/message',
        message: {
          role: 'assistant',
          parts: [{ type: 'tool-call', callId: 'b1', name: 'bash', arguments: '{"command":"make"}' }],
        },
      },
      { seq: 4, type: 'tool/call', callId: 'b1', name: 'bash', arguments: { command: 'make' } },
    ]
    writeFileSync(log, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"seq":5,"type":"tool/res`)
    const server = await scriptServer([() => [text('I will check whether make finished.'), finish('stop')]])
    try {
      expect(await main(['run', ...base(server.baseUrl, root), '--resume', log, 'Go on.'], testIO().io)).toBe(
        0,
      )
      expect(strip(server.requests[0]!.body.messages)).toEqual([
        { role: 'user', content: 'Build it.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'b1', type: 'function', function: { name: 'bash', arguments: '{"command":"make"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'b1', content: INTERRUPTED_TEXT },
        { role: 'user', content: 'Go on.' },
      ])
      expect(events(log)).toContainEqual(
        expect.objectContaining({
          type: 'agent/message',
          message: {
            role: 'tool',
            callId: 'b1',
            name: 'bash',
            content: [{ type: 'text', text: INTERRUPTED_TEXT }],
            isError: true,
          },
        }),
      )
    } finally {
      await server.close()
    }
  })

  test('--continue with no session in the workspace, and --resume of a file that is not a log: exit 3, one line', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-nocontinue-'))
    const a = testIO()
    expect(await main(['run', ...base('http://127.0.0.1:9/v1', root), '--continue', 'hi'], a.io)).toBe(3)
    expect(a.stderr.text()).toBe(
      `toolgate run: there is no session to continue in ${join(root, '.toolgate', 'sessions')} (start one with toolgate run or toolgate chat)\n`,
    )
    writeFileSync(join(root, 'x.jsonl'), 'not a log\n')
    const b = testIO()
    expect(
      await main(
        ['run', ...base('http://127.0.0.1:9/v1', root), '--resume', join(root, 'x.jsonl'), 'hi'],
        b.io,
      ),
    ).toBe(3)
    expect(b.stderr.text()).toBe(
      `toolgate: ${join(root, 'x.jsonl')} has no session event; it is not a session log.\n`,
    )
  })

  test('ask_user with no one at a terminal: the model is told to decide itself', {
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-ask-'))
    const server = await scriptServer([
      () => [
        call('q1', 'ask_user', { question: 'Tabs or spaces?', choices: ['tabs', 'spaces'] }),
        finish('tool_calls'),
      ],
      () => [text('Spaces, since no one could answer.'), finish('stop')],
    ])
    try {
      expect(await main(['run', ...base(server.baseUrl, root), 'Format it.'], testIO().io)).toBe(0)
      const tool = server.requests[1]!.body.messages.find((m) => m.role === 'tool')
      expect(tool).toEqual({ role: 'tool', tool_call_id: 'q1', content: HEADLESS_ANSWER })
    } finally {
      await server.close()
    }
  })

  test('task: a sub-agent with its own context returns only its conclusion; its calls are logged under the task', {
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-task-'))
    writeFileSync(join(root, 'a.txt'), 'alpha\n')
    const server = await scriptServer([
      () => [
        call('t1', 'task', { description: 'find alpha', prompt: 'Which file says alpha?' }),
        finish('tool_calls'),
      ],
      () => [call('s1', 'grep', { pattern: 'alpha' }), finish('tool_calls')],
      () => [text('a.txt says alpha.'), finish('stop')],
      () => [text('The sub-agent found it in a.txt.'), finish('stop')],
    ])
    try {
      const { io } = testIO()
      const log = join(root, 'task.jsonl')
      expect(await main(['run', ...base(server.baseUrl, root), '--log', log, 'Find alpha.'], io)).toBe(0)
      const sub = server.requests[1]!.body.messages
      expect(sub[0]).toEqual({ role: 'system', content: TASK_SYSTEM })
      expect(strip(sub)).toEqual([{ role: 'user', content: 'Which file says alpha?' }])
      const parent = strip(server.requests[3]!.body.messages)
      expect(parent.at(-1)).toEqual({ role: 'tool', tool_call_id: 't1', content: 'a.txt says alpha.' })
      expect(JSON.stringify(parent)).not.toContain('s1')
      const child = events(log).find((e) => e.type === 'tool/call' && e.callId === 's1')
      expect(child).toMatchObject({ name: 'grep', parentCallId: 't1', agent: 'task:t1' })
    } finally {
      await server.close()
    }
  })

  test('chat on piped input: messages share one conversation; /preset, /clear, /compact, /tools, /log are logged or answered', {
    timeout: 120_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-chat-'))
    mkdirSync(join(root, 'src'))
    const server = await scriptServer([
      () => [text('Hello.'), finish('stop')],
      () => [text('Still here.'), finish('stop')],
      (_n, body) => {
        const last = body.messages.at(-1)
        return [
          text(last?.content === COMPACTION_PROMPT ? 'Summary: greeted twice.' : 'unexpected'),
          finish('stop'),
        ]
      },
      () => [text('After the summary.'), finish('stop')],
      () => [text('Fresh start.'), finish('stop')],
    ])
    try {
      const stdin = new PassThrough()
      stdin.end(
        [
          'hi',
          'still there?',
          '/compact',
          'and now?',
          '/preset read-only',
          '/preset nope',
          '/tools',
          '/clear',
          'new topic',
          '/log',
          '/bogus',
          '/exit',
        ].join('\n'),
      )
      const { io, stdout } = testIO()
      const log = join(root, 'chat.jsonl')
      expect(await main(['chat', ...base(server.baseUrl, root), '--log', log], { ...io, stdin })).toBe(0)
      const out = stdout.text()
      for (const line of [
        '› hi\nHello.\n',
        '› still there?\nStill here.\n',
        'compacted: ~',
        '› and now?\nAfter the summary.\n',
        'preset read-only from the next call on',
        'usage: /preset read-only | workspace-write | danger-full-access (now read-only)',
        'ask_user     Ask the user a question when you cannot go on without their decision or a fact only they know (which of two approaches, a missing requirement, a confirmation the task needs).',
        'conversation cleared; the log keeps it',
        `› /log\n${log}\n`,
        'unknown command /bogus; /help lists them',
      ])
        expect(out).toContain(line)
      // The second message continued the first; the one after /compact starts with the summary;
      // the one after /clear starts over.
      const req = server.requests.map((r) => strip(r.body.messages))
      expect(req[1]).toEqual([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: 'still there?' },
      ])
      expect(String(req[3]![0]!.content)).toMatch(
        /^<conversation-summary>\n[\s\S]*Summary: greeted twice\.\n<\/conversation-summary>$/,
      )
      expect(req[4]).toEqual([{ role: 'user', content: 'new topic' }])
      const types = events(log).map((e) => e.type)
      for (const type of [
        'session/start',
        'agent/compacted',
        'session/preset',
        'session/clear',
        'agent/message',
      ])
        expect(types).toContain(type)
    } finally {
      await server.close()
    }
  })
})
