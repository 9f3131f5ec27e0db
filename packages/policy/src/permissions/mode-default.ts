import { assertNever } from '@toolgate/core'
import { allowBy, ask } from './decision.js'
import type { EngineSetup } from './setup.js'
import type { Subjects } from './subjects.js'
import type { CallLike, PermissionDecision, Preset, ToolCategory } from './types.js'
import { relativeToRoot } from './workspace.js'

/** Mode defaults, per preset (step 6). Reads/writes inside the workspace; exec handled below. */
export const MODE_DEFAULTS = {
  'read-only': { readInside: 'allow', readOutside: 'ask', writeInside: 'ask', exec: 'ask' },
  'workspace-write': { readInside: 'allow', readOutside: 'ask', writeInside: 'allow', exec: 'sandbox' },
  'danger-full-access': { readInside: 'allow', readOutside: 'allow', writeInside: 'allow', exec: 'allow' },
} as const satisfies Record<
  Preset,
  {
    readInside: 'allow'
    readOutside: 'allow' | 'ask'
    writeInside: 'allow' | 'ask'
    exec: 'allow' | 'ask' | 'sandbox'
  }
>

/**
 * Steps 6 and 7, the mode default and the fallback: no rule or grant spoke, so the preset decides
 * by the tool's category (seed 003 §8.1). This is where the read-only fast path lives (reads inside
 * the workspace, bash commands the classifier calls read-only). Commands that are not read-only run
 * without asking only when a sandbox confines them (workspace-write) or the preset runs anything;
 * destructive ones always ask, and never for the whole session. A tool of no known category asks
 * (fail closed).
 */
export function modeDefault(setup: EngineSetup, call: CallLike, subj: Subjects): PermissionDecision {
  const { preset } = setup
  const mode = MODE_DEFAULTS[preset]
  const category: ToolCategory | undefined = subj.spec?.category
  switch (category) {
    case undefined:
      return ask('fallback', `the tool ${call.name} is not known and no rule allows it`, true)
    case 'internal':
      return allowBy('mode-default', `${call.name} only affects this session`)
    case 'read': {
      const outside = (subj.paths ?? []).find(
        (p) => relativeToRoot(setup, p.resolved.real ?? p.resolved.lexical) === undefined,
      )
      if (outside === undefined)
        return allowBy('mode-default', 'read-only fast path: reads inside the workspace')
      if (mode.readOutside === 'allow') return allowBy('mode-default', `the ${preset} preset reads anywhere`)
      return ask('mode-default', `reads ${outside.written}, outside the workspace`, true)
    }
    case 'write':
      if (mode.writeInside === 'allow')
        return allowBy('mode-default', `the ${preset} preset writes inside the workspace`)
      return ask(
        'mode-default',
        `writes ${(subj.paths ?? [])[0]?.written ?? 'a file'} in the read-only preset`,
        true,
      )
    case 'exec': {
      const b = subj.bash
      if (b === undefined) return ask('fallback', `${call.name} runs commands`, true)
      if (b.classification.readOnly) {
        return allowBy('mode-default', `read-only fast path: ${b.classification.reason}`)
      }
      const grantable = b.complete && b.destructive === undefined && b.ungrantable === undefined
      if (b.destructive !== undefined) {
        const all = b.destructives.map((d) => `"${d.text}" is destructive (${d.why})`).join('; ')
        return ask('mode-default', all, false)
      }
      if (mode.exec === 'allow') return allowBy('mode-default', `the ${preset} preset runs commands`)
      if (mode.exec === 'sandbox' && setup.sandboxed)
        return allowBy('mode-default', 'the workspace-write preset runs commands inside the sandbox')
      const reasons = b.classification.readOnly ? [] : b.classification.reasons
      const what = `the command is not read-only (${reasons.join('; ')})`
      const why = mode.exec === 'sandbox' ? `${what} and no sandbox confines it` : what
      return ask('mode-default', why, grantable)
    }
    default:
      return assertNever(category, 'tool category')
  }
}
