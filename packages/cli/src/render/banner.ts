// The lines a session starts with: what talks to what, where, and which sandbox is in force.
import type { Endpoint } from '../endpoint.js'
import type { Style } from './colors.js'
import { terminalSafe } from './terminal-text.js'

/** The lines before the first task: what talks to what, where, and how bash is confined. */
export function banner(
  style: Style,
  command: string,
  endpoint: Endpoint,
  root: string,
  session: { readonly sandbox: string },
): string {
  return [
    `${style.bold(`toolgate ${command}`)} ${style.dim(`— ${endpoint.provider} ${endpoint.model}${endpoint.baseUrl ? ` @ ${endpoint.baseUrl}` : ''}`)}`,
    `${style.dim('workspace')} ${terminalSafe(root)}`,
    // wiring's sandboxLine: the preset's profile, or why there is none.
    `${style.dim('sandbox')}   ${session.sandbox}`,
    '',
    '',
  ].join('\n')
}
