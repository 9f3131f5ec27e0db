import { ToolError } from '@toolgate/core'

// The bash tool's failures before its command runs (issue 17: each ends with the one next step
// that can work). The host's error goes in `cause` for the person, not in model text: it can name
// host paths outside the workspace (the bubblewrap binary, a filter file).

/** The process could not be spawned (bash missing from PATH, no memory for a new process). */
export function startError(cause: unknown): ToolError {
  return new ToolError(
    'bash could not be started on this host, so the command was not run. Retry once; if it fails again, use the other tools and ask the user to check that bash is installed and on PATH.',
    { code: 'BASH_START_FAILED', cause },
  )
}

/** The sandbox profile could not be set up (its filter or a mount could not be prepared). */
export function sandboxError(cause: unknown): ToolError {
  return new ToolError(
    'The sandbox for this command could not be prepared, so the command was not run. Retry once; if it fails again, use the other tools and ask the user to check the sandbox (bubblewrap) on this host.',
    { code: 'SANDBOX_FAILED', cause },
  )
}
