// What each tool this package ships is (issue 17; seed 003 §8.8, §9.5): its category as the
// permission engine sees it (read / write / exec / internal) and its concurrency. The permission
// engine keeps its own table (`TOOL_SPECS` in @toolgate/policy, which also knows run_code from
// @toolgate/codemode); `test/declarations.test.ts` reconciles the two both ways and checks each
// concurrency against the registered tool's own `isConcurrencySafe`, so neither can drift.

export type ToolCategory = 'read' | 'write' | 'exec' | 'internal'

/** 'parallel': always next to its siblings; 'exclusive': alone; 'by-command': bash, read-only commands in parallel. */
export type ToolConcurrency = 'parallel' | 'exclusive' | 'by-command'

export interface ToolDeclaration {
  readonly category: ToolCategory
  readonly concurrency: ToolConcurrency
}

export const TOOL_DECLARATIONS = {
  read: { category: 'read', concurrency: 'parallel' },
  write: { category: 'write', concurrency: 'exclusive' },
  edit: { category: 'write', concurrency: 'exclusive' },
  ls: { category: 'read', concurrency: 'parallel' },
  glob: { category: 'read', concurrency: 'parallel' },
  grep: { category: 'read', concurrency: 'parallel' },
  bash: { category: 'exec', concurrency: 'by-command' },
  todo_write: { category: 'internal', concurrency: 'exclusive' },
  job_output: { category: 'internal', concurrency: 'parallel' },
  job_list: { category: 'internal', concurrency: 'parallel' },
  job_kill: { category: 'internal', concurrency: 'exclusive' },
  // Registered by a host that defers tools (the CLI with MCP servers), not by builtinTools: the
  // engine knows it because this package ships it (`toolSearchTool`).
  tool_search: { category: 'internal', concurrency: 'exclusive' },
} as const satisfies Record<string, ToolDeclaration>

export type DeclaredToolName = keyof typeof TOOL_DECLARATIONS
