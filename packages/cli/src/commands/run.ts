// `toolgate run "<task>"`: the agent against a real model with the built-in tools, policy,
// approvals and a session log.
import { statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
// The table alone (not the agent package): `run` sends its first request before loading the agent.
import { knownContextWindow, UNKNOWN_CONTEXT_WINDOW } from '@toolgate/agent/context-window'
import type { JsonValue } from '@toolgate/core'
import { registerSecretEnv } from '@toolgate/policy/prompt'
import {
  createModelClient,
  type Message,
  type ModelClient,
  type ModelClientOptions,
  type SchemaFallback,
} from '@toolgate/providers'
import type { ParsedArgs } from '../args.js'
import { API_KEY_VARIABLES, type Endpoint, resolveEndpoint } from '../endpoint.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { banner } from '../render/banner.js'
import { terminalSafe } from '../render/terminal-text.js'
import { withDeadline } from '../session/deadline.js'
import { type EarlyRequest, startEarlyRequest } from '../session/early-request.js'
import { earlyFirstRequest } from '../session/early-request-of-run.js'
import { defaultLogPath, latestLog } from '../session/log-file.js'
import type { ApprovalMode, Preset } from '../session/policy-options.js'
import type { SessionOptions } from './drive.js'

const SYSTEM_PROMPT = (root: string) =>
  [
    'You are a careful coding agent. You work in the workspace at',
    `${root} using the tools you are given: read files before editing them, prefer the dedicated`,
    'file and search tools over shell commands, and keep shell commands short. Some actions need the',
    "user's approval; if one is refused, do not retry it unchanged. Finish with a short summary of what",
    'you did and what is left.',
  ].join(' ')

/**
 * Prompt caching: Anthropic breakpoints always (the cache is the provider's); OpenAI's
 * `prompt_cache_key` (the session's log name) only on OpenAI's own API — a compatible server may
 * reject a field it does not know.
 */
function promptCache(endpoint: Endpoint, logPath: string): { promptCache?: { key?: string } } {
  if (endpoint.provider === 'anthropic') return { promptCache: {} }
  if (endpoint.baseUrl === undefined || /^https:\/\/api\.openai\.com(\/|$)/.test(endpoint.baseUrl))
    return { promptCache: { key: `toolgate-${basename(logPath, '.jsonl')}` } }
  return {}
}

/** Loading the session's modules (a bounded wait like every other; minutes mean something hangs). */
const IMPORT_DEADLINE_MS = 60_000

/** Default model requests per task. */
export const DEFAULT_MAX_TURNS = 50

/** What `run` and `chat` share: the endpoint, the workspace, the log, the limits; or a usage/config error. */
export type ModelSessionSetup =
  | {
      readonly ok: true
      readonly endpoint: Endpoint
      readonly options: Omit<SessionOptions, 'io' | 'json'>
      /** The model client itself (options.model hands it to the session). */
      readonly client: ModelClient
      /**
       * Hold the schema reports (session log lines and stderr notes) of requests made before the
       * session exists (the early first request) until `release`, when the session makes its first
       * request: then they appear where they do without an early request.
       */
      readonly reports: { hold(): void; release(): void }
    }
  | { readonly ok: false; readonly code: ExitCode; readonly message: string }

export function modelSession(command: string, parsed: ParsedArgs, io: CliIO): ModelSessionSetup {
  const o = parsed.options
  const usage = (message: string) => ({ ok: false as const, code: EXIT.usage, message })
  const config = (message: string) => ({ ok: false as const, code: EXIT.config, message })
  const yes = o.yes === true
  if (yes && o.approval === 'never')
    return usage(
      '--approval never denies every ask and --yes approves every ask: choose one (--yes alone approves asks; --approval never alone denies them).',
    )
  // The keys this process reads never reach bash, under any name (issue 11 §3).
  for (const name of API_KEY_VARIABLES) registerSecretEnv(name, io.env)
  const endpoint = resolveEndpoint(o, io.env)
  if (!endpoint.ok) return config(endpoint.message)
  const native = o['tool-search'] === 'native'
  if (native && endpoint.provider !== 'anthropic')
    return usage(
      `--tool-search native needs --provider anthropic (the ${endpoint.provider} wire has no native tool search here); use --tool-search emulated`,
    )
  const root = resolve(io.cwd, typeof o.root === 'string' ? o.root : '.')
  const rootStat = statSync(root, { throwIfNoEntry: false })
  if (!rootStat?.isDirectory())
    return config(
      `the workspace root ${root} ${rootStat ? 'is not a directory' : 'does not exist'}; pass an existing directory to --root`,
    )
  // Made now, so a bad option is a configuration error before anything starts; its schema reports
  // go to the session log once the session exists.
  let logTo: (type: string, payload: Record<string, JsonValue>) => void = () => {}
  let held: (() => void)[] | undefined
  const report = (fn: () => void) => (held ? held.push(fn) : fn())
  let model: ModelClient
  try {
    model = createModelClient({
      provider: endpoint.provider,
      model: endpoint.model,
      ...(endpoint.baseUrl ? { baseUrl: endpoint.baseUrl } : {}),
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      ...(typeof o.timeout === 'number' ? { timeoutMs: o.timeout * 1000 } : {}),
      ...schemaReporters(
        (type, payload) => report(() => logTo(type, payload)),
        (line) => report(() => io.stderr.write(`toolgate: note: ${terminalSafe(line)}\n`)),
      ),
      ...(native ? { nativeToolSearch: 'bm25' as const } : {}),
    })
  } catch (error) {
    return config(error instanceof Error ? error.message : String(error))
  }
  // The log: --resume <log> and --continue write on in the session they continue (unless --log).
  if (typeof o.resume === 'string' && o.continue === true)
    return usage('--resume <log> and --continue both name a session to continue: choose one.')
  let resumeFrom: string | undefined
  if (typeof o.resume === 'string') resumeFrom = resolve(io.cwd, o.resume)
  else if (o.continue === true) {
    const latest = latestLog(root)
    if (!latest.ok) return config(latest.message)
    resumeFrom = latest.path
  }
  if (resumeFrom !== undefined && !statSync(resumeFrom, { throwIfNoEntry: false })?.isFile())
    return config(`cannot resume: ${resumeFrom} is not a session log file`)
  const logPath = typeof o.log === 'string' ? resolve(io.cwd, o.log) : (resumeFrom ?? defaultLogPath(root))
  const interactiveAsk = io.stdin?.isTTY === true && io.stdout.isTTY === true
  return {
    ok: true,
    endpoint,
    client: model,
    reports: {
      hold: () => {
        held ??= []
      },
      release: () => {
        const waiting = held ?? []
        held = undefined
        for (const fn of waiting) fn()
      },
    },
    options: {
      model: (session) => {
        logTo = session.log
        return model
      },
      provider: endpoint.provider,
      root,
      ...(resumeFrom === undefined ? {} : { resumeFrom }),
      preset: (o.preset as Preset | undefined) ?? 'workspace-write',
      approvalPolicy: (o.approval as ApprovalMode | undefined) ?? 'on-request',
      logPath,
      system: SYSTEM_PROMPT(root),
      limits: {
        maxTurns: typeof o['max-turns'] === 'number' ? o['max-turns'] : DEFAULT_MAX_TURNS,
        ...(typeof o['max-tokens'] === 'number' ? { maxTokens: o['max-tokens'] } : {}),
        ...(typeof o['max-tokens-total'] === 'number' ? { tokenBudget: o['max-tokens-total'] } : {}),
        // One window for context management and MCP deferral: --context-window, else the table's.
        contextWindow:
          typeof o['context-window'] === 'number'
            ? o['context-window']
            : (knownContextWindow(endpoint.model) ?? UNKNOWN_CONTEXT_WINDOW),
        ...promptCache(endpoint, logPath),
      },
      codeMode: o['no-code'] !== true,
      mcp: true,
      ...(native ? { nativeToolSearch: true } : {}),
      forceAuto: yes,
      auto: () =>
        yes
          ? { outcome: 'allowed-once', by: '--yes', line: 'auto-approved (--yes)' }
          : {
              outcome: 'unavailable',
              by: 'nobody (no terminal)',
              line: interactiveAsk
                ? 'denied: no one can answer here (pass --yes to approve asks)'
                : 'denied: it needs approval and there is no terminal to ask (pass --yes to approve asks)',
            },
      banner: (style, session) => banner(style, command, endpoint, root, session),
    },
  }
}

export async function runCommand(parsed: ParsedArgs, io: CliIO): Promise<ExitCode> {
  const task = parsed.positionals[0]!
  if (task.trim() === '') {
    io.stderr.write('toolgate run: the task is empty; say what the agent should do.\n')
    return EXIT.usage
  }
  const setup = modelSession('run', parsed, io)
  if (!setup.ok) {
    io.stderr.write(`toolgate run: ${setup.message}\n`)
    return setup.code
  }
  const json = parsed.options.json === true
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: task }] }]
  // The first request goes out now when it can be known without the session (README "Start-up");
  // the session, its tools and its log are loaded while the model works on it.
  const early = startEarly(setup, messages, io)
  try {
    await early?.request.onWire
    let drive: typeof import('./drive.js').drive
    try {
      ;({ drive } = await withDeadline(
        IMPORT_DEADLINE_MS,
        'loading the agent, tools and policy modules',
        import('./drive.js'),
      ))
    } catch (error) {
      io.stderr.write(`toolgate run: ${error instanceof Error ? error.message : String(error)}\n`)
      return EXIT.config
    }
    const { code } = await drive({
      ...setup.options,
      ...(early ? { model: early.model(setup.options.model) } : {}),
      io,
      json,
      // --json never prompts: stdout is for events.
      forceAuto: setup.options.forceAuto || json,
      messages,
    })
    return code
  } finally {
    early?.request.discard('the run ended before its first model request')
  }
}

/** Start the early first request, or say why not (undefined: the session sends it as usual). */
function startEarly(
  setup: Extract<ModelSessionSetup, { ok: true }>,
  messages: readonly Message[],
  io: CliIO,
):
  | { request: EarlyRequest; model: (factory: SessionOptions['model']) => SessionOptions['model'] }
  | undefined {
  const first = earlyFirstRequest(setup.options, messages, io.env)
  if (first === undefined) return undefined
  let note: ((type: string, payload: Record<string, JsonValue>) => void) | undefined
  setup.reports.hold()
  const request = startEarlyRequest(setup.client, first, {
    onFirstStream: () => setup.reports.release(),
    onMismatch: (detail) => {
      io.stderr.write(
        `toolgate: note: the early first request did not match the session's (${detail}); it was aborted and the session's request sent instead (regenerate the snapshot: npm run build:first-request)\n`,
      )
      note?.('cli/early-request', { outcome: 'resent', detail })
    },
  })
  return {
    request,
    model: (factory) => (session) => {
      note = session.log
      factory(session)
      return request.model
    },
  }
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
