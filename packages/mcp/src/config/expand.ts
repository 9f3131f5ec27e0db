// `${VAR}` and `${VAR:-default}` in configuration strings (the syntax .mcp.json users write).
// A variable that is not set and has no default is a problem, not an empty string: a server
// started with half its configuration fails in ways nobody can read.

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

export type Expanded =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly missing: string[] }

export function expandVars(text: string, env: Readonly<Record<string, string | undefined>>): Expanded {
  const missing: string[] = []
  const value = text.replace(PATTERN, (_m, name: string, fallback: string | undefined) => {
    const v = env[name]
    if (v !== undefined && v !== '') return v
    if (fallback !== undefined) return fallback
    missing.push(name)
    return ''
  })
  return missing.length === 0 ? { ok: true, value } : { ok: false, missing }
}
