// `toolgate run "<task>"`: the agent against a real model with the built-in tools, policy,
// approvals and a session log.
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { knownContextWindow, UNKNOWN_CONTEXT_WINDOW } from '@toolgate/agent'
import type { JsonValue } from '@toolgate/core'
import { registerSecretEnv } from '@toolgate/policy'
import {
  createModelClient,
  type ModelClient,
  type ModelClientOptions,
  type Provider,
  type SchemaFallback,
} from '@toolgate/providers'
import type { CommandSpec, ParsedArgs } from '../args.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import type { ApprovalMode, Preset } from '../wiring.js'
import { drive } from './drive.js'

const PROVIDERS = ['openai', 'anthropic', 'openai-responses'] as const
type ProviderFlag = (typeof PROVIDERS)[number]
const WIRE = {
  openai: 'openai-chat',
  anthropic: 'anthropic',
  'openai-responses': 'openai-responses',
} as const satisfies Record<ProviderFlag, Provider>

export const runSpec: CommandSpec = {
  name: 'run',
  summary: 'run a task with an agent against a real model',
  positionals: [{ name: 'task', description: 'what the agent should do (quote it)', required: true }],
  options: [
    {
      name: 'provider',
      short: 'p',
      kind: 'string',
      value: '<name>',
      choices: PROVIDERS,
      description: 'Wire format (env TOOLGATE_PROVIDER).',
    },
    {
      name: 'base-url',
      kind: 'string',
      value: '<url>',
      description: 'API base URL, e.g. http://127.0.0.1:8080/v1 (env TOOLGATE_BASE_URL).',
    },
    {
      name: 'model',
      short: 'm',
      kind: 'string',
      value: '<id>',
      description: 'Model id (env TOOLGATE_MODEL).',
    },
    {
      name: 'root',
      kind: 'string',
      value: '<dir>',
      description: 'Workspace root the tools work in (default: the current directory).',
    },
    {
      name: 'preset',
      kind: 'string',
      value: '<preset>',
      choices: ['read-only', 'workspace-write', 'danger-full-access'],
      description: 'What the agent may do without asking (default workspace-write).',
    },
    {
      name: 'approval',
      kind: 'string',
      value: '<policy>',
      choices: ['on-request', 'never'],
      description: 'on-request: ask a person; never: every ask is denied (default on-request).',
    },
    {
      name: 'yes',
      short: 'y',
      kind: 'flag',
      description: 'Approve everything policy asks about (protected paths stay denied).',
    },
    {
      name: 'max-turns',
      kind: 'int',
      value: '<n>',
      min: 1,
      description: 'Stop after this many model requests (default 30).',
    },
    {
      name: 'context-window',
      kind: 'int',
      value: '<tokens>',
      min: 1000,
      description:
        "The model's context window; MCP tools are deferred behind tool_search once their declarations would take 10% of it (default: known for claude-*, gpt-4.1, gpt-4o, gpt-5, o3, o4-mini; else 32768).",
    },
    {
      name: 'tool-search',
      kind: 'string',
      value: '<mode>',
      choices: ['emulated', 'native'],
      description:
        "How deferred MCP tools are found: emulated (toolgate's tool_search, every wire; default) or native (Anthropic's tool search tool; --provider anthropic only).",
    },
    { name: 'json', kind: 'flag', description: 'Print one JSON event per line on stdout instead of cards.' },
    {
      name: 'log',
      kind: 'string',
      value: '<path>',
      description: 'Session log file (JSONL; default: a new file in the temp dir).',
    },
  ],
  epilog: [
    'Keys: TOOLGATE_API_KEY, else OPENAI_API_KEY (openai, openai-responses) or ANTHROPIC_API_KEY (anthropic).',
    'A local OpenAI-compatible server needs no key:',
    '  toolgate run --provider openai --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder "list the TODOs"',
    'Without a terminal (or with --json) asks are denied unless --yes is given.',
  ].join('\n'),
}

const SYSTEM_PROMPT = (root: string) =>
  [
    'You are a careful coding agent. You work in the workspace at',
    `${root} using the tools you are given: read files before editing them, prefer the dedicated`,
    'file and search tools over shell commands, and keep shell commands short. Some actions need the',
    "user's approval; if one is refused, do not retry it unchanged. Finish with a short summary of what",
    'you did and what is left.',
  ].join(' ')

/** The environment variables that hold provider keys (read by `resolveEndpoint`). */
const API_KEY_VARIABLES = ['TOOLGATE_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY'] as const

type EndpointResolution =
  | { ok: true; provider: Provider; baseUrl?: string; model: string; apiKey?: string }
  | { ok: false; message: string }

/** Provider, URL, model and key from flags and environment; says exactly what is missing. */
export function resolveEndpoint(
  options: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): EndpointResolution {
  const nonEmpty = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  const baseUrl = nonEmpty(options['base-url']) ?? nonEmpty(env.TOOLGATE_BASE_URL)
  let flag = (nonEmpty(options.provider) ?? nonEmpty(env.TOOLGATE_PROVIDER)) as ProviderFlag | undefined
  if (flag !== undefined && !PROVIDERS.includes(flag)) {
    return { ok: false, message: `TOOLGATE_PROVIDER must be one of ${PROVIDERS.join(', ')} (got "${flag}")` }
  }
  if (flag === undefined) {
    if (baseUrl || nonEmpty(env.OPENAI_API_KEY)) flag = 'openai'
    else if (nonEmpty(env.ANTHROPIC_API_KEY)) flag = 'anthropic'
  }
  const model = nonEmpty(options.model) ?? nonEmpty(env.TOOLGATE_MODEL)
  if (flag === undefined || model === undefined) {
    return {
      ok: false,
      message: [
        'no model endpoint is configured. Set:',
        '  --provider openai|anthropic|openai-responses   (or TOOLGATE_PROVIDER)',
        '  --model <id>                                    (or TOOLGATE_MODEL)',
        '  --base-url <url> for a local or compatible server (or TOOLGATE_BASE_URL)',
        '  and a key: TOOLGATE_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY (not needed for a local server)',
        'Example: toolgate run --provider openai --base-url http://127.0.0.1:8080/v1 --model local "<task>"',
        'To try toolgate without a model, run `toolgate demo`.',
      ].join('\n'),
    }
  }
  const provider = WIRE[flag]
  const apiKey =
    nonEmpty(env.TOOLGATE_API_KEY) ??
    (flag === 'anthropic' ? nonEmpty(env.ANTHROPIC_API_KEY) : nonEmpty(env.OPENAI_API_KEY))
  if (apiKey === undefined && baseUrl === undefined) {
    const variable = flag === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'
    return {
      ok: false,
      message: `the ${flag} API needs a key: set ${variable} (or TOOLGATE_API_KEY), or point --base-url at a server that needs none.`,
    }
  }
  return { ok: true, provider, model, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) }
}

export async function runCommand(parsed: ParsedArgs, io: CliIO): Promise<ExitCode> {
  const o = parsed.options
  const task = parsed.positionals[0]!
  if (task.trim() === '') {
    io.stderr.write('toolgate run: the task is empty; say what the agent should do.\n')
    return EXIT.usage
  }
  // The keys this process reads never reach bash, under any name (issue 11 §3).
  for (const name of API_KEY_VARIABLES) registerSecretEnv(name, io.env)
  const endpoint = resolveEndpoint(o, io.env)
  if (!endpoint.ok) {
    io.stderr.write(`toolgate run: ${endpoint.message}\n`)
    return EXIT.config
  }
  const native = o['tool-search'] === 'native'
  if (native && endpoint.provider !== 'anthropic') {
    io.stderr.write(
      `toolgate run: --tool-search native needs --provider anthropic (the ${endpoint.provider} wire has no native tool search here); use --tool-search emulated\n`,
    )
    return EXIT.usage
  }
  const root = resolve(io.cwd, typeof o.root === 'string' ? o.root : '.')
  const logPath =
    typeof o.log === 'string'
      ? resolve(io.cwd, o.log)
      : join(
          tmpdir(),
          `toolgate-session-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.jsonl`,
        )
  try {
    mkdirSync(dirname(logPath), { recursive: true })
  } catch (error) {
    io.stderr.write(
      `toolgate run: cannot create the log directory: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    return EXIT.config
  }
  const contextWindowTokens =
    typeof o['context-window'] === 'number'
      ? o['context-window']
      : (knownContextWindow(endpoint.model) ?? UNKNOWN_CONTEXT_WINDOW)
  const model = (session: { log: (type: string, payload: Record<string, JsonValue>) => void }): ModelClient =>
    createModelClient({
      provider: endpoint.provider,
      model: endpoint.model,
      ...(endpoint.baseUrl ? { baseUrl: endpoint.baseUrl } : {}),
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      ...schemaReporters(session.log, (line) => io.stderr.write(`toolgate: note: ${line}\n`)),
      ...(native ? { nativeToolSearch: 'bm25' as const } : {}),
    })
  const yes = o.yes === true
  const { code } = await drive({
    io,
    model,
    contextWindowTokens,
    ...(native ? { nativeToolSearch: true } : {}),
    root,
    preset: (o.preset as Preset | undefined) ?? 'workspace-write',
    approvalPolicy: (o.approval as ApprovalMode | undefined) ?? 'on-request',
    logPath,
    messages: [{ role: 'user', content: [{ type: 'text', text: task }] }],
    system: SYSTEM_PROMPT(root),
    maxTurns: typeof o['max-turns'] === 'number' ? o['max-turns'] : 30,
    json: o.json === true,
    codeMode: true,
    mcp: true,
    forceAuto: yes || o.json === true,
    auto: () =>
      yes
        ? { outcome: 'allowed-once', line: 'auto-approved (--yes)' }
        : {
            outcome: 'unavailable',
            line: 'denied: it needs approval and there is no terminal to ask (pass --yes to approve asks)',
          },
    banner: (style, session) =>
      `${style.bold('toolgate run')} ${style.dim(`— ${endpoint.provider} ${endpoint.model}${endpoint.baseUrl ? ` @ ${endpoint.baseUrl}` : ''}`)}\n${style.dim('workspace')} ${root}\n${style.dim('sandbox')}   ${session.sandbox}\n\n`,
  })
  return code
}

/**
 * Tools a request could not send strict, or at all (issue 16 §3): each logged once per tool and
 * reason (`provider/schema-fallback`, `provider/schema-omission`; requests repeat every turn), and
 * a left-out tool named on stderr, so a missing tool is never a mystery.
 */
export function schemaReporters(
  log: (type: string, payload: Record<string, JsonValue>) => void,
  warn: (line: string) => void,
): Required<Pick<ModelClientOptions, 'onSchemaFallback' | 'onSchemaOmission'>> {
  const seen = new Set<string>()
  const once = (type: string, f: SchemaFallback) => {
    const key = JSON.stringify([type, f.tool, f.keyword, f.path])
    if (seen.has(key)) return false
    seen.add(key)
    log(type, { tool: f.tool, keyword: f.keyword, path: f.path, message: f.message })
    return true
  }
  return {
    onSchemaFallback: (f) => void once('provider/schema-fallback', f),
    onSchemaOmission: (f) => {
      if (once('provider/schema-omission', f)) warn(`${f.tool} is left out of the requests: ${f.message}`)
    },
  }
}
