// The environment of a stdio server. A server is third-party code: it gets an allowlist of the
// host's variables (what programs need to run: PATH, HOME, locale, temp dir, terminal type) and
// the variables its configuration names in `env`. Nothing else — in particular no variable that
// looks like a credential, even if someone adds it to the allowlist below by mistake.

const ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
])
const ALLOWED_PREFIX = /^LC_[A-Z]+$/
/** Names that look like a secret: never inherited. */
export const CREDENTIAL_NAME =
  /(KEY|TOKEN|SECRET|PASS(WORD|WD)?|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT)/i

export function childEnvironment(
  host: Readonly<Record<string, string | undefined>>,
  configured: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined) continue
    if (!ALLOWED.has(name) && !ALLOWED_PREFIX.test(name)) continue
    if (CREDENTIAL_NAME.test(name)) continue
    // Exported shell functions (`BASH_FUNC_x%%`, values starting with "()") are code, not data.
    if (value.startsWith('()')) continue
    env[name] = value
  }
  // What the configuration names explicitly is the user's decision (and part of the approval hash).
  for (const [name, value] of Object.entries(configured)) env[name] = value
  return env
}
