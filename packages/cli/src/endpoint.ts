// Which model `run` and `chat` talk to: provider, base URL, model and key, from flags and the
// environment. One name per provider everywhere (flags, TOOLGATE_PROVIDER, banner, session log):
// the wire names of @toolgate/providers. Light on purpose: `--help` loads this file, not the client.
import type { Provider } from '@toolgate/providers'

export const PROVIDERS = [
  'anthropic',
  'openai-chat',
  'openai-responses',
] as const satisfies readonly Provider[]

export type Endpoint = {
  readonly provider: Provider
  readonly baseUrl?: string
  readonly model: string
  readonly apiKey?: string
}

export type EndpointResolution = ({ ok: true } & Endpoint) | { ok: false; message: string }

/** Every environment variable `resolveEndpoint` may read a key from (kept from bash, issue 11 §3). */
export const API_KEY_VARIABLES = ['TOOLGATE_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY'] as const

/** The vendor's own variables, as their SDKs read them. */
const KEY_VARIABLE = {
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-chat': 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
} as const satisfies Record<Provider, string>
const BASE_URL_VARIABLE = {
  anthropic: 'ANTHROPIC_BASE_URL',
  'openai-chat': 'OPENAI_BASE_URL',
  'openai-responses': 'OPENAI_BASE_URL',
} as const satisfies Record<Provider, string>

/**
 * Provider, URL, model and key from flags and environment; says exactly what is missing.
 * Base URL: --base-url, else TOOLGATE_BASE_URL, else the provider's own variable (OPENAI_BASE_URL,
 * ANTHROPIC_BASE_URL). An Anthropic base URL is the host root (requests go to `<base>/v1/messages`),
 * an OpenAI one ends before `/chat/completions` or `/responses` (usually in `/v1`).
 */
export function resolveEndpoint(
  options: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): EndpointResolution {
  const nonEmpty = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  let provider = (nonEmpty(options.provider) ?? nonEmpty(env.TOOLGATE_PROVIDER)) as Provider | undefined
  if (provider !== undefined && !(PROVIDERS as readonly string[]).includes(provider)) {
    return {
      ok: false,
      message: `TOOLGATE_PROVIDER must be one of ${PROVIDERS.join(', ')} (got "${provider}")`,
    }
  }
  const generic = nonEmpty(options['base-url']) ?? nonEmpty(env.TOOLGATE_BASE_URL)
  if (provider === undefined) {
    if (generic || nonEmpty(env.OPENAI_API_KEY) || nonEmpty(env.OPENAI_BASE_URL)) provider = 'openai-chat'
    else if (nonEmpty(env.ANTHROPIC_API_KEY) || nonEmpty(env.ANTHROPIC_BASE_URL)) provider = 'anthropic'
  }
  const model = nonEmpty(options.model) ?? nonEmpty(env.TOOLGATE_MODEL)
  if (provider === undefined || model === undefined) {
    return {
      ok: false,
      message: [
        'no model endpoint is configured. Set:',
        `  --provider ${PROVIDERS.join('|')}   (or TOOLGATE_PROVIDER)`,
        '  --model <id>                                         (or TOOLGATE_MODEL)',
        '  --base-url <url> for a local or compatible server    (or TOOLGATE_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL)',
        '  and a key: TOOLGATE_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY (not needed for a local server)',
        'Example: toolgate run --provider openai-chat --base-url http://127.0.0.1:8080/v1 --model local "<task>"',
        'To try toolgate without a model, run `toolgate demo`.',
      ].join('\n'),
    }
  }
  const baseUrl = generic ?? nonEmpty(env[BASE_URL_VARIABLE[provider]])
  if (baseUrl !== undefined) {
    const problem = baseUrlProblem(baseUrl)
    if (problem !== undefined) return { ok: false, message: problem }
  }
  const apiKey = nonEmpty(env.TOOLGATE_API_KEY) ?? nonEmpty(env[KEY_VARIABLE[provider]])
  if (apiKey === undefined && baseUrl === undefined) {
    return {
      ok: false,
      message: `the ${provider} API needs a key: set ${KEY_VARIABLE[provider]} (or TOOLGATE_API_KEY), or point --base-url at a server that needs none.`,
    }
  }
  return { ok: true, provider, model, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) }
}

/** A base URL fetch can use: absolute, http or https. Undefined when it is fine. */
function baseUrlProblem(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `the base URL "${url}" is not a URL; write it with its scheme, e.g. http://${url.replace(/^\/+/, '')}`
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    // `localhost:8080` parses as the scheme "localhost:".
    return `the base URL "${url}" has no http:// or https:// scheme; write it e.g. as http://${url.replace(/^\/+/, '')}`
  }
  return undefined
}
