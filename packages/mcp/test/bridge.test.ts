import { existsSync, readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { fault, managed, text } from './helpers.js'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

async function faultSession(flags: string[] = [], extra = {}) {
  const s = managed([fault('fault', flags, extra)])
  cleanup.push(() => s.manager.dispose())
  await s.manager.start()
  s.manager.sync()
  return s
}

describe('the MCP bridge against the fault-injection server (real process, official SDK)', () => {
  it('registers every usable tool under mcp__<server>__<tool>, sorted, and reports the unusable ones', async () => {
    const { runtime, manager } = await faultSession()
    const names = runtime.schemas().map((s) => s.name)
    expect(names).toEqual([
      'mcp__fault__add_tool',
      'mcp__fault__crash',
      'mcp__fault__echo',
      'mcp__fault__empty',
      'mcp__fault__fail',
      'mcp__fault__hang',
      'mcp__fault__huge',
      'mcp__fault__images',
      'mcp__fault__legacy',
      'mcp__fault__mixed',
      'mcp__fault__no_type',
      'mcp__fault__progress',
      'mcp__fault__root_one_of',
      'mcp__fault__root_ref',
      'mcp__fault__root_union',
      'mcp__fault__spawn_child',
      'mcp__fault__structured',
      'mcp__fault__wordy',
    ])
    const [report] = manager.report()
    expect(report?.status).toEqual({ state: 'connected' })
    expect(report?.tools).toBe(18)
    expect(report?.problems).toEqual([
      'tool #19: no name',
      '"broken" left out: its inputSchema is unusable: the schema is a string, not a JSON Schema object',
    ])
    const schema = (n: string) => runtime.schemas().find((s) => s.name === `mcp__fault__${n}`)!
    expect(schema('empty').parameters).toEqual({ type: 'object', properties: {} })
    expect(schema('no_type').parameters).toEqual({ type: 'object', properties: { q: { type: 'string' } } })
    expect(schema('legacy').parameters).toEqual({
      type: 'object',
      properties: {
        count: { type: 'integer', exclusiveMinimum: 0 },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
        name: { type: 'string' },
        tag: { $ref: '#/$defs/tag' },
        note: { type: ['string', 'null'] },
      },
      $defs: { tag: { type: 'string', enum: ['a', 'b'] } },
      required: ['name'],
    })
    const wordy = schema('wordy').description
    expect(wordy.length).toBeLessThanOrEqual(2048)
    expect(wordy.endsWith('[…description cut: 3012 more characters]')).toBe(true)
  })

  it('validates arguments of a legacy schema with its converted constraints', async () => {
    const { runtime } = await faultSession()
    const bad = await runtime.execute({ callId: 'c1', name: 'mcp__fault__legacy', arguments: { count: 0 } })
    expect(bad.error?.code).toBe('INVALID_ARGS')
    expect(bad.error?.message).toContain('arguments.name: is required but missing')
    expect(bad.error?.message).toContain('arguments.count: must be > 0')
  })

  it('calls a tool and maps the result', async () => {
    const { runtime } = await faultSession()
    const r = await runtime.execute({ callId: 'c1', name: 'mcp__fault__echo', arguments: { text: 'hi' } })
    expect(r.isError).toBe(false)
    expect(r.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(r.value).toEqual({ content: [{ type: 'text', text: 'hi' }] })
  })

  it('maps every content block kind', async () => {
    const { runtime } = await faultSession()
    const r = await runtime.execute({ callId: 'c1', name: 'mcp__fault__mixed', arguments: {} })
    expect(r.content).toEqual([
      { type: 'text', text: 'plain text' },
      {
        type: 'image',
        mediaType: 'image/png',
        data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
      },
      { type: 'text', text: '[audio audio/wav, 6 bytes not shown: audio is not passed to the model]' },
      { type: 'text', text: 'Resource link: report.csv <file:///data/report.csv> (text/csv) - The report' },
      { type: 'text', text: 'Resource <file:///data/notes.txt> (text/plain):\nembedded notes' },
      {
        type: 'text',
        text: '[resource <file:///data/blob.bin> (application/octet-stream): 3 bytes of binary data not shown]',
      },
    ])
  })

  it('turns isError into TOOL_ERROR with the server text', async () => {
    const { runtime } = await faultSession()
    const r = await runtime.execute({ callId: 'c1', name: 'mcp__fault__fail', arguments: {} })
    expect(r.error).toMatchObject({
      kind: 'tool_error',
      code: 'TOOL_ERROR',
      message: 'The MCP tool "fail" of the server "fault" reported an error: quota exceeded for project demo',
    })
  })

  it('ends a hung call with TOOL_TIMEOUT and sends notifications/cancelled to the server', async () => {
    const { runtime, waitFor } = await faultSession([], { timeoutMs: 300 })
    const r = await runtime.execute({ callId: 'c1', name: 'mcp__fault__hang', arguments: {} })
    expect(r.error?.kind).toBe('timeout')
    expect(r.error?.code).toBe('TOOL_TIMEOUT')
    expect(r.error?.message).toBe(
      'This mcp__fault__hang call timed out after 300 ms and was stopped; it may have partially completed. Retry with a smaller task, or a longer timeout if the tool accepts one.',
    )
    const line = await waitFor(
      (l) => l.type === 'mcp/stderr' && String(l.payload.line).startsWith('cancelled request'),
    )
    expect(line.payload.server).toBe('fault')
  })

  it("turns the pipeline's abort into notifications/cancelled", async () => {
    const { runtime, waitFor } = await faultSession()
    const controller = new AbortController()
    const pending = runtime.execute({
      callId: 'c1',
      name: 'mcp__fault__hang',
      arguments: {},
      signal: controller.signal,
    })
    // Abort once the server has the request (its stderr says so): the SDK then sends the cancel.
    await waitFor((l) => l.type === 'mcp/stderr' && String(l.payload.line).startsWith('hanging request'))
    controller.abort(new Error('user interrupt'))
    const r = await pending
    expect(r.error?.kind).toBe('aborted')
    await waitFor((l) => l.type === 'mcp/stderr' && String(l.payload.line).startsWith('cancelled request'))
  })

  it('reports progress notifications as session events of the call', async () => {
    const { runtime } = await faultSession()
    const r = await runtime.execute({ callId: 'p1', name: 'mcp__fault__progress', arguments: {} })
    expect(text(r)).toBe('progress done')
    const progress = runtime.session
      .events()
      .filter((e) => e.type === 'mcp/progress')
      .map(({ seq: _s, ...e }) => e)
    expect(progress).toEqual(
      [1, 2, 3].map((i) => ({
        type: 'mcp/progress',
        callId: 'p1',
        server: 'fault',
        tool: 'progress',
        progress: i,
        total: 3,
        message: `step ${i}`,
      })),
    )
  })

  it('makes validated structuredContent the value, and rejects content that fails outputSchema', async () => {
    const { runtime } = await faultSession()
    const ok = await runtime.execute({ callId: 'c1', name: 'mcp__fault__structured', arguments: {} })
    expect(ok.value).toEqual({ sum: 3 })
    expect(ok.content).toEqual([{ type: 'text', text: '{"sum":3}' }])
    const bad = await runtime.execute({
      callId: 'c2',
      name: 'mcp__fault__structured',
      arguments: { good: false },
    })
    expect(bad.error?.code).toBe('INVALID_TOOL_OUTPUT')
    expect(bad.error?.message).toBe(
      'The mcp__fault__structured tool produced an invalid result (its value does not match output.schema: value.sum: expected number). This is a bug in the tool, not in your arguments; you may retry once, then report the problem.',
    )
  })

  it('limits output by tokens, spills the full result, and post-execute sees it untruncated', async () => {
    const { runtime } = await faultSession()
    const seen: number[] = []
    runtime.on('tools/post-execute', (_exec, result, next) => {
      seen.push(text(result).length)
      return next()
    })
    const r = await runtime.execute({ callId: 'h1', name: 'mcp__fault__huge', arguments: { chars: 200_000 } })
    expect(seen).toEqual([200_000])
    const shown = text(r)
    const notice = shown.slice(shown.lastIndexOf('\n[Output truncated'))
    const path = /saved to (\S+);/.exec(notice)?.[1]
    expect(notice).toBe(
      `\n[Output truncated: this result is about 50,000 tokens, over the 25,000-token limit for MCP tool output. Left out: 100,800 characters of text. The full result is saved to ${path}; read it with the read tool (offset/limit) if you need the rest.]`,
    )
    expect(readFileSync(path!, 'utf8')).toBe('a'.repeat(200_000))
    // CJK: 30,000 characters are ~30,000 tokens, over the budget although far fewer characters.
    const cjk = await runtime.execute({
      callId: 'h2',
      name: 'mcp__fault__huge',
      arguments: { chars: 30_000, cjk: true },
    })
    expect(text(cjk)).toContain('Left out: 5,200 characters of text.')
  })

  it('counts images at a fixed cost and says how many were left out', async () => {
    const { runtime } = await faultSession()
    const r = await runtime.execute({ callId: 'i1', name: 'mcp__fault__images', arguments: { count: 20 } })
    expect(r.content.filter((b) => b.type === 'image')).toHaveLength(15)
    const notice = text(r).split('\n').at(-1)!
    expect(notice).toMatch(
      /^\[Output truncated: this result is about 32,004 tokens, .* Left out: 5 images\. The full result is saved to /,
    )
    const path = /saved to (\S+);/.exec(notice)![1]!
    expect(readFileSync(path, 'utf8').split('\n')[1]).toMatch(
      /^\[image 1: image\/png, saved to .*-image-1-\d+\.png\]$/,
    )
  })

  it('re-registers after tools/list_changed only at sync (between turns)', async () => {
    const { runtime, manager, waitFor } = await faultSession()
    await runtime.execute({ callId: 'a1', name: 'mcp__fault__add_tool', arguments: {} })
    await waitFor((l) => l.type === 'mcp/tools-changed')
    expect(runtime.schemas().some((s) => s.name === 'mcp__fault__added')).toBe(false)
    expect(manager.sync().changed).toEqual(['fault'])
    expect(runtime.schemas().some((s) => s.name === 'mcp__fault__added')).toBe(true)
    const r = await runtime.execute({ callId: 'a2', name: 'mcp__fault__added', arguments: {} })
    expect(text(r)).toBe('the added tool ran')
  })

  it('a tool the server stopped offering is not called before the next sync, and is gone after it', async () => {
    const { runtime, manager, waitFor, logged } = await faultSession(['--stderr-noise'])
    await runtime.execute({ callId: 'r1', name: 'mcp__fault__add_tool', arguments: { remove: 'echo' } })
    await waitFor((l) => l.type === 'mcp/tools-changed')
    // Still registered (registrations change only between turns), but the server is not asked.
    const before = await runtime.execute({ callId: 'r2', name: 'mcp__fault__echo', arguments: { text: 'x' } })
    expect(before.error).toMatchObject({
      code: 'TOOL_ERROR',
      message:
        'The MCP server "fault" no longer offers mcp__fault__echo (its tool list changed). Use the tools it lists now.',
    })
    // The server logs each call it gets on stderr, in order: a later call's line proves the order.
    await runtime.execute({ callId: 'r2b', name: 'mcp__fault__fail', arguments: {} })
    await waitFor((l) => l.type === 'mcp/stderr' && l.payload.line === 'call fail')
    const calls = logged.filter((l) => l.type === 'mcp/stderr' && String(l.payload.line).startsWith('call '))
    expect(calls.map((l) => l.payload.line)).toEqual(['call add_tool', 'call fail'])
    manager.sync()
    const after = await runtime.execute({ callId: 'r3', name: 'mcp__fault__echo', arguments: { text: 'x' } })
    expect(after.error?.code).toBe('UNKNOWN_TOOL')
  })

  it('reports a server that dies mid-call with its stderr tail; the session goes on', async () => {
    const { runtime, manager } = await faultSession(['--stderr-noise'])
    const r = await runtime.execute({ callId: 'c1', name: 'mcp__fault__crash', arguments: {} })
    expect(r.error?.code).toBe('TOOL_ERROR')
    expect(r.error?.message).toMatch(
      /^The MCP server "fault" is not running \(the server stopped: it exited with code 7; its last stderr output: fault-server: starting up \(noise line 1\)\nnoise line 2\nfault-server: ready\ncall crash\nfault-server: about to crash mid-call\), so mcp__fault__crash cannot be called now\./,
    )
    expect(manager.report()[0]?.status.state).toBe('failed')
    expect(manager.sync().changed).toEqual(['fault'])
    expect(runtime.schemas()).toEqual([])
    const after = await runtime.execute({ callId: 'c2', name: 'mcp__fault__echo', arguments: { text: 'x' } })
    expect(after.error?.code).toBe('UNKNOWN_TOOL')
  })

  it('kills the server with its children on dispose', async () => {
    const { runtime, manager } = await faultSession()
    const r = await runtime.execute({ callId: 'c1', name: 'mcp__fault__spawn_child', arguments: {} })
    const child = Number(text(r))
    const server = manager.connection('fault')!.pid!
    expect(alive(child)).toBe(true)
    await manager.dispose()
    expect(alive(server)).toBe(false)
    expect(alive(child)).toBe(false)
  })
})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    // A zombie (exited, not yet reaped by its parent) is not running either.
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : ''
    return !/\) Z /.test(stat)
  } catch {
    return false
  }
}
