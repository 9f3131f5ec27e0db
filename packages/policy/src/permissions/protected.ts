import { globToRegExp } from './glob.js'
import type { ResolvedPath } from './paths.js'

/**
 * Protected paths: bypass-immune (seed 003 §8.1 layer ②), checked before any ask/allow rule and in
 * every preset, danger-full-access included. Matched against both the path as written and its real
 * path (symlinks resolved), so a link cannot launder a protected target.
 *
 * ORDER MATTERS (seed 003 §8.3): the first entry that matches decides, so the more specific or
 * stricter entry must come first — `.git/hooks/` (deny) before `.git/` (ask), `.env.example`
 * (exempt) before `.env*` (ask). A test swaps them and shows the decision change.
 */
export interface ProtectedPath {
  /** Glob over absolute paths; `~/` is the home directory, `**` spans directories. */
  readonly pattern: string
  /** Which access it governs: reading the file, writing it, or both. */
  readonly access: 'read' | 'write' | 'any'
  /**
   * `deny`: never, whatever the rules or preset (runs code or leaks credentials).
   * `ask`: only a person may allow it, once (never an allow rule, never headless).
   * `exempt`: explicitly not protected (stops the scan; later entries do not apply).
   */
  readonly action: 'deny' | 'ask' | 'exempt'
  /** Why, for the person and the model. */
  readonly reason: string
}

const SHELL_RC =
  '.bashrc,.bash_profile,.bash_login,.bash_logout,.profile,.zshrc,.zshenv,.zprofile,.zlogin,.zlogout,.kshrc,.cshrc,.tcshrc,.inputrc'

export const PROTECTED_PATHS: readonly ProtectedPath[] = Object.freeze([
  {
    pattern: '~/.ssh/**',
    access: 'any',
    action: 'deny',
    reason: 'SSH keys and configuration: reading them leaks credentials, changing them grants access',
  },
  { pattern: '~/.aws/**', access: 'any', action: 'deny', reason: 'cloud credentials' },
  { pattern: '~/.gnupg/**', access: 'any', action: 'deny', reason: 'private signing and encryption keys' },
  {
    pattern: '**/.git/hooks/**',
    access: 'write',
    action: 'deny',
    reason: 'git hooks run as code on the next git command',
  },
  {
    pattern: '**/.git/config',
    access: 'write',
    action: 'deny',
    reason: 'git configuration can name programs that git runs (core.hooksPath, core.fsmonitor, aliases)',
  },
  {
    pattern: '**/.git/**',
    access: 'write',
    action: 'ask',
    reason: 'repository internals; change them through git commands instead',
  },
  {
    pattern: '**/.toolgate/**',
    access: 'write',
    action: 'deny',
    reason: "toolgate's own settings decide what the agent may do; only a person edits them",
  },
  {
    pattern: `**/{${SHELL_RC}}`,
    access: 'write',
    action: 'deny',
    reason: 'shell startup files run as code in every new shell',
  },
  {
    pattern: '**/{.env.example,.env.sample,.env.template}',
    access: 'read',
    action: 'exempt',
    reason: 'example environment files hold no secrets by convention',
  },
  {
    pattern: '**/.env*',
    access: 'read',
    action: 'ask',
    reason: 'environment files usually hold secrets (API keys, passwords)',
  },
] satisfies ProtectedPath[])

export interface ProtectedHit {
  readonly entry: ProtectedPath
  /** The absolute path that matched (as written or real). */
  readonly path: string
}

interface CompiledTable {
  readonly entries: readonly { readonly entry: ProtectedPath; readonly re: RegExp; readonly home: boolean }[]
}

const compiled = new WeakMap<readonly ProtectedPath[], CompiledTable>()

function compile(table: readonly ProtectedPath[]): CompiledTable {
  let c = compiled.get(table)
  if (c === undefined) {
    c = {
      entries: table.map((entry) => {
        const home = entry.pattern.startsWith('~/')
        return { entry, re: globToRegExp(home ? entry.pattern.slice(2) : entry.pattern), home }
      }),
    }
    compiled.set(table, c)
  }
  return c
}

/** First matching entry for one absolute path and one access, or `undefined`. */
export function firstMatch(
  table: readonly ProtectedPath[],
  absolute: string,
  access: 'read' | 'write',
  home: string,
): ProtectedPath | undefined {
  for (const { entry, re, home: homeAnchored } of compile(table).entries) {
    if (entry.access !== 'any' && entry.access !== access) continue
    let subject = absolute
    if (homeAnchored) {
      if (absolute === home) subject = ''
      else if (absolute.startsWith(`${home}/`)) subject = absolute.slice(home.length + 1)
      else continue
    }
    if (re.test(subject)) return entry
  }
  return undefined
}

/**
 * The strictest verdict over a path's written and real forms: deny beats ask; exempt and no match
 * are nothing. An unresolvable real path (a symlink loop) counts as a deny-worthy unknown.
 */
export function checkProtected(
  table: readonly ProtectedPath[],
  path: ResolvedPath,
  access: 'read' | 'write',
  homes: readonly string[],
): ProtectedHit | undefined {
  let ask: ProtectedHit | undefined
  const forms =
    path.real === undefined || path.real === path.lexical ? [path.lexical] : [path.lexical, path.real]
  for (const form of forms) {
    for (const home of homes) {
      const entry = firstMatch(table, form, access, home)
      if (entry === undefined || entry.action === 'exempt') continue
      if (entry.action === 'deny') return { entry, path: form }
      ask ??= { entry, path: form }
    }
  }
  return ask
}
