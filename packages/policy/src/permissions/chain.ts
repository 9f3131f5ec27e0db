import { askRule } from './ask-rule.js'
import { workspaceBoundary } from './boundary.js'
import { coverage } from './coverage.js'
import { immune } from './immune.js'
import { modeDefault } from './mode-default.js'
import type { EngineSetup } from './setup.js'
import { type Subjects, subjectsOf } from './subjects.js'
import type { CallLike, PermissionDecision } from './types.js'

/**
 * The precedence chain (issue 4 §2). The order is the semantics (seed 003 §8.2); the first step
 * that decides wins:
 *
 *   1 deny rule          any source; for bash, any simple command it names     immune.ts
 *   2 protected path     bypass-immune table, every preset (danger-full-access included)
 *   3 workspace boundary writes outside the workspace, in read-only and workspace-write  boundary.ts
 *   4 ask rule                                                                  ask-rule.ts
 *   5 session grant / allow rule   (every part of a compound bash command must be covered)  coverage.ts
 *   6 mode default       preset x tool category (read-only fast path lives here)  mode-default.ts
 *   7 fallback           ask (fail closed)
 *
 * Each step reads only the engine's setup, the session's grants and what the call is about
 * (`subjects.ts`), and either decides or passes. The adjustments that depend on the session
 * (looping, headless) come after the chain: `adjustments.ts`.
 */
export function evaluate(
  setup: EngineSetup,
  grants: ReadonlySet<string>,
  call: CallLike,
): { decision: PermissionDecision; subj: Subjects } {
  const subj = subjectsOf(setup, call)
  const decision =
    immune(setup, call, subj) ??
    workspaceBoundary(setup, call, subj) ??
    askRule(setup, call, subj) ??
    coverage(setup, grants, call, subj) ??
    modeDefault(setup, call, subj)
  return { decision, subj }
}
