import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { BashAnalysis } from './bash.js'
import type { BashProtectedHit } from './bash-paths.js'
import type { ToolSpec } from './categories.js'
import { MODE_DEFAULTS } from './mode-default.js'
import { realPath } from './paths.js'
import { type ProtectedPath, protectedPathsFor } from './protected.js'
import { loadRuleList, loadSettingsFile, PermissionSettingsError } from './settings.js'
import type { ApprovalPolicy, LoadedRule, Preset, Rule } from './types.js'

export interface PermissionOptions {
  /** The workspace root. */
  readonly root: string
  /** Default 'workspace-write'. */
  readonly preset?: Preset
  /** Default 'on-request'. 'never' = headless: an ask becomes a denial. */
  readonly approvalPolicy?: ApprovalPolicy
  /** Rules given in code (highest in provenance order, same precedence by action). */
  readonly rules?: readonly Rule[]
  /** Default `<root>/.toolgate/settings.json`; `null` for none. */
  readonly projectSettingsPath?: string | null
  /** Default `~/.toolgate/settings.json`; `null` for none. */
  readonly userSettingsPath?: string | null
  /** The home directory for `~` (default `os.homedir()`; tests inject a temp dir). */
  readonly home?: string
  /**
   * Whether bash commands run confined (bubblewrap, see `confine`). When true, workspace-write runs
   * non-destructive commands without asking (seed 003 §8.5 "sandbox auto-allow"); when false
   * (default, fail closed) every bash command that is not read-only asks.
   */
  readonly sandboxed?: boolean
  /** Replaces DEFAULT_RULES. */
  readonly defaults?: readonly Rule[]
  /** Replaces the protected-path table (default `protectedPathsFor(root)`; extend it by spreading PROTECTED_PATHS). */
  readonly protectedPaths?: readonly ProtectedPath[]
  /** Categories of further tools (MCP, plugins); unknown tools ask unless a rule names them. */
  readonly tools?: Readonly<Record<string, ToolSpec>>
}

/** Built-in rules (source 'defaults'): publishing is visible to others, so it is confirmed. */
export const DEFAULT_RULES: readonly Rule[] = Object.freeze([
  { action: 'ask', rule: 'bash(git push:*)' },
  { action: 'ask', rule: 'bash(npm publish:*)' },
] satisfies Rule[])

/**
 * An engine's configuration, resolved once when it is created: the preset, the workspace root (its
 * real path and the spelling given), the home directory (both spellings), the protected-path
 * table, the settings files, and every rule loaded from code, the project, the user and the
 * defaults, in provenance order and split by action. Every step of the chain reads this and
 * nothing else that could change during the session, so a decision depends only on it, the call
 * and the session's grants.
 */
export interface EngineSetup {
  readonly preset: Preset
  readonly approvalPolicy: ApprovalPolicy
  /** The workspace root's real path (symbolic links resolved). */
  readonly root: string
  /** The workspace root as given, made absolute. */
  readonly rootLexical: string
  readonly home: string
  /** The home directory as given and its real path (one entry when they are the same). */
  readonly homes: readonly string[]
  readonly table: readonly ProtectedPath[]
  readonly sandboxed: boolean
  readonly tools: Readonly<Record<string, ToolSpec>> | undefined
  readonly projectSettingsPath: string | undefined
  readonly userSettingsPath: string | undefined
  readonly rules: readonly LoadedRule[]
  readonly denyRules: readonly LoadedRule[]
  readonly askRules: readonly LoadedRule[]
  readonly allowRules: readonly LoadedRule[]
  /** The protected paths each bash analysis may touch, computed once per analysis (`bashHits`). */
  readonly bashHitsCache: WeakMap<BashAnalysis, BashProtectedHit[]>
}

/** Validates the options and loads every rule; a bad setting throws `PermissionSettingsError`. */
export function resolveSetup(options: PermissionOptions): EngineSetup {
  const preset: Preset = options.preset ?? 'workspace-write'
  const approvalPolicy: ApprovalPolicy = options.approvalPolicy ?? 'on-request'
  if (!Object.hasOwn(MODE_DEFAULTS, preset))
    throw new PermissionSettingsError([`options: unknown preset ${JSON.stringify(preset)}`])
  if (approvalPolicy !== 'on-request' && approvalPolicy !== 'never') {
    throw new PermissionSettingsError([`options: unknown approvalPolicy ${JSON.stringify(approvalPolicy)}`])
  }
  const rootLexical = resolve(options.root)
  const root = realPath(rootLexical) ?? rootLexical
  const home = resolve(options.home ?? homedir())
  const homes = [...new Set([home, realPath(home) ?? home])]
  const table = options.protectedPaths ?? protectedPathsFor(root, { home })
  const projectSettingsPath =
    options.projectSettingsPath === null
      ? undefined
      : (options.projectSettingsPath ?? join(rootLexical, '.toolgate', 'settings.json'))
  const userSettingsPath =
    options.userSettingsPath === null
      ? undefined
      : (options.userSettingsPath ?? join(home, '.toolgate', 'settings.json'))

  const loaded = [
    loadRuleList(options.rules ?? [], 'options'),
    projectSettingsPath === undefined
      ? { rules: [], problems: [] }
      : loadSettingsFile(projectSettingsPath, 'project'),
    userSettingsPath === undefined ? { rules: [], problems: [] } : loadSettingsFile(userSettingsPath, 'user'),
    loadRuleList(options.defaults ?? DEFAULT_RULES, 'defaults'),
  ]
  const problems = loaded.flatMap((l) => l.problems)
  if (problems.length > 0) throw new PermissionSettingsError(problems)
  const rules = Object.freeze(loaded.flatMap((l) => l.rules))
  return {
    preset,
    approvalPolicy,
    root,
    rootLexical,
    home,
    homes,
    table,
    sandboxed: options.sandboxed === true,
    tools: options.tools,
    projectSettingsPath,
    userSettingsPath,
    rules,
    denyRules: rules.filter((r) => r.action === 'deny'),
    askRules: rules.filter((r) => r.action === 'ask'),
    allowRules: rules.filter((r) => r.action === 'allow'),
    bashHitsCache: new WeakMap(),
  }
}
