// Tool names (seed 003 §12.3 (1)): every MCP tool becomes `mcp__<server>__<tool>`, matching the
// providers' `^[a-zA-Z0-9_-]{1,64}$`. Normalization is lossy ("my server!" and "my_server_" meet),
// so names are assigned from sorted originals: the same inputs give the same names whatever order
// servers connect in (§3.5), and a collision gets a numbered suffix and a report, never a drop.
import { createHash } from 'node:crypto'

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/
const MAX = 64

/** Replace every character outside [a-zA-Z0-9_-] with `_` (an empty name becomes `_`). */
export function normalizeNamePart(name: string): string {
  const out = name.replace(/[^a-zA-Z0-9_-]/g, '_')
  return out === '' ? '_' : out
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6)
}

/** `mcp__<server>__<tool>`, cut to 64 characters with a hash of the original when too long. */
export function buildToolName(serverPart: string, toolName: string): string {
  const prefix = `mcp__${serverPart}__`
  const tool = normalizeNamePart(toolName)
  const full = prefix + tool
  if (full.length <= MAX) return full
  const suffix = `_${shortHash(toolName)}`
  const room = MAX - prefix.length - suffix.length
  // A server name so long that no tool part fits: cut the server part too (still deterministic).
  if (room < 1) return `${`mcp__${serverPart}`.slice(0, MAX - 9)}__${shortHash(prefix + toolName)}`
  return prefix + tool.slice(0, room) + suffix
}

export interface NameCollision {
  readonly kind: 'server' | 'tool'
  /** The server (its configured name) the colliding tool belongs to. */
  readonly server: string
  /** The original name that was renamed. */
  readonly original: string
  /** The name it got. */
  readonly assigned: string
  /** The original that kept the contested name. */
  readonly keptBy: string
}

/**
 * Assign unique names to originals via `base`, in code-point order of the originals: the first
 * keeps the base name, later ones get `_2`, `_3`, ... (cut to fit 64 characters).
 */
export function assignNames(
  originals: readonly string[],
  base: (original: string) => string,
  taken: Set<string> = new Set(),
): { names: Map<string, string>; collisions: { original: string; assigned: string; keptBy: string }[] } {
  const names = new Map<string, string>()
  const owner = new Map<string, string>()
  const collisions: { original: string; assigned: string; keptBy: string }[] = []
  const sorted = [...new Set(originals)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const original of sorted) {
    const wanted = base(original)
    let name = wanted
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`
      name = wanted.slice(0, MAX - suffix.length) + suffix
    }
    taken.add(name)
    names.set(original, name)
    if (name === wanted) owner.set(wanted, original)
    else collisions.push({ original, assigned: name, keptBy: owner.get(wanted) ?? wanted })
  }
  return { names, collisions }
}

/** Server name parts for every configured server, deterministic over the whole configuration. */
export function serverNameParts(servers: readonly string[]): {
  parts: Map<string, string>
  collisions: NameCollision[]
} {
  const { names, collisions } = assignNames(servers, (s) => normalizeNamePart(s).slice(0, 40))
  return {
    parts: names,
    collisions: collisions.map((c) => ({ kind: 'server', server: c.original, ...c })),
  }
}

/** Tool names for one server's tools. */
export function toolNames(
  server: string,
  serverPart: string,
  tools: readonly string[],
): { names: Map<string, string>; collisions: NameCollision[] } {
  const { names, collisions } = assignNames(tools, (t) => buildToolName(serverPart, t))
  return { names, collisions: collisions.map((c) => ({ kind: 'tool', server, ...c })) }
}

export const MAX_DESCRIPTION = 2048

/** Seed 003 §12.3 (2): a third-party description is capped, and the cut is said. */
export function capDescription(description: string | undefined, server: string, tool: string): string {
  const text = (description ?? '').trim()
  if (text === '') return `Tool "${tool}" of the MCP server "${server}" (the server gave no description).`
  if (text.length <= MAX_DESCRIPTION) return text
  // 60 characters are kept for the marker, which says how much was cut.
  let head = text.slice(0, MAX_DESCRIPTION - 60)
  // Never end on half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1)
  const marker = ` […description cut: ${text.length - head.length} more characters]`
  return head + marker
}
