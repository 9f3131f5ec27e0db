// Test-only: Code Mode's run_code is known to the permission engine too (codemode does not
// depend on this package, nor this package on codemode).
import { codeMode } from '@toolgate/codemode'
import { createRuntime, type JsonObject } from '@toolgate/core'
import { initShellParser, TOOL_SPECS } from '@toolgate/policy'
import { beforeAll, describe, expect, it } from 'vitest'
import { builtinTools, TOOL_DECLARATIONS, toolSearchTool } from '../src/index.js'
import { tempDir } from './helpers.js'

// Issue 17: tools declare what they are, and the permission engine's table agrees, both ways.
// A registered tool the engine does not know, or a name the engine knows that no shipped tool
// has, fails here; so does a declared concurrency the tool's own isConcurrencySafe contradicts.

beforeAll(() => initShellParser())

/** Every tool toolgate ships, registered the way a host registers it. */
function everyTool() {
  const runtime = createRuntime()
  runtime.use(builtinTools({ root: tempDir(), sandbox: false }))
  runtime.register(
    toolSearchTool({ catalog: { deferred: () => [], activate: () => [], loaded: () => false } as never }),
  )
  runtime.use(codeMode({ mode: 'both' }))
  return runtime
}

// Valid arguments for each tool, to ask the scheduler how it would run the call.
const SAMPLE: Record<string, JsonObject> = {
  read: { path: 'a.txt' },
  write: { path: 'a.txt', content: 'x' },
  edit: { path: 'a.txt', old_string: 'a', new_string: 'b' },
  ls: {},
  glob: { pattern: '*.ts' },
  grep: { pattern: 'x' },
  todo_write: { todos: [] },
  job_output: { job_id: 'j1' },
  job_list: {},
  job_kill: { job_id: 'j1' },
  tool_search: { query: 'select:x' },
  run_code: { code: 'return 1', description: 'one' },
}

describe('tool declarations and the permission engine agree', () => {
  it('every registered tool is in the engine table with the declared category, and the reverse', () => {
    const registered = everyTool()
      .schemas()
      .map((s) => s.name)
      .sort()
    const specs = TOOL_SPECS as Record<string, { category: string }>
    expect(registered).toEqual(Object.keys(specs).sort())
    for (const [name, declared] of Object.entries(TOOL_DECLARATIONS)) {
      expect([name, specs[name]?.category]).toEqual([name, declared.category])
    }
    // run_code is declared by Code Mode (its sub-calls meet the policy one by one).
    expect(specs.run_code?.category).toBe('internal')
    expect(Object.keys(TOOL_DECLARATIONS).sort()).toEqual(registered.filter((n) => n !== 'run_code'))
  })

  it('each declared concurrency is what the scheduler does with the real tool', () => {
    const runtime = everyTool()
    const mode = (name: string, args: JsonObject) => runtime.mode({ callId: 'm', name, arguments: args }).kind
    for (const [name, declared] of Object.entries(TOOL_DECLARATIONS)) {
      if (declared.concurrency === 'by-command') {
        expect([name, mode(name, { command: 'ls -la' })]).toEqual([name, 'parallel'])
        expect([name, mode(name, { command: 'rm -rf build' })]).toEqual([name, 'exclusive'])
        continue
      }
      expect([name, mode(name, SAMPLE[name]!)]).toEqual([name, declared.concurrency])
    }
  })
})
