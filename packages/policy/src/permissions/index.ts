export { analyzeBash, type BashAnalysis, destructiveWhy, plainWords } from './bash.js'
export { TOOL_SPECS, type ToolSpec } from './categories.js'
export { createPermissionEngine, type PermissionEngine } from './engine.js'
export { stableJson } from './keys.js'
export { LOOP_THRESHOLD } from './messages.js'
export { type ResolvedPath, realPath, resolvePath } from './paths.js'
export { explainDecision, type PermissionsPlugin, permissions } from './plugin.js'
export { renderPromptText } from './prompt-text.js'
export {
  checkProtected,
  firstMatch,
  PROTECTED_PATHS,
  type ProtectedPath,
  protectedPathsFor,
} from './protected.js'
export { type ParsedRule, parseRule } from './rule-syntax.js'
export { loadSettingsFile, PermissionSettingsError, validateSettings } from './settings.js'
export { DEFAULT_RULES, type PermissionOptions } from './setup.js'
export type * from './types.js'
