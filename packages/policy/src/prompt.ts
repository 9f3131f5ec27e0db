// `@toolgate/policy/prompt`: what a host needs before its session exists, without loading the
// shell parser, the sandbox or the engine's decision chain (start-up cost, issue 15 §3): the rules
// text an engine would add to the system prompt, and the registry of secret variables.
import { promptTextOf } from './permissions/prompt-text.js'
import { type PermissionOptions, resolveSetup } from './permissions/setup.js'

export type { PermissionOptions } from './permissions/setup.js'
export { registerSecretEnv } from './sandbox/environment.js'

/**
 * `createPermissionEngine(options).promptText()`, from the same setup (settings read, rules and
 * protected paths resolved); throws what the engine would throw for bad settings.
 */
export function permissionsPromptText(options: PermissionOptions): string {
  return promptTextOf(resolveSetup(options))
}
