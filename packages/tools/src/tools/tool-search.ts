// tool_search {query}: find and load deferred tools (seed 003 §10.3). Deferred tools are not in
// tools[]; the model learns their names from the per-turn announcement and loads one with
// `select:<name>`; it joins tools[] from the next request, appended so the cached prefix stays.
// Keyword search is the only search on wires without a native one, so it is careful (§10.4):
// names split on `__`, `_`, `-` and camelCase, word-boundary matching ("read" never matches
// "already"), `+term` required, server name and searchHint weighted above the description.
// When nothing matches and MCP servers are still connecting, it says so and names them (§12.4).
// It knows nothing of MCP: it takes a catalog and a `() => string[]` of pending servers.
import { defineTool, type ToolSchema } from '@toolgate/core'
import { z } from 'zod'

/** What tool_search needs from whoever owns deferral (the agent loop's DeferredTools). */
export interface DeferredCatalog {
  /** Deferred tools not loaded yet, as the model would see them once loaded. */
  deferred(): readonly (ToolSchema & { readonly searchHint?: string })[]
  /** Load these tools from the next request on; returns the names that were deferred. */
  activate(names: readonly string[]): readonly string[]
  /** Whether a name is a tool already in tools[]. */
  loaded(name: string): boolean
}

export interface ToolSearchOptions {
  readonly catalog: DeferredCatalog
  /** Names of tool servers still connecting. */
  readonly pendingServers?: () => readonly string[]
  /** Results per keyword search (default 5). */
  readonly maxResults?: number
}

export const TOOL_SEARCH_DESCRIPTION = [
  'Find and load deferred tools. Deferred tools are listed by name in <deferred-tools> notes but are not loaded: you cannot call one until it is loaded.',
  'Search with keywords ("create issue", "+github pull request"; +word means required), or load tools by exact name with "select:<name>" or "select:<name1>,<name2>".',
  'A loaded tool can be called from your next step on.',
].join(' ')

export const toolSearchParameters = z.object({
  query: z
    .string()
    .min(1)
    .max(500)
    .describe('Keywords, or "select:<name>[,<name>...]" to load tools by exact name.'),
})

const valueSchema = z.object({
  mode: z.enum(['search', 'select']),
  matches: z.array(z.object({ name: z.string(), description: z.string() })),
  activated: z.array(z.string()),
  unknown: z.array(z.string()),
  alreadyLoaded: z.array(z.string()),
  pending: z.array(z.string()),
})
export type ToolSearchValue = z.infer<typeof valueSchema>

/** Words of a tool name: `mcp__github__createIssue` -> mcp, github, create, issue. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase())
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

export function scoreTool(
  tool: ToolSchema & { readonly searchHint?: string },
  terms: readonly string[],
): number {
  const words = nameWords(tool.name)
  const isMcp = words[0] === 'mcp' && tool.name.startsWith('mcp__')
  const server = isMcp ? nameWords(tool.name.split('__')[1] ?? '') : []
  const own = isMcp ? nameWords(tool.name.split('__').slice(2).join('__')) : words
  let score = 0
  for (const term of terms) {
    const boundary = new RegExp(`\\b${escapeRegExp(term)}`, 'i')
    let s = 0
    if (server.includes(term)) s = Math.max(s, 12)
    if (own.includes(term)) s = Math.max(s, 10)
    else if (own.some((w) => w.startsWith(term))) s = Math.max(s, 6)
    if (tool.searchHint && boundary.test(tool.searchHint)) s = Math.max(s, 4)
    if (boundary.test(tool.description)) s = Math.max(s, 2)
    score += s
  }
  return score
}

export function toolSearchTool(options: ToolSearchOptions) {
  const max = options.maxResults ?? 5
  return defineTool({
    name: 'tool_search',
    description: TOOL_SEARCH_DESCRIPTION,
    parameters: toolSearchParameters,
    output: {
      schema: valueSchema,
      render: (args, value: ToolSearchValue) => [{ type: 'text', text: renderSearch(args.query, value) }],
    },
    isConcurrencySafe: () => false,
    execute(args): ToolSearchValue {
      const query = args.query.trim()
      const pending = [...(options.pendingServers?.() ?? [])].sort()
      const deferred = options.catalog.deferred()
      const empty = { matches: [], activated: [], unknown: [], alreadyLoaded: [], pending }
      if (query.startsWith('select:')) {
        const names = [
          ...new Set(
            query
              .slice(7)
              .split(',')
              .map((n) => n.trim())
              .filter((n) => n !== ''),
          ),
        ]
        const known = new Set(deferred.map((t) => t.name))
        const wanted = names.filter((n) => known.has(n))
        const activated = [...options.catalog.activate(wanted)]
        return {
          ...empty,
          mode: 'select',
          activated,
          alreadyLoaded: names.filter((n) => !known.has(n) && options.catalog.loaded(n)),
          unknown: names.filter((n) => !known.has(n) && !options.catalog.loaded(n)),
        }
      }
      const terms: string[] = []
      const required: string[] = []
      for (const raw of query.toLowerCase().split(/\s+/)) {
        const t = raw.replace(/^\+/, '')
        for (const w of nameWords(t)) {
          terms.push(w)
          if (raw.startsWith('+')) required.push(w)
        }
      }
      const scored = deferred
        .map((tool) => ({ tool, score: scoreTool(tool, terms) }))
        .filter(({ tool, score }) => score > 0 && required.every((r) => scoreTool(tool, [r]) > 0))
        .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1))
        .slice(0, max)
      return {
        ...empty,
        mode: 'search',
        matches: scored.map(({ tool }) => ({
          name: tool.name,
          description: firstSentence(tool.description),
        })),
      }
    },
    presentCall: (args) => ({ card: 'generic', title: `Tool search ${args.query}`, kind: 'search' }),
  })
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? ''
  return line.length <= 200 ? line : `${line.slice(0, 199)}…`
}

/** The model-visible text (README "Model experience" quotes each form). */
export function renderSearch(query: string, v: ToolSearchValue): string {
  const lines: string[] = []
  const pendingNote =
    v.pending.length > 0
      ? `Tool servers still connecting: ${v.pending.join(', ')}. Their tools are not listed yet; search again in a moment.`
      : ''
  if (v.mode === 'select') {
    if (v.activated.length > 0)
      lines.push(
        `Loaded ${v.activated.join(', ')}. ${v.activated.length === 1 ? 'It' : 'They'} can be called from your next step on.`,
      )
    if (v.alreadyLoaded.length > 0)
      lines.push(`Already loaded (call directly): ${v.alreadyLoaded.join(', ')}.`)
    if (v.unknown.length > 0) {
      lines.push(
        `No deferred tool is named ${v.unknown.map((n) => JSON.stringify(n)).join(', ')}. Search with keywords to find the exact name.`,
      )
      if (pendingNote) lines.push(pendingNote)
    }
    return lines.join('\n')
  }
  if (v.matches.length === 0) {
    lines.push(`No deferred tool matches ${JSON.stringify(query)}.`)
    lines.push(pendingNote || 'Try other words, or do the task with the tools you have.')
    return lines.join(' ')
  }
  lines.push(`Deferred tools matching ${JSON.stringify(query)} (not loaded yet):`)
  for (const m of v.matches) lines.push(`- ${m.name}: ${m.description}`)
  lines.push(
    'Load one with tool_search "select:<name>" (several: "select:a,b"); it can be called from your next step on.',
  )
  if (pendingNote) lines.push(pendingNote)
  return lines.join('\n')
}
