import type { JsonValue } from '@toolgate/core'
import type { ToolCategory } from './types.js'

/**
 * What each built-in tool is, and which of its arguments are paths (DESIGN.md §4 parameter
 * names). Tools not in this table are unknown: they fall through to `ask` in every preset unless
 * a rule names them (fail closed).
 */
export interface ToolSpec {
  readonly category: ToolCategory
  /** The paths a call touches (relative to the workspace or absolute); a string is a problem. */
  readonly paths?: (args: Readonly<Record<string, JsonValue>>) => readonly string[] | string
}

const required = (key: string) => (args: Readonly<Record<string, JsonValue>>) => {
  const v = args[key]
  return typeof v === 'string' && v !== '' ? [v] : `the '${key}' argument is missing or not a string`
}

const optionalDir = (args: Readonly<Record<string, JsonValue>>): readonly string[] | string => {
  const v = args.path
  if (v === undefined || v === null) return ['.']
  return typeof v === 'string' ? [v === '' ? '.' : v] : "the 'path' argument is not a string"
}

/** glob's pattern may itself reach out (`../../**`, `/etc/*`): its static prefix is a path too. */
const globPaths = (args: Readonly<Record<string, JsonValue>>): readonly string[] | string => {
  const dir = optionalDir(args)
  if (typeof dir === 'string') return dir
  const pattern = args.pattern
  if (typeof pattern !== 'string') return "the 'pattern' argument is not a string"
  const base: string[] = []
  for (const seg of pattern.split('/')) {
    if (/[*?[{]/.test(seg)) break
    base.push(seg)
  }
  if (base.length === 0) return dir
  const prefix = base.join('/') || '/'
  return pattern.startsWith('/') || pattern.startsWith('~')
    ? [...dir, prefix]
    : [...dir, `${dir[0]}/${prefix}`]
}

export const TOOL_SPECS = {
  read: { category: 'read', paths: required('path') },
  ls: { category: 'read', paths: optionalDir },
  glob: { category: 'read', paths: globPaths },
  grep: { category: 'read', paths: optionalDir },
  write: { category: 'write', paths: required('path') },
  edit: { category: 'write', paths: required('path') },
  bash: { category: 'exec' },
  // No effect outside the session: a todo list, the agent's own background jobs, tool discovery,
  // Code Mode (its sub-calls come back through this policy one by one, with a parent token).
  todo_write: { category: 'internal' },
  job_output: { category: 'internal' },
  job_list: { category: 'internal' },
  job_kill: { category: 'internal' },
  tool_search: { category: 'internal' },
  run_code: { category: 'internal' },
} as const satisfies Record<string, ToolSpec>

export function toolSpec(name: string, extra?: Readonly<Record<string, ToolSpec>>): ToolSpec | undefined {
  if (extra !== undefined && Object.hasOwn(extra, name)) return extra[name]
  return Object.hasOwn(TOOL_SPECS, name) ? (TOOL_SPECS as Record<string, ToolSpec>)[name] : undefined
}
