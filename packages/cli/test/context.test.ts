// The result budget as the CLI runs it: on by default, the full output spilled to
// <root>/.toolgate/spill (git-ignored), and the notice's own read call — sent back verbatim by the
// model — works under every preset, against the real permission engine and the real read tool.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { main } from '../src/index.js'
import { call, finish, scriptServer, text } from './binary-helpers.js'
import { testIO } from './helpers.js'

const NOTICE = /The full output is saved to (\S+)\. Read the omitted lines with read (\{[^}]*\})/

describe.concurrent('result budget in the CLI', () => {
  test.for(['read-only', 'workspace-write', 'danger-full-access'])(
    '%s: a big bash output is cut and spilled; the read call in the notice opens the spill',
    { timeout: 120_000 },
    async (preset) => {
      const root = mkdtempSync(join(tmpdir(), `toolgate-budget-${preset}-`))
      let readArgs: { path: string; offset: number; limit: number } | undefined
      const server = await scriptServer([
        () => [call('call_seq', 'bash', { command: 'seq 1 30000' }), finish('tool_calls')],
        (_n, body) => {
          const tool = body.messages.find((m) => m.role === 'tool')
          const match = NOTICE.exec(String(tool?.content))
          if (!match) return [text(`no notice in: ${String(tool?.content).slice(-300)}`), finish('stop')]
          readArgs = JSON.parse(match[2]!)
          return [call('call_read', 'read', readArgs!), finish('tool_calls')]
        },
        () => [text('Read it.'), finish('stop')],
      ])
      try {
        const { io, stdout } = testIO()
        const argv = ['run', '--provider', 'openai-chat', '--base-url', server.baseUrl, '--model', 'm']
        const code = await main([...argv, '--root', root, '--preset', preset, '--no-code', 'count'], io)
        expect(code, stdout.text()).toBe(0)
        expect(readArgs).toEqual({
          path: '.toolgate/spill/bash-call_seq-1.txt',
          offset: expect.any(Number),
          limit: expect.any(Number),
        })
        const spilled = readFileSync(join(root, readArgs!.path), 'utf8').split('\n')
        expect(readFileSync(join(root, '.toolgate/spill/.gitignore'), 'utf8')).toBe('*\n')
        // The read went through the permission engine and the read tool: its result is the spill's
        // omitted lines, numbered from the offset.
        const readResult = server.requests[2]!.body.messages.find(
          (m) => m.role === 'tool' && m.tool_call_id === 'call_read',
        )
        const content = String(readResult?.content)
        expect(content).not.toContain('Permission denied')
        expect(content).toContain(`${readArgs!.offset}\t${spilled[readArgs!.offset - 1]}`)
      } finally {
        await server.close()
      }
    },
  )
})
