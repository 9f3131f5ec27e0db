import { insideRoot } from './paths.js'
import type { EngineSetup } from './setup.js'
import type { LoadedRule } from './types.js'

/**
 * A path relative to the workspace root, or undefined when it is outside. Both spellings of the
 * root count (its real path and the one given), so a workspace reached through a symbolic link is
 * still the workspace.
 */
export function relativeToRoot(setup: EngineSetup, p: string): string | undefined {
  return insideRoot(p, setup.root) ?? insideRoot(p, setup.rootLexical)
}

/**
 * The rule as the model reads it (issue 17): its settings file relative to the workspace, or
 * none (then "the user settings" / "the project settings"), so no host path outside the
 * workspace reaches model text. The decision and the audit keep the full path.
 */
export function shownRule(setup: EngineSetup, rule: LoadedRule): LoadedRule {
  const { file, ...rest } = rule
  const rel = file === undefined || rule.source !== 'project' ? undefined : relativeToRoot(setup, file)
  return rel ? { ...rest, file: rel } : rest
}
