import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
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
    expect(lines[1]).toMatch(/^fault {2}stdio {2}connected {2}tools 15 {2}schema [\d,]+ bytes$/)
    expect(lines.slice(2, 4)).toEqual([
      '  left out: tool #16: no name',
      '  left out: "broken" left out: its inputSchema is unusable: the schema is a string, not a JSON Schema object',
    ])
  })
})
