/**
 * Types of the permission engine (issue 4 §2; seed 003 §8.2 "the order is the semantics";
 * seed 001 §6.9 presets and approvals).
 */
import type { JsonObject, JsonValue } from '@toolgate/core'

/** Presets of seed 001 §6.9: what the model may do without asking. */
export type Preset = 'read-only' | 'workspace-write' | 'danger-full-access'

/** `on-request`: a person answers asks. `never`: headless; an ask becomes a denial. */
export type ApprovalPolicy = 'on-request' | 'never'

export type RuleAction = 'allow' | 'ask' | 'deny'

/** A rule as written: `{ action: 'allow', rule: 'bash(git status)' }`. */
export interface Rule {
  readonly action: RuleAction
  readonly rule: string
}

/** Where a rule came from, for provenance (`explainDecision`). */
export type RuleSource = 'options' | 'project' | 'user' | 'defaults'

/** What a rule matches, after parsing. */
export type RuleMatcher =
  /** The whole tool (`bash`, `webfetch`) or a tool-name wildcard (`mcp__github__*`). */
  | { readonly kind: 'tool'; readonly tool: string; readonly pattern: RegExp }
  /**
   * One simple bash command, exactly (`bash(git status)`) or by word prefix (`bash(npm run test:*)`).
   * `normalized`: the words in normal form (`npm i` -> `npm install`), which deny and ask rules match
   * against every command a call runs; allow rules match `words` exactly.
   */
  | {
      readonly kind: 'bash'
      readonly words: readonly string[]
      readonly normalized: readonly string[]
      readonly prefix: boolean
    }
  /** A path glob over read tools (`read(src/**)`) or file-writing tools (`edit(docs/**)`). */
  | {
      readonly kind: 'path'
      readonly access: 'read' | 'write'
      readonly glob: string
      readonly pattern: RegExp
      readonly anchor: 'workspace' | 'absolute'
    }

export interface LoadedRule {
  readonly action: RuleAction
  /** The rule text exactly as written. */
  readonly text: string
  readonly source: RuleSource
  /** The settings file it came from (project and user rules). */
  readonly file?: string
  readonly matcher: RuleMatcher
}

/** Which tools are which (a table the engine owns; unknown tools fall to `ask`). */
export type ToolCategory = 'read' | 'write' | 'exec' | 'internal'

/**
 * The step of the precedence chain that decided (README "Precedence"), in order:
 * deny rule > protected path > workspace boundary > ask rule > session grant / allow rule >
 * mode default > fallback ask.
 */
export type DecisionStep =
  | 'deny-rule'
  | 'protected-path'
  | 'workspace-boundary'
  | 'ask-rule'
  | 'session-grant'
  | 'allow-rule'
  | 'mode-default'
  | 'fallback'

export interface DecidedBy {
  readonly step: DecisionStep
  /** The rule that decided (rule steps), with its source and file. */
  readonly rule?: {
    readonly action: RuleAction
    readonly text: string
    readonly source: RuleSource
    readonly file?: string
  }
  /** The protected-path table entry that decided (protected-path step). */
  readonly protectedPattern?: string
}

/** What the engine decides for one call, with provenance. */
export type PermissionDecision =
  | ({ readonly kind: 'allow'; readonly why: string } & DecidedBy)
  | ({
      readonly kind: 'deny'
      /** Model-facing: what happened and what to do next. */
      readonly reason: string
      readonly why: string
    } & DecidedBy)
  | ({
      readonly kind: 'ask'
      /** Audit text (the approval request's `reason`). */
      readonly reason: string
      /** Shown to the person at the prompt. */
      readonly displayReason: string
      readonly why: string
      /** Whether the prompt may offer "allow for this session" (never for destructive commands). */
      readonly offerSessionGrant: boolean
      /** True when the same call has been refused `LOOP_THRESHOLD` times already. */
      readonly looping: boolean
    } & DecidedBy)

/** The call as the engine sees it (a ToolExecution or a plain object). */
export interface CallLike {
  readonly callId?: string
  readonly name: string
  readonly arguments: JsonValue
}

/** `engine.describeAsk(callId)`: what an approval prompt needs to show. */
export interface AskDescription {
  readonly callId: string
  readonly toolName: string
  /** What is approved, whole: the bash command, or the call's arguments as canonical JSON. */
  readonly subject: string
  readonly displayReason: string
  readonly offerSessionGrant: boolean
  readonly looping: boolean
  /** What a session grant would remember (bash: one entry per simple command). */
  readonly grantKeys: readonly string[]
  readonly decidedBy: DecidedBy
}

export type GrantResult =
  | { readonly granted: true; readonly keys: readonly string[] }
  | { readonly granted: false; readonly reason: string }

export type { JsonObject }
