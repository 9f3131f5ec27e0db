// Whether a session must load @toolgate/mcp at all (issue 15 §3: start-up loads nothing it does not
// need, and the MCP SDK is a large module graph). The answer is "no" only when every configuration
// file the MCP loader reads (`mcpConfigFiles`: the user's settings, `.mcp.json`,
// `.toolgate/settings.json`) is absent, or is a JSON object without `mcpServers`; anything else,
// including a file that cannot be read or parsed, loads the real loader, which reports it (unsure
// means load: a broken file must still reach the user as a problem line).
import { readFileSync, statSync } from 'node:fs'
// The light entry point (no SDK): the very list the loader reads, so the two cannot drift apart.
import { MAX_CONFIG_BYTES, mcpConfigFiles } from '@toolgate/mcp/config-files'

export function mcpConfigured(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  return mcpConfigFiles(root, env).some((file) => mayConfigureServers(file.path))
}

function mayConfigureServers(path: string): boolean {
  let size: number
  try {
    const st = statSync(path)
    if (!st.isFile()) return true
    size = st.size
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
  if (size > MAX_CONFIG_BYTES) return true
  try {
    const doc: unknown = JSON.parse(readFileSync(path, 'utf8'))
    return typeof doc !== 'object' || doc === null || Array.isArray(doc) || 'mcpServers' in doc
  } catch {
    return true
  }
}
