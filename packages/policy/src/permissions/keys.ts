import type { JsonValue } from '@toolgate/core'
import type { Subjects } from './subjects.js'
import type { CallLike } from './types.js'

/**
 * The keys under which the engine remembers calls. A session grant is stored per simple command
 * for bash (its canonical text, so a grant for `git status` never covers another command joined to
 * it) and per exact call (tool name and canonical arguments) for other tools. Refusals are counted
 * per whole call, so the same call refused again is recognised as a loop (seed 003 §8.7).
 */

export const bashKey = (canonical: string) => `bash:${canonical}`

/** The grant keys a session grant of this call would add. */
export function grantKeysOf(call: CallLike, subj: Subjects): readonly string[] {
  if (subj.bash !== undefined) return [...new Set(subj.bash.commands.map((c) => bashKey(c.canonical)))]
  return [`${call.name}:${stableJson(call.arguments)}`]
}

/** The key refusals of this exact call are counted under. */
export function callKey(call: CallLike, subj: Subjects): string {
  if (subj.bash !== undefined) {
    return subj.bash.complete
      ? `bash:${subj.bash.commands.map((c) => c.canonical).join('\n')}`
      : `bash:${subj.bash.command}`
  }
  return `${call.name}:${stableJson(call.arguments)}`
}

/** Canonical JSON: object keys sorted, no whitespace. */
export function stableJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v)).join(',')}]`
  const obj = value as Readonly<Record<string, JsonValue>>
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(obj[k]!)}`)
    .join(',')}}`
}
