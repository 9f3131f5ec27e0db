import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { describeServer, serverLine } from '../src/commands/mcp-session.js'
import { main } from '../src/index.js'
import { testIO } from './helpers.js'

const FAULT = fileURLToPath(new URL('../../mcp/test/servers/fault-server.mjs', import.meta.url))
let saved: string | undefined

beforeEach(() => {
  saved = process.env.TOOLGATE_HOME
  process.env.TOOLGATE_HOME = mkdtempSync(join(tmpdir(), 'toolgate-home-'))
})
afterEach(() => {
  if (saved === undefined) delete process.env.TOOLGATE_HOME
  else process.env.TOOLGATE_HOME = saved
})

describe('toolgate mcp', () => {
  it('lists servers with state, tool count and schema bytes; a project server runs only once approved', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-mcp-cli-'))
    writeFileSync(
      join(root, '.mcp.json'),
      JSON.stringify({
        mcpServers: { fault: { command: process.execPath, args: [FAULT] }, broken: { command: 5 } },
      }),
    )
    const list = async () => {
      const t = testIO({}, root)
      const code = await main(['mcp', 'list'], t.io)
      return { code, out: t.stdout.text() }
    }
    const first = await list()
    expect(first.code).toBe(0)
    expect(first.out).toBe(
      [
        'broken  unknown  invalid configuration: mcpServers.broken.command: must be a string  tools 0  schema 0 bytes',
        'fault  stdio  not approved (project server): run `toolgate mcp approve fault` to allow it  tools 0  schema 0 bytes',
        '',
      ].join('\n'),
    )
    const approve = testIO({}, root)
    expect(await main(['mcp', 'approve', 'fault'], approve.io)).toBe(0)
    expect(approve.stdout.text()).toMatch(
      /^approved fault for .* \(until its configuration changes\); recorded in .*mcp-approvals\.json\n$/,
    )
    const second = await list()
    const lines = second.out.split('\n')
    expect(lines[1]).toMatch(/^fault {2}stdio {2}connected {2}tools 18 {2}schema [\d,]+ bytes$/)
    expect(lines.slice(2, 4)).toEqual([
      '  left out: tool #19: no name',
      '  left out: "broken" left out: its inputSchema is unusable: the schema is a string, not a JSON Schema object',
    ])
  })
})

describe('toolgate mcp prints what a configuration or a server says terminal-safe', () => {
  // A server name is a key of .mcp.json, a file of the repository (anyone who can push to it
  // writes it): its OSC 52 sequence reached the terminal raw and wrote the clipboard (red team).
  it('list and approve: names, problems and states have their control characters shown, not sent', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-mcp-cli-'))
    const evil = 'ev\x1b]52;c;cHduZWQ=\x07il\u202e'
    writeFileSync(join(root, '.mcp.json'), JSON.stringify({ mcpServers: { [evil]: { command: 5 } } }))
    const t = testIO({}, root)
    expect(await main(['mcp', 'list'], t.io)).toBe(0)
    expect(t.stdout.text()).toBe(
      'ev␛]52;c;cHduZWQ=␇il\\u202e  unknown  invalid configuration: mcpServers.ev␛]52;c;cHduZWQ=␇il\\u202e.command: must be a string  tools 0  schema 0 bytes\n',
    )
    const approve = testIO({}, root)
    expect(await main(['mcp', 'approve', evil], approve.io)).toBe(3)
    expect(approve.stderr.text()).toBe(
      [
        'toolgate mcp approve: "ev␛]52;c;cHduZWQ=␇il\\u202e" has configuration problems; fix them first:',
        `  ${root}/.mcp.json: mcpServers.ev␛]52;c;cHduZWQ=␇il\\u202e.command: must be a string`,
        '',
      ].join('\n'),
    )
  })

  it('the banner line of a server (run, chat) is terminal-safe too', () => {
    const report = {
      name: 'x\x1b]0;title\x07',
      source: 'project-mcp-json',
      file: '.mcp.json',
      transport: 'stdio',
      status: { state: 'untrusted' },
      tools: 0,
      schemaBytes: 0,
      problems: [],
      collisions: [],
    } as const
    expect(serverLine(report, describeServer(report))).toBe(
      'mcp       x␛]0;title␇: not approved (project server): run `toolgate mcp approve x␛]0;title␇` to allow it',
    )
  })
})
