import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApprovalService, createRuntime } from '@toolgate/core'
import { permissions } from '@toolgate/policy'
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerEntry } from '../src/config/types.js'
import { McpManager } from '../src/manager.js'
import { EVERYTHING, fault, managed, stdio, text } from './helpers.js'

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

describe('server lifecycle', () => {
  it('reports a server that fails to start with its stderr tail, and starts the others', async () => {
    const s = managed([fault('broken', ['--crash-on-start']), fault('fine')])
    cleanup.push(() => s.manager.dispose())
    await s.manager.start()
    s.manager.sync()
    const [broken, fine] = s.manager.report()
    expect(broken?.status.state).toBe('failed')
    expect(broken?.status).toMatchObject({
      stderr: 'fault-server: configuration file /etc/fault.conf is missing',
    })
    expect(fine?.status).toEqual({ state: 'connected' })
    expect(s.runtime.schemas().every((t) => t.name.startsWith('mcp__fine__'))).toBe(true)
  })

  it('a server still connecting is pending, and its tools arrive at the next sync', async () => {
    const s = managed([fault('slow', ['--slow-start', '400'])])
    cleanup.push(() => s.manager.dispose())
    const started = s.manager.start()
    expect(s.manager.pendingServers()).toEqual(['slow'])
    expect(s.manager.report()[0]?.status).toEqual({ state: 'pending' })
    const call = await s.runtime.execute({ callId: 'c0', name: 'mcp__slow__echo', arguments: { text: 'x' } })
    expect(call.error?.code).toBe('UNKNOWN_TOOL')
    await started
    // Connected, but its tools reach the model only at the next sync: still pending for tool_search.
    expect(s.manager.report()[0]?.status).toEqual({ state: 'connected' })
    expect(s.manager.pendingServers()).toEqual(['slow'])
    expect(s.runtime.schemas()).toEqual([])
    s.manager.sync()
    expect(s.runtime.schemas().length).toBe(15)
    expect(s.manager.pendingServers()).toEqual([])
  })

  it('names are deterministic whatever order servers connect in; collisions are renamed and reported', async () => {
    const orders: string[][] = []
    for (const slow of ['a', 'b']) {
      const s = managed([
        fault(
          'my server',
          slow === 'a' ? ['--slow-start', '300', '--variant', 'collide'] : ['--variant', 'collide'],
        ),
        fault(
          'my_server',
          slow === 'b' ? ['--slow-start', '300', '--variant', 'collide'] : ['--variant', 'collide'],
        ),
      ])
      cleanup.push(() => s.manager.dispose())
      await s.manager.start()
      s.manager.sync()
      orders.push(s.runtime.schemas().map((t) => `${t.name}=${t.description}`))
      if (slow === 'a') {
        expect(s.manager.report().flatMap((r) => r.collisions)).toEqual([
          {
            kind: 'tool',
            server: 'my server',
            original: 'my_tool_',
            assigned: 'mcp__my_server__my_tool__2',
            keptBy: 'my tool!',
          },
          {
            kind: 'server',
            server: 'my_server',
            original: 'my_server',
            assigned: 'my_server_2',
            keptBy: 'my server',
          },
          {
            kind: 'tool',
            server: 'my_server',
            original: 'my_tool_',
            assigned: 'mcp__my_server_2__my_tool__2',
            keptBy: 'my tool!',
          },
        ])
      }
    }
    expect(orders[0]).toEqual(orders[1])
    expect(orders[0]).toEqual([
      'mcp__my_server_2__my-tool=third',
      'mcp__my_server_2__my_tool_=first',
      'mcp__my_server_2__my_tool__2=second',
      'mcp__my_server__my-tool=third',
      'mcp__my_server__my_tool_=first',
      'mcp__my_server__my_tool__2=second',
    ])
  })
})

describe('policy: MCP tools go through the permission engine like any tool', () => {
  async function withPolicy(
    rules: { action: 'allow' | 'ask' | 'deny'; rule: string }[],
    servers: ServerEntry[] = [fault('fault')],
  ) {
    const approval = createApprovalService()
    const asked: string[] = []
    approval.answer(async (request) => {
      asked.push(request.toolName)
      return 'rejected' as const
    })
    const runtime = createRuntime({ approval })
    const home = mkdtempSync(join(tmpdir(), 'toolgate-home-'))
    runtime.use(permissions({ root: home, rules, userSettingsPath: null, projectSettingsPath: null, home }))
    const manager = new McpManager({ root: home, servers, spillDir: home }).attach(runtime)
    cleanup.push(() => manager.dispose())
    await manager.start()
    manager.sync()
    return { runtime, asked }
  }

  it('asks by default (unknown tools ask)', async () => {
    const { runtime, asked } = await withPolicy([])
    const r = await runtime.execute({ callId: 'c1', name: 'mcp__fault__echo', arguments: { text: 'x' } })
    expect(asked).toEqual(['mcp__fault__echo'])
    expect(r.error?.code).toBe('APPROVAL_REJECTED')
  })

  it('a rule can allow a whole server or deny one tool', async () => {
    const { runtime, asked } = await withPolicy([
      { action: 'allow', rule: 'mcp__fault__*' },
      { action: 'deny', rule: 'mcp__fault__fail' },
    ])
    const ok = await runtime.execute({ callId: 'c1', name: 'mcp__fault__echo', arguments: { text: 'x' } })
    expect(text(ok)).toBe('x')
    const denied = await runtime.execute({ callId: 'c2', name: 'mcp__fault__fail', arguments: {} })
    expect(denied.error?.code).toBe('PERMISSION_DENIED')
    expect(asked).toEqual([])
  })

  it('annotations make a call parallel only when the server is trusted with them; never an allow', async () => {
    for (const trustAnnotations of [false, true]) {
      const { runtime, asked } = await withPolicy(
        [],
        [stdio('everything', [EVERYTHING, 'stdio'], trustAnnotations ? { trustAnnotations } : {})],
      )
      // get-env declares readOnlyHint: true, destructiveHint: false; echo declares no read-only hint.
      const mode = (name: string) => runtime.mode({ callId: 'm', name, arguments: {} }).kind
      expect(mode('mcp__everything__get-env')).toBe(trustAnnotations ? 'parallel' : 'exclusive')
      expect(mode('mcp__everything__echo')).toBe('exclusive')
      const r = await runtime.execute({ callId: 'c', name: 'mcp__everything__get-env', arguments: {} })
      expect(r.error?.code).toBe('APPROVAL_REJECTED')
      expect(asked).toEqual(['mcp__everything__get-env'])
    }
  })
})
