/**
 * The environment bash gets (issue 11 §3, §4, §8): an allowlist, never the whole environment of
 * the agent process (which holds the provider's API key), never a credential-looking name, never
 * an agent socket, never a value the process registered as a secret; plus git configuration the
 * workspace cannot override.
 */

/** Passed through by default: what programs need to find themselves, the user and the locale. */
export const ENV_ALLOWLIST: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'TZ',
  'TMPDIR',
  'COLUMNS',
  'LINES',
  'HOSTNAME',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  // Certificate bundles (paths, not secrets): TLS behind a corporate proxy when the network is on.
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'GIT_SSL_CAINFO',
])

/**
 * Never passed, even when configured: names that look like credentials, and names that lead to a
 * host service (agent and bus sockets, the display). Matched on the upper-cased name.
 */
const NEVER: readonly RegExp[] = [
  /(?:KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDENTIALS|COOKIE|COOKIES)(?:_|$)/,
  /(?:^|_)(?:PASS|PWD|PAT|AUTH|SESSION|PRIVATE|DSN)(?:_|$)/,
  /^(?:AWS|AZURE|ARM|GCP|GCLOUD|CLOUDSDK|GOOGLE|DIGITALOCEAN|HEROKU|VAULT|OP|KRB5|DBUS|GPG|GNUPG)_/,
  /(?:_SOCK|_SOCKET|_PID)$/,
  /^(?:DISPLAY|WAYLAND_DISPLAY|XDG_RUNTIME_DIR|XAUTHORITY|DATABASE_URL)$/,
]

/** Whether a variable name may never reach bash (credential-looking, or a way to a host service). */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase()
  return NEVER.some((re) => re.test(upper))
}

const registered = new Map<string, string | undefined>()

/**
 * Register a variable the agent process itself read (a provider API key): its name and its value
 * never reach bash, also when the value was copied into another variable.
 */
export function registerSecretEnv(
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  const value = env[name]
  registered.set(name, value === undefined || value.length < 8 ? registered.get(name) : value)
}

/** The names registered so far (sorted). */
export function registeredSecretEnv(): readonly string[] {
  return [...registered.keys()].sort()
}

export interface EnvironmentPolicy {
  /** More names to pass: exact names, or a prefix ending in `*` (`MYAPP_*`). */
  readonly allow?: readonly string[]
}

/** Problems with a configured allowlist: every name that can never be passed, with why. */
export function environmentProblems(policy: EnvironmentPolicy | undefined): string[] {
  const problems: string[] = []
  for (const entry of policy?.allow ?? []) {
    if (typeof entry !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(entry)) {
      problems.push(
        `${JSON.stringify(entry)} is not a variable name (letters, digits, _; optionally ending in *)`,
      )
    } else if (isSecretName(entry.replace(/\*$/, ''))) {
      problems.push(
        `${entry} looks like a credential or a way to a host service; bash never gets it (run the command that needs it yourself)`,
      )
    }
  }
  return problems
}

function allowed(name: string, patterns: readonly string[]): boolean {
  for (const p of patterns) {
    if (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p) return true
  }
  return false
}

/**
 * The environment for bash: the allowlisted names of `source` (default and configured), minus
 * credential-looking and registered ones and any value holding a registered secret.
 */
export function bashEnvironment(
  source: NodeJS.ProcessEnv,
  policy: EnvironmentPolicy | undefined,
): Record<string, string> {
  const patterns = [...ENV_ALLOWLIST, ...(policy?.allow ?? [])]
  const secrets = [...registered.values()].filter((v): v is string => v !== undefined)
  const out: Record<string, string> = {}
  for (const name of Object.keys(source).sort()) {
    const value = source[name]
    if (value === undefined || !allowed(name, patterns)) continue
    if (isSecretName(name) || registered.has(name)) continue
    if (secrets.some((s) => value.includes(s))) continue
    out[name] = value
  }
  return out
}

/**
 * Git configuration for every git command bash runs, through git's environment configuration
 * (the highest precedence: a repository's or the user's config cannot override it; issue 11 §8):
 * - `safe.bareRepository=explicit`: a directory that merely looks like a bare repository (HEAD,
 *   objects/, refs/, config written as plain files) is not used as one unless named with
 *   --git-dir, so its config cannot name programs to run.
 * - `core.fsmonitor=false`: no fsmonitor program runs on status, diff, add.
 * External diff drivers, textconv and filters stay as the user's configuration defines them: the
 * model cannot define one (repository config, its includes and the user's config are read-only in
 * every sandbox and protected in the permission table), and git 2.39 has no setting that turns
 * them all off (an empty `diff.external` breaks `git diff`). `extra` (the user's own entries) is
 * applied after these, so the user can opt back in.
 */
export const GIT_SAFE_CONFIG: readonly (readonly [string, string])[] = Object.freeze([
  ['safe.bareRepository', 'explicit'],
  ['core.fsmonitor', 'false'],
])

export function gitConfigEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const entries = [...GIT_SAFE_CONFIG, ...Object.entries(extra)]
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) }
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  return env
}
