// Tools whose schemas come from third-party code (MCP servers: `mcp__<server>__<tool>`, the name
// the bridge in @toolgate/mcp gives them) are never sent strict (seed 003 §11.6 (3): "MCP tools
// do not get strict", §12.2: the `mcp__` prefix is what the registry keys this on). A foreign
// schema is whatever its server's generator emits; forcing it through a strict decoder turns a
// server's quirk into constrained decoding the user never chose. They go in the lenient dialect,
// which still rewrites what the wire refuses (root combinators, legacy drafts), and the runtime
// validates the arguments against the server's own schema before the call runs.

/** The name prefix of tools that come from MCP servers. */
export const FOREIGN_TOOL_PREFIX = 'mcp__'

export function isForeignTool(name: string): boolean {
  return name.startsWith(FOREIGN_TOOL_PREFIX)
}
