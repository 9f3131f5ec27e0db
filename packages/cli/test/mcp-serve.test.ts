// `toolgate mcp serve` driven by the MCP SDK's own client over stdio: a real spawned binary, real
// files, real bash. Asks are answered through elicitation; a client without elicitation gets the
// denial; protected paths stay denied; the client's cancellation reaches the running call.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { OrderedTransport } from '../../mcp/src/transport/ordered.js'
import { BIN, build } from './binary-helpers.js'

beforeAll(async () => {
  // Same rule as binary.test.ts: the CLI's own files (and the MCP package's) must compile.
  const built = await build()
  expect(built.lines.filter((l) => l.startsWith('packages/cli/') || l.startsWith('packages/mcp/'))).toEqual(
    [],
  )
}, 600_000)

interface Served {
  readonly client: Client
  readonly root: string
  readonly log: string
  readonly elicitations: string[]
  close(): Promise<void>
}

const open: Served[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
})

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-serve-'))
  mkdirSync(join(root, '.git', 'hooks'), { recursive: true })
  writeFileSync(join(root, 'notes.txt'), 'first line\nsecond line\n')
  writeFileSync(join(root, 'victim.txt'), 'keep me?\n')
  return root
}

/** A client that answers elicitations with `answer` (or declares no elicitation when undefined). */
function home(root: string): string {
  const dir = `${root}-home`
  mkdirSync(dir, { recursive: true })
  return dir
}

async function serve(answer?: (message: string) => ElicitResult): Promise<Served> {
  const root = workspace()
  const log = join(root, '..', `${root.split('/').pop()}.jsonl`)
  const elicitations: string[] = []
  const client = new Client(
    { name: 'serve-test', version: '1.0.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  )
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const message = request.params.message
      elicitations.push(message)
      return answer(message)
    })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'serve', '--root', root, '--log', log],
    // A home of its own: a workspace that holds the home directory keeps the home's top level
    // read-only in the sandbox (policy README), which would refuse `rm victim.txt` at the top.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home(root), LANG: 'C.UTF-8' },
    stderr: 'pipe',
  })
  // OrderedTransport: the SDK client handles a notification one microtask late but a response at
  // once, so progress sent just before a result would be dropped as "unknown token".
  await client.connect(new OrderedTransport(transport))
  const served = { client, root, log, elicitations, close: () => client.close() }
  open.push(served)
  return served
}

function events(log: string): { type: string; [k: string]: unknown }[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
}

const text = (r: object) =>
  ((r as { content?: unknown }).content as { type: string; text?: string }[])
    .map((b) => b.text ?? `[${b.type}]`)
    .join('\n')

// Each test spawns the binary; on a loaded machine its start alone can take seconds.
describe('toolgate mcp serve', { timeout: 120_000 }, () => {
  test('lists the built-in tools with their schemas and runs a read-only call without asking', async () => {
    const s = await serve(() => ({ action: 'accept', content: { allow: true } }))
    const { tools } = await s.client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'bash',
      'edit',
      'glob',
      'grep',
      'job_kill',
      'job_list',
      'job_output',
      'ls',
      'read',
      'todo_write',
      'write',
    ])
    const read = tools.find((t) => t.name === 'read')!
    expect(read.inputSchema.type).toBe('object')
    expect(Object.keys(read.inputSchema.properties ?? {})).toEqual(['path', 'offset', 'limit'])

    const result = await s.client.callTool({ name: 'read', arguments: { path: 'notes.txt' } })
    expect(result.isError).toBeUndefined()
    expect(text(result)).toBe('notes.txt: lines 1-2 of 2\n     1\tfirst line\n     2\tsecond line')
    expect(s.elicitations).toEqual([])
    const logged = events(s.log)
    expect(logged.filter((e) => e.type === 'tool/call').map((e) => e.name)).toEqual(['read'])
    expect(logged.find((e) => e.type === 'mcp-serve/client')).toMatchObject({
      name: 'serve-test',
      version: '1.0.0',
      elicitation: true,
    })
  })

  test('output schemas are declared and values come back as structuredContent (checked by the client)', async () => {
    const s = await serve(() => ({ action: 'accept', content: { allow: true } }))
    const { tools } = await s.client.listTools()
    // Every built-in tool's output schema is an object schema, or a union of object kinds.
    expect(tools.filter((t) => t.outputSchema?.type === 'object').map((t) => t.name)).toEqual(
      tools.map((t) => t.name),
    )
    expect(Object.keys(tools.find((t) => t.name === 'read')!.outputSchema!)).toEqual(['type', 'oneOf'])
    // The SDK client validates structuredContent against the listed outputSchema itself.
    const read = await s.client.callTool({ name: 'read', arguments: { path: 'notes.txt' } })
    expect(read.structuredContent).toMatchObject({
      kind: 'text',
      path: 'notes.txt',
      startLine: 1,
      totalLines: 2,
      lines: ['first line', 'second line'],
    })
    const ls = await s.client.callTool({ name: 'ls', arguments: {} })
    expect(ls.structuredContent).toMatchObject({ path: '.' })
    // A failed call has no structured value, only its error text.
    const missing = await s.client.callTool({ name: 'read', arguments: { path: 'nope.txt' } })
    expect(missing.isError).toBe(true)
    expect(missing.structuredContent).toBeUndefined()
  })

  test("a call's session events are its progress notifications when the client asks for progress", async () => {
    const s = await serve(() => ({ action: 'accept', content: { allow: true } }))
    const seen: { progress: number; message?: string }[] = []
    const result = await s.client.callTool(
      { name: 'bash', arguments: { command: 'rm -f victim.txt' } },
      undefined,
      { onprogress: (p) => seen.push({ progress: p.progress, message: p.message }) },
    )
    expect(result.isError).toBeUndefined()
    expect(seen).toEqual([
      { progress: 1, message: 'tool/call' },
      { progress: 2, message: 'permission/decided' },
      { progress: 3, message: 'approval/asked' },
      { progress: 4, message: 'mcp-serve/approval' },
      { progress: 5, message: 'approval/decided' },
    ])
    // Without a progress token nothing is sent (the SDK client would report an unknown token).
    const quiet = await s.client.callTool({ name: 'read', arguments: { path: 'notes.txt' } })
    expect(quiet.isError).toBeUndefined()
  })

  test('an ask becomes an elicitation: yes runs the call, no refuses it', async () => {
    const answers: boolean[] = [true, false]
    const s = await serve(() => ({ action: 'accept', content: { allow: answers.shift()! } }))
    const yes = await s.client.callTool({ name: 'bash', arguments: { command: 'rm -f victim.txt' } })
    expect(yes.isError).toBeUndefined()
    expect(existsSync(join(s.root, 'victim.txt'))).toBe(false)
    expect(s.elicitations).toEqual([
      [
        'toolgate asks before running bash with {"command":"rm -f victim.txt"}.',
        'Why it asks: "rm -f victim.txt" is destructive (rm is destructive). Also: rm changes files.',
        'Allow this call once?',
      ].join('\n'),
    ])

    writeFileSync(join(s.root, 'victim.txt'), 'again\n')
    const no = await s.client.callTool({ name: 'bash', arguments: { command: 'rm -f victim.txt' } })
    expect(no.isError).toBe(true)
    expect(text(no)).toBe(
      'The user rejected this bash call; it did not run. Do not retry it unchanged: ask the user how to proceed or take a different approach.',
    )
    expect(readFileSync(join(s.root, 'victim.txt'), 'utf8')).toBe('again\n')
    expect(
      events(s.log)
        .filter((e) => e.type === 'mcp-serve/approval')
        .map((e) => e.outcome),
    ).toEqual(['allowed-once', 'rejected'])
  })

  test('declining or dismissing the form never runs the call', async () => {
    const actions: ElicitResult[] = [{ action: 'decline' }, { action: 'cancel' }]
    const s = await serve(() => actions.shift()!)
    const declined = await s.client.callTool({ name: 'bash', arguments: { command: 'rm -f victim.txt' } })
    const dismissed = await s.client.callTool({ name: 'bash', arguments: { command: 'rm -f victim.txt' } })
    expect([declined.isError, dismissed.isError]).toEqual([true, true])
    expect(text(dismissed)).toBe(
      'The approval prompt for this bash call was dismissed without a decision; it did not run. Ask the user whether to proceed before trying again.',
    )
    expect(existsSync(join(s.root, 'victim.txt'))).toBe(true)
  })

  test('a client without elicitation gets the denial (fail closed)', async () => {
    const s = await serve()
    const result = await s.client.callTool({ name: 'bash', arguments: { command: 'rm -f victim.txt' } })
    expect(result.isError).toBe(true)
    expect(text(result)).toBe(
      'This bash call needs approval, but the approval prompt failed (the MCP client cannot show approval prompts: it did not declare the elicitation capability); it did not run. Use a different approach that does not need approval, or ask the user to allow it.',
    )
    expect(existsSync(join(s.root, 'victim.txt'))).toBe(true)
  })

  test('a protected path is denied without asking, whatever the client would answer', async () => {
    const s = await serve(() => ({ action: 'accept', content: { allow: true } }))
    const result = await s.client.callTool({
      name: 'write',
      arguments: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\necho owned\n' },
    })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(
      /^Permission denied: this write call touches \.git\/hooks\/pre-commit, a protected path/,
    )
    expect(existsSync(join(s.root, '.git/hooks/pre-commit'))).toBe(false)
    expect(s.elicitations).toEqual([])
  })

  test("the client's cancellation reaches the running call and stops its process", async () => {
    const s = await serve(() => ({ action: 'accept', content: { allow: true } }))
    // A gate on the real effect: the command has started once started.txt exists.
    const started = new Promise<void>((resolveStarted) => {
      const watcher = watch(s.root, () => {
        if (existsSync(join(s.root, 'started.txt'))) {
          watcher.close()
          resolveStarted()
        }
      })
    })
    const controller = new AbortController()
    const began = performance.now()
    const call = s.client.callTool(
      {
        name: 'bash',
        arguments: { command: 'echo go > started.txt; sleep 31.4159; echo done > finished.txt' },
      },
      undefined,
      { signal: controller.signal, timeout: 60_000 },
    )
    const outcome = call.then(
      () => 'resolved',
      (error: Error) => error.message,
    )
    await started
    controller.abort(new Error('the user pressed stop'))
    expect(await outcome).toContain('the user pressed stop')
    // bash is exclusive: this call is admitted only after the cancelled one has its result.
    const after = await s.client.callTool({ name: 'bash', arguments: { command: 'echo after' } })
    expect(text(after)).toContain('after')
    expect(performance.now() - began).toBeLessThan(25_000)
    expect(existsSync(join(s.root, 'finished.txt'))).toBe(false)
    const results = events(s.log).filter((e) => e.type === 'tool/result')
    expect(results.map((e) => (e.error as { code: string } | undefined)?.code ?? 'ok')).toEqual([
      'ABORTED',
      'ok',
    ])
    expect(sleepers('31.4159')).toEqual([])
  })
})

/** Processes whose command line contains `marker` (the sleep must be gone with its call). */
function sleepers(marker: string): string[] {
  const found: string[] = []
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
      if (cmd.startsWith('sleep') && cmd.includes(marker)) found.push(`${pid}: ${cmd}`)
    } catch {
      // exited meanwhile
    }
  }
  return found
}
