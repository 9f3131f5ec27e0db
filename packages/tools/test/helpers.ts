import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRuntime, type JsonValue, type Runtime, type ToolResult } from '@toolgate/core'
import { type BuiltinToolsOptions, builtinTools } from '../src/index.js'

export function tempDir(prefix = 'toolgate-tools-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

export interface Harness {
  root: string
  runtime: Runtime
  call(name: string, args: JsonValue, extra?: { signal?: AbortSignal }): Promise<ToolResult>
}

let seq = 0

/** A real runtime with the built-in tools over a fresh temp workspace (no sandbox unless asked). */
export function harness(options: Partial<BuiltinToolsOptions> = {}): Harness {
  const root = options.root ?? tempDir()
  const runtime = createRuntime()
  runtime.use(builtinTools({ sandbox: false, tempDir: tempDir('toolgate-session-'), ...options, root }))
  return {
    root,
    runtime,
    call: (name, args, extra = {}) =>
      runtime.execute({ callId: `call-${++seq}`, name, arguments: args, ...extra }),
  }
}

/** The model-visible text of a result. */
export function text(result: ToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mediaType}]`)).join('\n')
}
