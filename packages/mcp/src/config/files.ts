// The configuration files the MCP loader reads, in its order (a later file wins per server name).
// A module of its own with no SDK import, published as `@toolgate/mcp/config-files`: the CLI asks
// "is any server configured?" before deciding to load this package at all (issue 15 §3).
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { ServerSource } from './types.js'

/** Larger configuration files are not read; the loader reports them. */
export const MAX_CONFIG_BYTES = 1 << 20

/** `$TOOLGATE_HOME`, else `~/.toolgate`. */
export function toolgateHome(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.TOOLGATE_HOME
  return configured !== undefined && configured !== '' ? resolve(configured) : join(homedir(), '.toolgate')
}

export interface ConfigFile {
  readonly path: string
  readonly source: ServerSource
}

/**
 * The user's settings (`userSettingsPath`, default `<toolgate home>/settings.json`; `null` for
 * none), then the workspace's `.mcp.json` and `.toolgate/settings.json`.
 */
export function mcpConfigFiles(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  userSettingsPath?: string | null,
): ConfigFile[] {
  const workspace = resolve(root)
  const user = userSettingsPath === undefined ? join(toolgateHome(env), 'settings.json') : userSettingsPath
  return [
    ...(user === null ? [] : [{ path: user, source: 'user-settings' as const }]),
    { path: join(workspace, '.mcp.json'), source: 'project-mcp-json' },
    { path: join(workspace, '.toolgate', 'settings.json'), source: 'project-settings' },
  ]
}
