import { deny } from './decision.js'
import { messages } from './messages.js'
import { resolvePath } from './paths.js'
import type { EngineSetup } from './setup.js'
import type { Subjects } from './subjects.js'
import type { CallLike, PermissionDecision } from './types.js'
import { relativeToRoot } from './workspace.js'

/**
 * Step 3, the workspace boundary: in the read-only and workspace-write presets a call that writes
 * outside the workspace is refused before any ask rule, grant or allow rule is consulted. The
 * preset is the user's promise about where the agent may change files; a rule that allows a
 * command (`bash(cp:*)`) must not carry it outside. Only danger-full-access skips it. (After
 * repeated refusals a person may still allow one such call: `adjustments.ts`.)
 */
export function workspaceBoundary(
  setup: EngineSetup,
  call: CallLike,
  subj: Subjects,
): PermissionDecision | undefined {
  if (setup.preset === 'danger-full-access') return undefined
  const outside = outsideWrite(setup, subj)
  if (outside === undefined) return undefined
  return deny(
    'workspace-boundary',
    messages.boundary(call.name, outside, setup.preset),
    `writes ${outside}, outside the workspace, in the ${setup.preset} preset`,
  )
}

const HARMLESS_WRITES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty'])

/** The first path, as written, that the call writes outside the workspace. */
function outsideWrite(setup: EngineSetup, subj: Subjects): string | undefined {
  if (subj.spec?.category === 'write') {
    for (const p of subj.paths ?? [])
      if (relativeToRoot(setup, p.resolved.real ?? p.resolved.lexical) === undefined) return p.written
  }
  if (subj.bash !== undefined) {
    for (const u of subj.bash.paths) {
      if (u.use !== 'write' || u.word.kind !== 'static') continue
      const w = u.word.value
      // From every directory the command may run in (a `cd` before it moves relative targets).
      for (const dir of u.cwd.dirs) {
        const base = resolvePath(dir, setup.rootLexical, setup.home).lexical
        const rp = resolvePath(w, base, setup.home)
        const target = rp.real ?? rp.lexical
        if (HARMLESS_WRITES.has(target)) continue
        // Inside the sandbox /tmp is a private scratch directory, not the host's.
        if (setup.sandboxed && (target === '/tmp' || target.startsWith('/tmp/'))) continue
        if (relativeToRoot(setup, target) === undefined) return w
      }
    }
  }
  return undefined
}
