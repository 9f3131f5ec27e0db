import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRuntime, type JsonValue, type Runtime } from '@toolgate/core'
import type { ServerConfig, ServerEntry } from '../src/config/types.js'
import { McpManager, type McpManagerOptions } from '../src/manager.js'

export const FAULT_SERVER = fileURLToPath(new URL('./servers/fault-server.mjs', import.meta.url))
const require = (p: string) => fileURLToPath(new URL(`../../../node_modules/${p}`, import.meta.url))
export const EVERYTHING = require('@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM = require('@modelcontextprotocol/server-filesystem/dist/index.js')

export function entry(name: string, config: ServerConfig): ServerEntry {
  return { name, source: 'code', file: '(code)', raw: config, config, problems: [] }
}

export function stdio(name: string, args: string[], extra: Partial<ServerConfig> = {}): ServerEntry {
  return entry(name, { type: 'stdio', command: process.execPath, args, env: {}, ...extra } as ServerConfig)
}

export function fault(name: string, flags: string[] = [], extra: Partial<ServerConfig> = {}): ServerEntry {
  return stdio(name, [FAULT_SERVER, ...flags], extra)
}

export interface Logged {
  readonly type: string
  readonly payload: Record<string, JsonValue>
}

/** A manager with a log that tests can wait on (promise gates, no sleeps). */
export function managed(servers: ServerEntry[], options: Partial<McpManagerOptions> = {}) {
  const logged: Logged[] = []
  const waiters: { test: (l: Logged) => boolean; resolve: (l: Logged) => void }[] = []
  const runtime: Runtime = createRuntime()
  const spillDir = mkdtempSync(join(tmpdir(), 'toolgate-mcp-test-'))
  const manager = new McpManager({
    root: process.cwd(),
    servers,
    spillDir,
    log: (type, payload) => {
      const l = { type, payload }
      logged.push(l)
      for (const w of [...waiters]) {
        if (w.test(l)) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(l)
        }
      }
    },
    ...options,
  }).attach(runtime)
  const waitFor = (test: (l: Logged) => boolean): Promise<Logged> => {
    const found = logged.find(test)
    if (found) return Promise.resolve(found)
    return new Promise((resolve) => waiters.push({ test, resolve }))
  }
  return { manager, runtime, logged, waitFor, spillDir }
}

export function text(result: { content: readonly { type: string; text?: string }[] }): string {
  return result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')
}
