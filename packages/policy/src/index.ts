// @toolgate/policy — shell classification and sandbox (issue 4 §1, §3).
// The permission engine (rules, presets, protected paths, grants) appends its exports below.

// The one glob matcher (issue 14 §4): permission rules, protected paths and the search tools.
export {
  compileGlob,
  GLOB_MAX_PATTERN_CHARS,
  type GlobMatcher,
  type GlobOptions,
  GlobPatternError,
  globSource,
} from './glob/glob-match.js'
export { compileGlobSet, type GlobSet } from './glob/glob-set.js'
// Permission engine (issue 4 §2): rules, presets, protected paths, grants, denial fuse.
export * from './permissions/index.js'
export { AUTO_RUN_PATHS, type AutoRunPath, HOME_GIT_CONFIG, SHELL_RC_FILES } from './sandbox/auto-run.js'
export { bwrapArgs, type IsolationFlags } from './sandbox/bwrap.js'
export { confine } from './sandbox/confine.js'
export { CREDENTIAL_STORES, type CredentialStore } from './sandbox/credential-stores.js'
export {
  bashEnvironment,
  ENV_ALLOWLIST,
  type EnvironmentPolicy,
  environmentProblems,
  GIT_SAFE_CONFIG,
  gitConfigEnvironment,
  isSecretName,
  registeredSecretEnv,
  registerSecretEnv,
} from './sandbox/environment.js'
export { type GitConfigEntry, parseGitConfig, readGitConfig } from './sandbox/git-config.js'
export { type GitLayout, gitLayout } from './sandbox/git-layout.js'
export { hostPrograms, resolveProgram } from './sandbox/host-programs.js'
export type { Mount } from './sandbox/mounts.js'
export { probeSandbox } from './sandbox/probe.js'
export { type ProfilePlan, planProfile } from './sandbox/profile.js'
export { unixSocketFilter } from './sandbox/seccomp.js'
export type {
  Confinement,
  Enforcement,
  ProbeChecks,
  SandboxMode,
  SandboxPolicy,
  SandboxProbe,
} from './sandbox/types.js'
export { scanWorkspace, type WorkspaceScan } from './sandbox/workspace-scan.js'
export {
  type CommandPart,
  classifyCommand,
  classifyUncached,
  clearClassifyCache,
  MAX_COMMAND_LENGTH,
  splitCompound,
} from './shell/classify.js'
export { initShellParser } from './shell/parser.js'
export type { CommandClassification, SimpleCommandInfo } from './shell/types.js'
