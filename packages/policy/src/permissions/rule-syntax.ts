import { normalizeCommand } from '../shell/normalize.js'
import { globToRegExp } from './glob.js'
import type { RuleMatcher } from './types.js'

/**
 * Rule text -> matcher. Rules are hostile input (a project file comes with a cloned repository), so
 * anything not understood is an error that names the problem, never a rule that silently matches
 * nothing or everything.
 *
 *   bash                 every bash call          mcp__github__*    every tool named so
 *   bash(git status)     that simple command      bash(npm run test:*)  those words, then anything
 *   read(src/**)         read tools on paths      edit(docs/**)     edit AND write on paths
 */

/** Tools whose argument pattern is a path glob, and which access it governs. */
const PATH_RULE_TOOLS = {
  read: 'read',
  ls: 'read',
  glob: 'read',
  grep: 'read',
  edit: 'write',
  write: 'write',
} as const satisfies Record<string, 'read' | 'write'>

const TOOL_NAME = /^[A-Za-z0-9_*-]+$/
const BUILTIN_CAPITALIZED = new Set(['Bash', 'Read', 'Edit', 'Write', 'Ls', 'Glob', 'Grep', 'LS'])
export const MAX_RULE_LENGTH = 1000

export type ParsedRule =
  | { readonly ok: true; readonly matcher: RuleMatcher }
  | { readonly ok: false; readonly problem: string }

const fail = (problem: string): ParsedRule => ({ ok: false, problem })

export function parseRule(text: string): ParsedRule {
  if (text.length > MAX_RULE_LENGTH) return fail(`the rule is longer than ${MAX_RULE_LENGTH} characters`)
  const rule = text.trim()
  if (rule === '') return fail('the rule is empty')
  const open = rule.indexOf('(')
  const name = open < 0 ? rule : rule.slice(0, open)
  if (!TOOL_NAME.test(name)) {
    return fail(`'${name}' is not a tool name (letters, digits, '_', '-', and '*' as a wildcard)`)
  }
  if (BUILTIN_CAPITALIZED.has(name)) {
    return fail(`tool names are lowercase: write '${name.toLowerCase()}${open < 0 ? '' : rule.slice(open)}'`)
  }
  if (open < 0) {
    if (/\*\*/.test(name)) return fail("a tool-name wildcard is a single '*'")
    return { ok: true, matcher: { kind: 'tool', tool: name, pattern: toolNamePattern(name) } }
  }
  if (!rule.endsWith(')')) return fail("the argument pattern must end with ')'")
  const spec = rule.slice(open + 1, -1).trim()
  if (name.includes('*')) return fail('a tool-name wildcard cannot take an argument pattern')
  if (spec === '') return fail(`the argument pattern is empty; write '${name}' to match every ${name} call`)
  if (spec === '*' || spec === '**')
    return { ok: true, matcher: { kind: 'tool', tool: name, pattern: toolNamePattern(name) } }
  if (name === 'bash') return parseBashSpec(spec)
  const access = (PATH_RULE_TOOLS as Record<string, 'read' | 'write' | undefined>)[name]
  if (access !== undefined) return parsePathSpec(spec, access)
  return fail(
    `'${name}' takes no argument pattern (only bash and the path tools ${Object.keys(PATH_RULE_TOOLS).join(', ')} do); write '${name}' to match the whole tool`,
  )
}

function toolNamePattern(name: string): RegExp {
  return new RegExp(
    `^${name
      .split('*')
      .map((p) => p.replace(/[-]/g, '\\-'))
      .join('.*')}$`,
  )
}

function parsePathSpec(spec: string, access: 'read' | 'write'): ParsedRule {
  let glob = spec
  while (glob.startsWith('./')) glob = glob.slice(2)
  if (glob.includes('\0')) return fail('the path pattern contains a NUL byte')
  if (glob.split('/').includes('..'))
    return fail("path patterns may not contain '..'; write an absolute path instead")
  if (glob.startsWith('//')) return fail("the path pattern starts with '//'")
  const anchor = glob.startsWith('/') || glob.startsWith('~/') ? 'absolute' : 'workspace'
  if (glob.startsWith('~') && !glob.startsWith('~/'))
    return fail("only '~/' is understood as the home directory")
  try {
    // Absolute globs keep their leading '/', home globs are expanded when matched (see engine).
    const pattern = globToRegExp(anchor === 'absolute' && glob.startsWith('~/') ? glob.slice(2) : glob)
    return { ok: true, matcher: { kind: 'path', access, glob, pattern, anchor } }
  } catch (error) {
    return fail((error as Error).message)
  }
}

/**
 * A bash rule names one simple command: words, optionally followed by `:*` (those words, then any
 * further arguments). Shell operators, substitutions and other wildcards are refused: a rule that
 * looks like `git status && rm -rf x` would otherwise read as a promise nobody keeps.
 */
function parseBashSpec(spec: string): ParsedRule {
  let body = spec
  let prefix = false
  if (body.endsWith(':*')) {
    prefix = true
    body = body.slice(0, -2).trimEnd()
    if (body === '') return fail("'bash(:*)' names no command; write 'bash' to match every bash call")
  }
  const words = splitRuleWords(body)
  if (typeof words === 'string') return fail(words)
  if (words.length === 0) return fail('the bash pattern names no command')
  const normalized = normalizeCommand(words) as string[]
  return { ok: true, matcher: { kind: 'bash', words, normalized, prefix } }
}

/** Split the words of a bash rule (quotes and backslashes as in the shell); a string is the problem. */
export function splitRuleWords(text: string): string[] | string {
  const words: string[] = []
  let current = ''
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === ' ' || ch === '\t') {
      if (inWord) words.push(current)
      current = ''
      inWord = false
      continue
    }
    inWord = true
    if (ch === "'") {
      const end = text.indexOf("'", i + 1)
      if (end < 0) return 'unclosed single quote in the bash pattern'
      current += text.slice(i + 1, end)
      i = end
    } else if (ch === '"') {
      let j = i + 1
      for (; j < text.length && text[j] !== '"'; j++) {
        const c = text[j]!
        if (c === '$' || c === '`')
          return "'$' and '`' are not allowed in a bash pattern (a rule names fixed words)"
        if (c === '\\' && j + 1 < text.length) {
          j++
          current += text[j]!
        } else current += c
      }
      if (j >= text.length) return 'unclosed double quote in the bash pattern'
      i = j
    } else if (ch === '\\') {
      if (i + 1 >= text.length) return 'a trailing backslash in the bash pattern'
      current += text[++i]!
    } else if (';&|<>()$`\n'.includes(ch)) {
      return `'${ch}' is not allowed in a bash pattern: a rule names one simple command (no operators, redirects or substitutions)`
    } else if (ch === '*' || ch === '?' || ch === '[') {
      return `'${ch}' is not supported in a bash pattern; the only wildcard is a trailing ':*' (prefix match)`
    } else current += ch
  }
  if (inWord) words.push(current)
  return words
}
