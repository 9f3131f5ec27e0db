// Reading server configurations. Configuration files are hostile input (a project file comes with
// a cloned repository): every problem is listed with its file and field, a server with any problem
// is not started (fail closed for that server), and nothing here throws.
import { readFileSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { expandVars } from './expand.js'
import { MAX_CONFIG_BYTES, mcpConfigFiles } from './files.js'
import type { ConfigProblem, ServerConfig, ServerEntry, ServerSource } from './types.js'

/** A configuration file larger than this is not read (a cap on hostile input). */
const MAX_SERVERS = 100
const MAX_ARGS = 1000
const MAX_STRING = 16 * 1024

export interface LoadOptions {
  /** The workspace root (`.mcp.json` and `.toolgate/settings.json` are read there). */
  readonly root: string
  /** Variables for `${VAR}` expansion (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** The user's settings file (default `$TOOLGATE_HOME/settings.json`, else `~/.toolgate/settings.json`; `null` for none). */
  readonly userSettingsPath?: string | null
}

export interface LoadedConfig {
  /** Every configured server, sorted by name. */
  readonly servers: readonly ServerEntry[]
  /** Problems with a whole file (unreadable, not JSON, wrong shape). */
  readonly fileProblems: readonly ConfigProblem[]
}

const STDIO_KEYS = new Set([
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'timeoutMs',
  'startupTimeoutMs',
  'maxOutputTokens',
  'trustAnnotations',
  'disabled',
])
const HTTP_KEYS = new Set([
  'type',
  'url',
  'headers',
  'bearerTokenEnv',
  'timeoutMs',
  'startupTimeoutMs',
  'maxOutputTokens',
  'trustAnnotations',
  'disabled',
])

export function loadMcpConfig(options: LoadOptions): LoadedConfig {
  const root = resolve(options.root)
  const env = options.env ?? process.env
  const files = mcpConfigFiles(root, env, options.userSettingsPath)

  const fileProblems: ConfigProblem[] = []
  const byName = new Map<string, ServerEntry>()
  for (const { path, source } of files) {
    const read = readJson(path)
    if (read.kind === 'absent') continue
    if (read.kind === 'problem') {
      fileProblems.push({ file: path, field: '(file)', message: read.message })
      continue
    }
    const doc = read.value
    if (!isRecord(doc)) {
      fileProblems.push({ file: path, field: '(root)', message: 'must be a JSON object' })
      continue
    }
    if (!('mcpServers' in doc)) continue
    const servers = doc.mcpServers
    if (!isRecord(servers)) {
      fileProblems.push({ file: path, field: 'mcpServers', message: 'must be an object of servers by name' })
      continue
    }
    const names = Object.keys(servers)
    if (names.length > MAX_SERVERS) {
      fileProblems.push({
        file: path,
        field: 'mcpServers',
        message: `${names.length} servers are configured; at most ${MAX_SERVERS} are read`,
      })
      continue
    }
    for (const name of names) {
      const entry = parseServer(path, source, name, servers[name], env, root)
      const earlier = byName.get(name)
      if (earlier) {
        // Fail closed: the same name twice is ambiguous unless the user's own file defined it
        // first (a project cannot replace a server the user configured).
        const problem: ConfigProblem = {
          file: path,
          field: `mcpServers.${name}`,
          server: name,
          message: `the server "${name}" is also defined in ${earlier.file}; rename one of them`,
        }
        if (earlier.source === 'user-settings') {
          fileProblems.push({ ...problem, message: `${problem.message} (the user's definition is used)` })
        } else {
          byName.set(name, { ...earlier, problems: [...earlier.problems, problem] })
        }
        continue
      }
      byName.set(name, entry)
    }
  }
  const servers = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { servers, fileProblems }
}

type Read = { kind: 'absent' } | { kind: 'problem'; message: string } | { kind: 'ok'; value: unknown }

function readJson(path: string): Read {
  let size: number
  try {
    const st = statSync(path)
    if (!st.isFile()) return { kind: 'problem', message: 'is not a regular file' }
    size = st.size
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' }
    return { kind: 'problem', message: `cannot be read (${(error as Error).message})` }
  }
  if (size > MAX_CONFIG_BYTES)
    return {
      kind: 'problem',
      message: `is ${size} bytes; configuration files larger than 1 MiB are not read`,
    }
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return { kind: 'problem', message: `cannot be read (${(error as Error).message})` }
  }
  try {
    return { kind: 'ok', value: JSON.parse(text) as unknown }
  } catch (error) {
    return { kind: 'problem', message: `is not valid JSON (${(error as Error).message})` }
  }
}

function parseServer(
  file: string,
  source: ServerSource,
  name: string,
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  root: string,
): ServerEntry {
  const problems: ConfigProblem[] = []
  const at = (field: string) => `mcpServers.${name}${field === '' ? '' : `.${field}`}`
  const problem = (field: string, message: string) =>
    problems.push({ file, field: at(field), server: name, message })
  const done = (config?: ServerConfig): ServerEntry => ({
    name,
    source,
    file,
    raw,
    ...(config && problems.length === 0 ? { config } : {}),
    problems,
  })

  if (name.trim() === '' || name.length > 200) problem('', 'a server name must have 1-200 characters')
  if (!isRecord(raw)) {
    problem('', 'must be an object ({ "command": ... } or { "type": "http", "url": ... })')
    return done()
  }
  const type = raw.type ?? (raw.url !== undefined ? 'http' : 'stdio')
  if (type !== 'stdio' && type !== 'http') {
    problem(
      'type',
      type === 'sse'
        ? 'the legacy SSE transport is not supported; use the server\'s Streamable HTTP endpoint ("type": "http")'
        : `unknown transport ${JSON.stringify(type)}; use "stdio" or "http"`,
    )
    return done()
  }
  const allowed = type === 'stdio' ? STDIO_KEYS : HTTP_KEYS
  for (const key of Object.keys(raw))
    if (!allowed.has(key))
      problem(key, `unknown field for a ${type} server (allowed: ${[...allowed].join(', ')})`)

  const str = (field: string, value: unknown, required: boolean): string | undefined => {
    if (value === undefined) {
      if (required) problem(field, 'is required')
      return undefined
    }
    if (typeof value !== 'string') {
      problem(field, 'must be a string')
      return undefined
    }
    if (value.length > MAX_STRING) {
      problem(field, `is longer than ${MAX_STRING} characters`)
      return undefined
    }
    const expanded = expandVars(value, env)
    if (!expanded.ok) {
      problem(field, `uses ${expanded.missing.map((v) => `\${${v}}`).join(', ')}, which is not set`)
      return undefined
    }
    return expanded.value
  }
  const strMap = (field: string, value: unknown): Record<string, string> => {
    const out: Record<string, string> = {}
    if (value === undefined) return out
    if (!isRecord(value)) {
      problem(field, 'must be an object of strings')
      return out
    }
    for (const [k, v] of Object.entries(value)) {
      if (k === '__proto__' || k === '') {
        problem(`${field}.${k}`, 'is not a usable name')
        continue
      }
      const s = str(`${field}.${k}`, v, true)
      if (s !== undefined) out[k] = s
    }
    return out
  }
  const positive = (field: string, value: unknown, max: number): number | undefined => {
    if (value === undefined) return undefined
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
      problem(field, `must be a whole number from 1 to ${max}`)
      return undefined
    }
    return value
  }
  const bool = (field: string, value: unknown): boolean | undefined => {
    if (value === undefined) return undefined
    if (typeof value !== 'boolean') {
      problem(field, 'must be true or false')
      return undefined
    }
    return value
  }
  const common = {
    ...opt('timeoutMs', positive('timeoutMs', raw.timeoutMs, 3_600_000)),
    ...opt('startupTimeoutMs', positive('startupTimeoutMs', raw.startupTimeoutMs, 600_000)),
    ...opt('maxOutputTokens', positive('maxOutputTokens', raw.maxOutputTokens, 1_000_000)),
    ...opt('trustAnnotations', bool('trustAnnotations', raw.trustAnnotations)),
    ...opt('disabled', bool('disabled', raw.disabled)),
  }

  if (type === 'stdio') {
    const command = str('command', raw.command, true)
    if (command !== undefined && command.trim() === '') problem('command', 'must not be empty')
    const args: string[] = []
    if (raw.args !== undefined) {
      if (!Array.isArray(raw.args)) problem('args', 'must be an array of strings')
      else if (raw.args.length > MAX_ARGS) problem('args', `has more than ${MAX_ARGS} entries`)
      else
        raw.args.forEach((a, i) => {
          const s = str(`args[${i}]`, a, true)
          if (s !== undefined) args.push(s)
        })
    }
    const childEnv = strMap('env', raw.env)
    const cwdRaw = str('cwd', raw.cwd, false)
    const cwd = cwdRaw === undefined ? undefined : isAbsolute(cwdRaw) ? cwdRaw : resolve(root, cwdRaw)
    if (command === undefined) return done()
    return done({ type: 'stdio', command, args, env: childEnv, ...opt('cwd', cwd), ...common })
  }

  const url = str('url', raw.url, true)
  if (url !== undefined) {
    try {
      const u = new URL(url)
      if (u.protocol !== 'http:' && u.protocol !== 'https:') problem('url', 'must be an http: or https: URL')
    } catch {
      problem('url', 'is not a valid URL')
    }
  }
  const headers = strMap('headers', raw.headers)
  for (const key of Object.keys(headers))
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
      problem(`headers.${key}`, 'is not a valid HTTP header name')
  let bearerTokenEnv: string | undefined
  if (raw.bearerTokenEnv !== undefined) {
    if (typeof raw.bearerTokenEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.bearerTokenEnv))
      problem('bearerTokenEnv', 'must be the name of an environment variable')
    else if (env[raw.bearerTokenEnv] === undefined || env[raw.bearerTokenEnv] === '')
      problem('bearerTokenEnv', `names ${raw.bearerTokenEnv}, which is not set`)
    else bearerTokenEnv = raw.bearerTokenEnv
  }
  if (url === undefined) return done()
  return done({ type: 'http', url, headers, ...opt('bearerTokenEnv', bearerTokenEnv), ...common })
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
