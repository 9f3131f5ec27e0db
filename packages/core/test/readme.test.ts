import { readdirSync, readFileSync } from 'node:fs'
import { sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRuntime, defineTool, failures, type ToolFailure, textOutput } from '../src/index.js'
import { type MessageRow, messageTable, readmeSection } from './support/message-table.js'

// The README's table of model-visible messages is generated from the code that produces them,
// with each message's size in tokens: it cannot drift from what the model reads.

const row = (failure: ToolFailure, when?: string): MessageRow => ({
  kind: failure.kind,
  code: failure.code,
  ...(when === undefined ? {} : { when }),
  message: failure.message,
})

async function validationRows(): Promise<MessageRow[]> {
  const runtime = createRuntime()
  runtime.register(
    defineTool({
      name: 'read',
      description: 'Read a file.',
      parameters: z.object({ path: z.string(), offset: z.number().optional(), limit: z.number().optional() }),
      output: textOutput(),
      execute: () => 'ok',
    }),
  )
  const cases: [string, unknown][] = [
    ['arguments `""` (or `{}`, `null`); example built from the schema', ''],
    ['JSON that does not parse', '{"path": "a",}'],
    ['JSON cut short', '{"path": "a"'],
    ['a wrong type', { path: 1 }],
    ['an unknown parameter close to a real one', { file_path: 'a.txt' }],
    ['an unknown parameter the validator would drop', { path: 'a.txt', foo: 1 }],
  ]
  const rows: MessageRow[] = []
  for (const [when, args] of cases) {
    const result = await runtime.execute({ callId: 'c', name: 'read', arguments: args as string })
    rows.push(row(result.error!, when))
  }
  return rows
}

async function rows(): Promise<MessageRow[]> {
  return [
    row(failures.unknownTool('ecko', ['echo']), 'a close name exists'),
    row(failures.unknownTool('zzz', [])),
    row(failures.unknownTool('x'.repeat(100), []), 'an invented name is cut at 64 characters'),
    ...(await validationRows()),
    row(failures.emptyArguments('ping', [], '{}'), 'arguments `""`, no required parameters'),
    row(
      failures.notLossless(
        'echo',
        '$.a',
        'is undefined, which JSON cannot represent; omit the field or send null',
      ),
      'arguments given as an object (not text) that is not plain JSON',
    ),
    row(failures.denied('<the listener’s reason, which says what to do next>'), 'a listener denied'),
    row(failures.deniedNoReason('bash'), 'a listener denied without a reason'),
    row(failures.failedClosed('bash'), 'a listener gave no valid decision'),
    row(failures.guardDenied('bash', 'deploys are frozen this week'), 'a guard returned a string'),
    row(failures.guardDenied('bash'), 'a guard returned a non-string'),
    row(failures.approvalRejected('bash')),
    row(failures.approvalCancelled('bash')),
    row(failures.approvalUnavailable('bash', 'no one is available to answer the approval prompt')),
    row(failures.approvalUnavailable('bash', "the session is non-interactive (approval policy 'never')")),
    row(failures.approvalUnavailable('bash', 'the approval prompt failed (<error>)')),
    row(failures.approvalUnsupported('bash')),
    row(failures.blocked('read'), 'the content is the listener’s feedback; this text when it gave none'),
    row(failures.cancelledBeforeStart('read')),
    row(failures.cancelledBeforeStart('read', 'a policy cancelled it')),
    row(failures.siblingFailed('bash', 'call_2')),
    row(failures.aborted('bash')),
    row(failures.abortedUnresponsive('bash', 2000)),
    row(failures.abortedAfterRun('read', 'a tools/post-execute listener', 2000)),
    row(
      failures.stalled('read', 'a tools/pre-execute listener', 60000, false),
      'a stage stalled before the body',
    ),
    row(
      failures.stalled('read', 'a tools/post-execute listener', 60000, true),
      'a stage stalled after the body',
    ),
    row(failures.timeout('bash', 120000)),
    row(
      failures.exception(
        'read',
        'tool',
        "EACCES: permission denied, open '/home/me/.cache/x.json'\n    at open (/app/x.js:1:1)",
      ),
      'the body threw: first line only, host paths cut to their last segment, ≤ 200 characters',
    ),
    row(failures.exception('read', 'a tools/pre-execute listener', '<error>')),
    row(
      failures.exception(
        'read',
        'a tools/post-execute listener',
        'it replaced both content and value; replace one of them',
      ),
    ),
    row(failures.exception('read', 'finalizeContent', '<error>')),
    row(failures.exception('read', 'a guard', 'it returned a promise; guards are synchronous')),
    row(failures.invalidOutput('read', 'its value does not match output.schema: <issues>')),
    row(failures.invalidOutput('read', 'render threw (<error>)')),
  ]
}

describe('core README', () => {
  it('lists every message the pipeline produces, with its size in tokens', async () => {
    const { actual, expected } = readmeSection(
      new URL('../README.md', import.meta.url),
      'messages',
      messageTable(await rows()),
    )
    expect(actual).toBe(expected)
  })
})

describe('core README source map', () => {
  it('names every source file, and only files that exist', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const src = new URL('../src/', import.meta.url)
    const files = (readdirSync(src, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.split(sep).join('/'))
      .sort()
    const section = readme.slice(readme.indexOf('\n## Source map'), readme.indexOf('\n## Known limits'))
    const named = [...section.matchAll(/`([\w./*-]+\.ts|[\w-]+\/\*)`/g)].map((m) => m[1]!)
    const covers = (file: string) =>
      named.some((n) => n === file || (n.endsWith('/*') && file.startsWith(n.slice(0, -1))))
    expect(files.filter((f) => !covers(f))).toEqual([])
    expect(named.filter((n) => !n.endsWith('/*') && !files.includes(n))).toEqual([])
  })
})
