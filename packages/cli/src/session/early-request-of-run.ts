// Which first request `run` can send before its session exists, and when it must not try
// (early-request.ts has the mechanism). The request is built as the agent loop builds its first
// one: the system prompt (`composeSystem` of the command's paragraph, the permission engine's rules
// text, the Code Mode declaration), the task, the tools of the generated snapshot, then the
// request options (max tokens, prompt cache).
import { permissionsPromptText } from '@toolgate/policy/prompt'
import type { Message, ModelRequest } from '@toolgate/providers'
import type { SessionOptions } from '../commands/drive.js'
import { FIRST_REQUEST } from './first-request.generated.js'
import { prepareLog } from './log-file.js'
import { mcpConfigured } from './mcp-configured.js'
import { composeSystem, engineOptions } from './policy-options.js'

/** Set (non-empty) to build the session before the first request, as before (tests compare both). */
const EAGER_START_VARIABLE = 'TOOLGATE_EAGER_START'

/** The loop's reply reserve when --max-tokens is not given (@toolgate/agent DEFAULT_OUTPUT_RESERVE). */
const OUTPUT_RESERVE = 8192

/**
 * The first request of a fresh `run` session, or undefined when it cannot be known before the
 * session exists: a resumed conversation, MCP servers configured (their tools join the list),
 * native tool search, no turn allowed, a log or settings that cannot be used (the session reports
 * them, and no request may precede that error), or a request that might not fit the context
 * window (the loop would stop or compact first).
 */
export function earlyFirstRequest(
  o: Omit<SessionOptions, 'io' | 'json'>,
  messages: readonly Message[],
  env: Readonly<Record<string, string | undefined>>,
): ModelRequest | undefined {
  const limits = o.limits ?? {}
  if ((env[EAGER_START_VARIABLE] ?? '') !== '') return undefined
  if (o.resumeFrom !== undefined || o.nativeToolSearch || o.isolated) return undefined
  if (o.mcp && mcpConfigured(o.root, env)) return undefined
  if (limits.maxTurns !== undefined && limits.maxTurns < 1) return undefined
  // A log that cannot be written is a config error before any request (the session reports it).
  if (!prepareLog(o.logPath).ok) return undefined
  let rules: string
  try {
    // The engine the session installs, minus the sandbox probe: the rules text does not depend on it.
    rules = permissionsPromptText(engineOptions(o, o.preset, false))
  } catch {
    return undefined
  }
  const parts = o.codeMode ? FIRST_REQUEST.code : FIRST_REQUEST.noCode
  const request: ModelRequest = {
    messages: [{ role: 'system', content: composeSystem([o.system, rules, parts.codePrompt]) }, ...messages],
    tools: parts.tools,
    ...(limits.maxTokens !== undefined ? { maxTokens: limits.maxTokens } : {}),
    ...(limits.promptCache ? { cache: limits.promptCache } : {}),
  }
  // At least one token per two characters, well above any tokenizer's count for this text: a
  // request that could come near the window is left to the loop, which manages the context.
  const window = limits.contextWindow
  const reserve = limits.maxTokens ?? OUTPUT_RESERVE
  if (window === undefined || JSON.stringify(request).length / 2 + reserve > window) return undefined
  return request
}
