import { readFileSync, statSync } from 'node:fs'
import { parseRule } from './rule-syntax.js'
import type { LoadedRule, Rule, RuleAction, RuleSource } from './types.js'

/**
 * Settings files (`<root>/.toolgate/settings.json`, `~/.toolgate/settings.json`):
 *
 *   { "permissions": { "allow": ["bash(git status)"], "ask": [], "deny": ["read(secrets/**)"] } }
 *
 * Hostile input: a project file arrives with a cloned repository. Every problem is reported with
 * the file and the field; a broken file makes the engine refuse to start (fail closed), it is never
 * skipped. A missing file is simply no rules.
 */

const MAX_SETTINGS_BYTES = 1024 * 1024
const MAX_RULES_PER_LIST = 1000
const ACTIONS: readonly RuleAction[] = ['allow', 'ask', 'deny']

export class PermissionSettingsError extends Error {
  override readonly name = 'PermissionSettingsError'
  constructor(readonly problems: readonly string[]) {
    super(
      `toolgate could not load its permission settings, so it will not run (fail closed):\n${problems.map((p) => `- ${p}`).join('\n')}\nFix ${problems.length === 1 ? 'this problem' : 'these problems'} and start again.`,
    )
  }
}

export interface LoadedSettings {
  readonly rules: readonly LoadedRule[]
  readonly problems: readonly string[]
}

/** Read and validate one settings file. A missing file is no rules and no problem. */
export function loadSettingsFile(file: string, source: RuleSource): LoadedSettings {
  let text: string
  try {
    const st = statSync(file)
    if (!st.isFile()) return { rules: [], problems: [`${file}: is not a regular file`] }
    if (st.size > MAX_SETTINGS_BYTES) {
      return { rules: [], problems: [`${file}: is larger than ${MAX_SETTINGS_BYTES} bytes`] }
    }
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { rules: [], problems: [] }
    return { rules: [], problems: [`${file}: cannot be read (${code ?? (error as Error).message})`] }
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return { rules: [], problems: [`${file}: is not valid JSON (${(error as Error).message})`] }
  }
  return validateSettings(data, source, file)
}

/** Validate parsed settings (also used for settings given in code). */
export function validateSettings(data: unknown, source: RuleSource, file?: string): LoadedSettings {
  const where = file ?? source
  const problems: string[] = []
  const rules: LoadedRule[] = []
  if (!isPlainObject(data)) return { rules, problems: [`${where}: the top level must be a JSON object`] }
  for (const key of Object.keys(data)) {
    if (key !== 'permissions' && key !== '$schema')
      problems.push(`${where}: unknown field '${key}' (expected 'permissions')`)
  }
  const permissions = data.permissions
  if (permissions === undefined) return { rules, problems }
  if (!isPlainObject(permissions))
    return { rules, problems: [...problems, `${where}: 'permissions' must be an object`] }
  for (const key of Object.keys(permissions)) {
    if (!(ACTIONS as readonly string[]).includes(key)) {
      problems.push(`${where}: unknown field 'permissions.${key}' (expected 'allow', 'ask' or 'deny')`)
    }
  }
  for (const action of ACTIONS) {
    const list = permissions[action]
    if (list === undefined) continue
    if (!Array.isArray(list)) {
      problems.push(`${where}: 'permissions.${action}' must be an array of rule strings`)
      continue
    }
    if (list.length > MAX_RULES_PER_LIST) {
      problems.push(`${where}: 'permissions.${action}' has more than ${MAX_RULES_PER_LIST} rules`)
      continue
    }
    list.forEach((item: unknown, i: number) => {
      const field = `permissions.${action}[${i}]`
      if (typeof item !== 'string') {
        problems.push(`${where}: '${field}' must be a string like "bash(git status)", got ${describe(item)}`)
        return
      }
      const parsed = parseRule(item)
      if (!parsed.ok) problems.push(`${where}: '${field}' ${JSON.stringify(item)}: ${parsed.problem}`)
      else rules.push(makeRule(action, item, source, parsed.matcher, file))
    })
  }
  return { rules, problems }
}

/** Rules given in code (`permissions({ rules })`). */
export function loadRuleList(list: readonly Rule[], source: RuleSource): LoadedSettings {
  const problems: string[] = []
  const rules: LoadedRule[] = []
  list.forEach((r, i) => {
    const field = `rules[${i}]`
    if (
      !isPlainObject(r) ||
      !(ACTIONS as readonly unknown[]).includes(r.action) ||
      typeof r.rule !== 'string'
    ) {
      problems.push(`${source}: '${field}' must be { action: 'allow' | 'ask' | 'deny', rule: string }`)
      return
    }
    const parsed = parseRule(r.rule)
    if (!parsed.ok) problems.push(`${source}: '${field}' ${JSON.stringify(r.rule)}: ${parsed.problem}`)
    else rules.push(makeRule(r.action, r.rule, source, parsed.matcher))
  })
  return { rules, problems }
}

function makeRule(
  action: RuleAction,
  text: string,
  source: RuleSource,
  matcher: LoadedRule['matcher'],
  file?: string,
): LoadedRule {
  return Object.freeze({
    action,
    text: text.trim(),
    source,
    matcher,
    ...(file === undefined ? {} : { file }),
  })
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`
}
