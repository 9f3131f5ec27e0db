// Server configuration in the format users already have (`.mcp.json`, `mcpServers` in settings).

/** Where a server's configuration came from. Project files arrive with a cloned repository. */
export type ServerSource = 'project-mcp-json' | 'project-settings' | 'user-settings' | 'code'

interface CommonConfig {
  /** Per-call timeout in ms (default 120,000: seed 003 §12.3 (4)). */
  readonly timeoutMs?: number
  /** Connect + initialize + first tools/list, in ms (default 30,000). */
  readonly startupTimeoutMs?: number
  /** Output limit in tokens (default 25,000: seed 003 §12.3 (3)). */
  readonly maxOutputTokens?: number
  /**
   * Honour the server's readOnlyHint/destructiveHint for parallel scheduling. Only when the server
   * is also trusted (approved, or from the user's own settings); never an allow.
   */
  readonly trustAnnotations?: boolean
  readonly disabled?: boolean
}

export interface StdioServerConfig extends CommonConfig {
  readonly type: 'stdio'
  readonly command: string
  readonly args: readonly string[]
  /** Variables given to the server, after `${VAR}` expansion; the only way a secret gets in. */
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string
}

export interface HttpServerConfig extends CommonConfig {
  readonly type: 'http'
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** Name of an environment variable holding a bearer token (sent as `Authorization: Bearer`). */
  readonly bearerTokenEnv?: string
}

export type ServerConfig = StdioServerConfig | HttpServerConfig

/** One problem in a configuration file: which file, which field, what is wrong. */
export interface ConfigProblem {
  readonly file: string
  /** JSON path of the field, e.g. `mcpServers.github.args[2]`. */
  readonly field: string
  readonly message: string
  /** The server it makes unusable (absent: the whole file). */
  readonly server?: string
}

/** A configured server: usable (`config`) or not (`problems`), never both silently. */
export interface ServerEntry {
  readonly name: string
  readonly source: ServerSource
  readonly file: string
  /** The configuration as written (before expansion): what approval hashes. */
  readonly raw: unknown
  readonly config?: ServerConfig
  readonly problems: readonly ConfigProblem[]
}
