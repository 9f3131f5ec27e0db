import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { compileGlob, type GlobMatcher } from '../glob/glob-match.js'
import { compileGlobSet, type GlobSet } from '../glob/glob-set.js'
import { AUTO_RUN_PATHS, HOME_GIT_CONFIG, SHELL_RC_FILES } from '../sandbox/auto-run.js'
import { CREDENTIAL_STORES, HOST_SECRET_PATHS } from '../sandbox/credential-stores.js'
import { gitLayout, inside } from '../sandbox/git-layout.js'
import { type ResolvedPath, realPath } from './paths.js'

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

const SHELL_RC = SHELL_RC_FILES.join(',')

/** The credential stores (shared with the sandbox's empty mounts, so the two cannot drift). */
function credentialEntries(): ProtectedPath[] {
  return CREDENTIAL_STORES.map((store) => ({
    pattern: `~/${globLiteral(store.path)}${store.kind === 'dir' ? '/**' : ''}`,
    access: 'any' as const,
    action: 'deny' as const,
    reason: store.reason,
  }))
}

/** Files that run as code without the person invoking them (shared with the sandbox profile). */
function autoRunEntries(): ProtectedPath[] {
  return AUTO_RUN_PATHS.map((auto) => ({
    pattern: `**/${globLiteral(auto.path)}${auto.kind === 'dir' ? '/**' : ''}`,
    access: 'write' as const,
    action: 'deny' as const,
    reason: auto.reason,
  }))
}

export const PROTECTED_PATHS: readonly ProtectedPath[] = Object.freeze([
  ...credentialEntries(),
  ...HOST_SECRET_PATHS.map((secret) => ({
    pattern: secret.pattern,
    access: 'any' as const,
    action: 'deny' as const,
    reason: secret.reason,
  })),
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
    // Submodule and worktree gitdirs (`.git/modules/x/`, `.git/worktrees/x/`) and the files that
    // redirect git to another configuration (`commondir`, `config.worktree`, `gitdir`).
    pattern: '**/.git/**/hooks/**',
    access: 'write',
    action: 'deny',
    reason: 'git hooks run as code on the next git command',
  },
  {
    pattern: '**/.git/**/{config,config.worktree,commondir,gitdir}',
    access: 'write',
    action: 'deny',
    reason: 'git configuration, or a pointer to one, can name programs that git runs',
  },
  {
    pattern: '**/.git/**',
    access: 'write',
    action: 'ask',
    reason: 'repository internals; change them through git commands instead',
  },
  ...autoRunEntries(),
  ...HOME_GIT_CONFIG.map((config) => ({
    pattern: `~/${config.path}${config.kind === 'dir' ? '/**' : ''}`,
    access: 'write' as const,
    action: 'deny' as const,
    reason: 'git configuration can name programs that git runs (core.hooksPath, core.fsmonitor, aliases)',
  })),
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

/**
 * The table for one workspace: `PROTECTED_PATHS`, then what this repository's configuration adds
 * (every `core.hooksPath`, every configuration file git may include from inside the workspace: both
 * run or name code), then the configured credential stores. Read from the files on the host
 * (`gitLayout`), never by running git.
 */
export function protectedPathsFor(
  root: string,
  options: { readonly home?: string; readonly credentialStores?: readonly string[] } = {},
): readonly ProtectedPath[] {
  const home = options.home ?? homedir()
  const realRoot = realPath(resolve(root)) ?? resolve(root)
  const layout = gitLayout(realRoot, home)
  const extra: ProtectedPath[] = []
  for (const dir of layout.hooks) {
    if (!inside(realRoot, dir)) continue
    extra.push({
      pattern: `${globLiteral(dir)}/**`,
      access: 'write',
      action: 'deny',
      reason: 'git runs the hooks in this directory (core.hooksPath)',
    })
  }
  for (const file of layout.configFiles) {
    if (!inside(realRoot, file)) continue
    extra.push({
      pattern: globLiteral(file),
      access: 'write',
      action: 'deny',
      reason: 'git reads this file as configuration, which can name programs that git runs',
    })
  }
  for (const store of options.credentialStores ?? []) {
    const abs = store.startsWith('~/') || store === '~' ? store : resolve(realRoot, store)
    extra.push({
      pattern: `${globLiteral(abs)}/**`,
      access: 'any',
      action: 'deny',
      reason: 'a credential store (configured)',
    })
  }
  return extra.length === 0 ? PROTECTED_PATHS : Object.freeze([...extra, ...PROTECTED_PATHS])
}

/**
 * A path as a glob that matches it at least. A glob character or a backslash (the escape) becomes
 * `?` (any one character but `/`): the entry then covers a little more than the path, never less,
 * and the table stays free of escapes and classes (reach.ts compares table patterns as `*`, `?`,
 * `**`, `{a,b}` and literals only).
 */
function globLiteral(path: string): string {
  return path.replace(/[*?{}[\]\\]/g, '?')
}

export interface ProtectedHit {
  readonly entry: ProtectedPath
  /** The absolute path that matched (as written or real). */
  readonly path: string
}

interface CompiledTable {
  readonly entries: readonly {
    readonly entry: ProtectedPath
    readonly re: GlobMatcher
    readonly home: boolean
  }[]
  /** Whether any absolute entry matches / any home-anchored entry matches (a path under a home). */
  readonly anyAbsolute: GlobSet
  readonly anyHome: GlobSet
}

// Case folded: on a case-insensitive file system (macOS, ext4 casefold directories) `.GIT/config`
// is `.git/config`; on others the extra matches only ask or deny more.
const FOLD = { caseInsensitive: true } as const

const compiled = new WeakMap<readonly ProtectedPath[], CompiledTable>()

function compile(table: readonly ProtectedPath[]): CompiledTable {
  let c = compiled.get(table)
  if (c === undefined) {
    const entries = table.map((entry) => {
      const home = entry.pattern.startsWith('~/')
      return { entry, re: compileGlob(home ? entry.pattern.slice(2) : entry.pattern, FOLD), home }
    })
    const patterns = (home: boolean) => entries.filter((e) => e.home === home).map((e) => e.re.pattern)
    c = {
      entries,
      anyAbsolute: compileGlobSet(patterns(false), FOLD),
      anyHome: compileGlobSet(patterns(true), FOLD),
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
  const c = compile(table)
  const belowHome =
    absolute === home ? '' : absolute.startsWith(`${home}/`) ? absolute.slice(home.length + 1) : undefined
  // Most paths match no entry: one test of each set says so, without the ordered scan.
  if (!c.anyAbsolute.test(absolute) && (belowHome === undefined || !c.anyHome.test(belowHome)))
    return undefined
  for (const { entry, re, home: homeAnchored } of c.entries) {
    if (entry.access !== 'any' && entry.access !== access) continue
    const subject = homeAnchored ? belowHome : absolute
    if (subject !== undefined && re.test(subject)) return entry
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
