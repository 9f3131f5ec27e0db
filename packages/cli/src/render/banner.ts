// The lines a session starts with: what talks to what, where, and which sandbox is in force.
import type { Endpoint } from '../endpoint.js'
import type { SandboxState, Session } from '../wiring.js'
import type { Style } from './colors.js'
import { terminalSafe } from './terminal-text.js'

/** The lines before the first task: what talks to what, where, and how bash is confined. */
export function banner(
  style: Style,
  command: string,
  endpoint: Endpoint,
  root: string,
  session: Session,
): string {
  return [
    `${style.bold(`toolgate ${command}`)} ${style.dim(`— ${endpoint.provider} ${endpoint.model}${endpoint.baseUrl ? ` @ ${endpoint.baseUrl}` : ''}`)}`,
    `${style.dim('workspace')} ${terminalSafe(root)}`,
    `${style.dim('sandbox')}   ${sandboxLine(session.sandbox)}`,
    '',
    '',
  ].join('\n')
}

export function sandboxLine(sandbox: SandboxState): string {
  switch (sandbox.kind) {
    case 'bubblewrap':
      return sandbox.trusted
        ? 'bubblewrap (bash writes only inside the workspace, no network); commands that are not destructive run without asking'
        : 'bubblewrap (bash writes only inside the workspace, no network); commands that are not read-only still ask'
    case 'none':
      return `none: ${terminalSafe(sandbox.diagnostic)}`
    default: {
      const never: never = sandbox
      return String(never)
    }
  }
}
