import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { JsonValue } from '@toolgate/core'
import { normalizeCommand, type RuleWord } from '../shell/normalize.js'
import { analyzeBash, type BashAnalysis, type Invocation, plainWords } from './bash.js'
import { type BashProtectedHit, bashProtectedHits, decidingHit, hitWhy } from './bash-paths.js'
import { type ToolSpec, toolSpec } from './categories.js'
import {
  LOOP_THRESHOLD,
  messages,
  PROMPT_HEADER,
  PROTECTED_HEADER,
  protectedPathsPrompt,
  ruleText,
} from './messages.js'
import { insideRoot, type ResolvedPath, realPath, resolvePath } from './paths.js'
import { checkProtected, type ProtectedPath, protectedPathsFor } from './protected.js'
import { parseRule } from './rule-syntax.js'
import { loadRuleList, loadSettingsFile, PermissionSettingsError } from './settings.js'
import type {
  ApprovalPolicy,
  AskDescription,
  CallLike,
  DecidedBy,
  GrantResult,
  LoadedRule,
  PermissionDecision,
  Preset,
  Rule,
  RuleAction,
  ToolCategory,
} from './types.js'

/**
 * The permission engine (issue 4 §2). One precedence chain, in this order — the order is the
 * semantics (seed 003 §8.2):
 *
 *   1 deny rule          any source; for bash, any simple command it names
 *   2 protected path     bypass-immune table, every preset (danger-full-access included)
 *   3 workspace boundary writes outside the workspace, in read-only and workspace-write
 *   4 ask rule
 *   5 session grant / allow rule   (every part of a compound bash command must be covered)
 *   6 mode default       preset x tool category (read-only fast path lives here)
 *   7 fallback           ask (fail closed)
 *
 * Then two adjustments: an `ask` in a non-interactive session becomes a `deny` that names the rule
 * to add, and a call refused LOOP_THRESHOLD times is flagged as looping (seed 003 §8.7).
 */

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

/** Mode defaults, per preset (step 6). Reads/writes inside the workspace; exec handled below. */
const MODE_DEFAULTS = {
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

export interface PermissionEngine {
  readonly root: string
  readonly preset: Preset
  readonly approvalPolicy: ApprovalPolicy
  readonly projectSettingsPath: string | undefined
  readonly userSettingsPath: string | undefined
  readonly rules: readonly LoadedRule[]
  /**
   * Decide one call. Records an `ask` under its callId (for `describeAsk` / `grantSession`).
   * `interactive` defaults to `approvalPolicy === 'on-request'`.
   */
  decide(call: CallLike, options?: { readonly interactive?: boolean }): PermissionDecision
  /** The same decision, without recording anything, with a one-line summary of who decided. */
  explain(call: CallLike): PermissionDecision & { readonly summary: string }
  /** The bypass-immune part only (deny rules, protected paths): what the monotonic guard enforces. */
  bypassImmune(call: CallLike): { readonly kind: 'deny' | 'ask'; readonly reason: string } | undefined
  /** What an approval prompt for a pending ask should show. */
  describeAsk(callId: string): AskDescription | undefined
  /** "Allow for this session": remembers the exact call (each simple command for bash). */
  grantSession(callId: string): GrantResult
  /** Count a refusal of this exact call (denied, rejected, cancelled, unavailable). Returns the count. */
  recordRefusal(call: CallLike): number
  refusals(call: CallLike): number
  /** Forget the pending ask of a settled call. */
  settle(callId: string): void
  /** The grant keys remembered so far (stable order). */
  grants(): readonly string[]
  /** Stable deny rules and disabled tools, as system-prompt text (seed 003 §8.8); '' when none. */
  promptText(): string
}

interface Subjects {
  readonly spec: ToolSpec | undefined
  readonly paths?: readonly { readonly written: string; readonly resolved: ResolvedPath }[]
  readonly bash?: BashAnalysis
  readonly problem?: string
}

export function createPermissionEngine(options: PermissionOptions): PermissionEngine {
  const preset: Preset = options.preset ?? 'workspace-write'
  const approvalPolicy: ApprovalPolicy = options.approvalPolicy ?? 'on-request'
  if (!(preset in MODE_DEFAULTS))
    throw new PermissionSettingsError([`options: unknown preset ${JSON.stringify(preset)}`])
  if (approvalPolicy !== 'on-request' && approvalPolicy !== 'never') {
    throw new PermissionSettingsError([`options: unknown approvalPolicy ${JSON.stringify(approvalPolicy)}`])
  }
  const rootLexical = resolve(options.root)
  const root = realPath(rootLexical) ?? rootLexical
  const home = resolve(options.home ?? homedir())
  const homes = [...new Set([home, realPath(home) ?? home])]
  const table = options.protectedPaths ?? protectedPathsFor(root, { home })
  const sandboxed = options.sandboxed === true
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
  const byAction = (action: RuleAction) => rules.filter((r) => r.action === action)
  const denyRules = byAction('deny')
  const askRules = byAction('ask')
  const allowRules = byAction('allow')

  const grantSet = new Set<string>()
  const refusalCounts = new Map<string, number>()
  const pending = new Map<
    string,
    {
      toolName: string
      subject: string
      decision: Extract<PermissionDecision, { kind: 'ask' }>
      grantKeys: readonly string[]
    }
  >()

  // ---- subjects: what a call touches ----------------------------------------------------------

  function subjectsOf(call: CallLike): Subjects {
    const spec = toolSpec(call.name, options.tools)
    if (call.name === 'bash') {
      const command = argsOf(call).command
      if (typeof command !== 'string')
        return { spec, problem: "the 'command' argument is missing or not a string" }
      return { spec, bash: analyzeBash(command) }
    }
    if (spec?.paths === undefined) return { spec }
    const paths = spec.paths(argsOf(call))
    if (typeof paths === 'string') return { spec, problem: paths }
    return {
      spec,
      paths: paths.map((written) => ({ written, resolved: resolvePath(written, rootLexical, home) })),
    }
  }

  function relativeToRoot(p: string): string | undefined {
    return insideRoot(p, root) ?? insideRoot(p, rootLexical)
  }

  /**
   * The rule as the model reads it (issue 17): its settings file relative to the workspace, or
   * none (then "the user settings" / "the project settings"), so no host path outside the
   * workspace reaches model text. The decision and the audit keep the full path.
   */
  function shown(rule: LoadedRule): LoadedRule {
    const { file, ...rest } = rule
    const rel = file === undefined || rule.source !== 'project' ? undefined : relativeToRoot(file)
    return rel ? { ...rest, file: rel } : rest
  }

  function pathRuleMatches(rule: LoadedRule, rp: ResolvedPath, forms: 'any' | 'real'): boolean {
    if (rule.matcher.kind !== 'path') return false
    const m = rule.matcher
    const candidates = forms === 'real' ? [rp.real] : [rp.lexical, rp.real]
    for (const form of candidates) {
      if (form === undefined) continue
      if (m.anchor === 'workspace') {
        const rel = relativeToRoot(form)
        if (rel !== undefined && m.pattern.test(rel)) return true
      } else if (m.glob.startsWith('~/')) {
        for (const h of homes) {
          if (form.startsWith(`${h}/`) && m.pattern.test(form.slice(h.length + 1))) return true
        }
      } else if (m.pattern.test(form)) return true
    }
    return false
  }

  function toolRuleMatches(rule: LoadedRule, name: string): boolean {
    return rule.matcher.kind === 'tool' && rule.matcher.pattern.test(name)
  }

  /** Does an allow rule name this simple command exactly (no normalization, no wrappers)? */
  function allowRuleMatches(rule: LoadedRule, c: BashAnalysis['commands'][number]): boolean {
    if (rule.matcher.kind !== 'bash') return false
    const { words, prefix } = rule.matcher
    const argv = plainWords(c)
    if (argv === undefined) return false
    return (
      (prefix ? argv.length >= words.length : argv.length === words.length) &&
      words.every((w, i) => argv[i] === w)
    )
  }

  /** Rules of one action that apply to this call; the first match decides provenance. */
  function firstRule(
    list: readonly LoadedRule[],
    call: CallLike,
    subj: Subjects,
  ): { rule: LoadedRule; subject?: string } | undefined {
    for (const rule of list) {
      if (toolRuleMatches(rule, call.name)) return { rule }
      if (call.name === 'bash' && subj.bash !== undefined && rule.matcher.kind === 'bash') {
        // Deny and ask rules name the thing, not the spelling: every command the call runs, in
        // normal form, behind wrappers and in shell code (issue 12 §5).
        const { normalized, prefix } = rule.matcher
        for (const inv of subj.bash.invocations) {
          if (invocationMatches(normalized, prefix, inv)) {
            const computed = inv.words.includes(null)
            return {
              rule,
              subject: computed
                ? `"${inv.text}", whose words only known at run time may spell it`
                : `"${inv.text}"`,
            }
          }
        }
      }
      if (rule.matcher.kind === 'path' && subj.paths !== undefined && appliesTo(rule, subj.spec)) {
        for (const p of subj.paths)
          if (pathRuleMatches(rule, p.resolved, 'any')) return { rule, subject: p.written }
      }
    }
    return undefined
  }

  function appliesTo(rule: LoadedRule, spec: ToolSpec | undefined): boolean {
    return rule.matcher.kind === 'path' && spec !== undefined && spec.category === rule.matcher.access
  }

  // ---- steps 1-2: the bypass-immune part ------------------------------------------------------

  /** The first protected path the call touches (a deny before any ask). */
  function protectedHit(
    subj: Subjects,
  ): { action: 'deny' | 'ask'; reason: string; pattern: string; subject: string; why?: string } | undefined {
    if (subj.bash !== undefined) return decidingHit(bashHits(subj.bash))
    let ask: { action: 'deny' | 'ask'; reason: string; pattern: string; subject: string } | undefined
    const access = subj.spec?.category === 'write' ? 'write' : 'read'
    for (const p of subj.paths ?? []) {
      const hit = checkProtected(table, p.resolved, access, homes)
      if (hit === undefined) continue
      const subject =
        p.resolved.real !== undefined &&
        p.resolved.real !== p.resolved.lexical &&
        hit.path === p.resolved.real
          ? `${p.written} (a symbolic link to ${p.resolved.real})`
          : p.written
      const found = {
        action: hit.entry.action === 'deny' ? ('deny' as const) : ('ask' as const),
        reason: hit.entry.reason,
        pattern: hit.entry.pattern,
        subject,
      }
      if (found.action === 'deny') return found
      ask ??= found
    }
    return ask
  }

  function immune(call: CallLike, subj: Subjects): PermissionDecision | undefined {
    if (subj.problem !== undefined) {
      return deny('fallback', messages.badArguments(call.name, subj.problem), subj.problem)
    }
    const d = firstRule(denyRules, call, subj)
    if (d !== undefined) {
      return deny(
        'deny-rule',
        messages.denyRule(call.name, shown(d.rule), d.subject),
        `denied by the rule ${ruleText(d.rule)}`,
        d.rule,
      )
    }
    for (const p of subj.paths ?? []) {
      if (p.resolved.real === undefined) {
        return deny(
          'protected-path',
          messages.unresolvable(call.name, p.written),
          `${p.written} has unresolvable symbolic links`,
        )
      }
    }
    const prot = protectedHit(subj)
    if (prot !== undefined) {
      const why = hitWhy(prot)
      if (prot.action === 'deny') {
        return {
          ...deny('protected-path', messages.protectedDeny(call.name, prot.subject, prot.reason), why),
          protectedPattern: prot.pattern,
        }
      }
      return { ...ask('protected-path', why, false), protectedPattern: prot.pattern }
    }
    return undefined
  }

  // ---- the chain ------------------------------------------------------------------------------

  function evaluate(call: CallLike): { decision: PermissionDecision; subj: Subjects } {
    const subj = subjectsOf(call)
    const first = immune(call, subj)
    if (first !== undefined) return { decision: first, subj }

    // 3 workspace boundary
    if (preset !== 'danger-full-access') {
      const outside = outsideWrite(subj)
      if (outside !== undefined) {
        return {
          decision: deny(
            'workspace-boundary',
            messages.boundary(call.name, outside, preset),
            `writes ${outside}, outside the workspace, in the ${preset} preset`,
          ),
          subj,
        }
      }
    }

    // 4 ask rules
    const a = firstRule(askRules, call, subj)
    if (a !== undefined) {
      return {
        decision: ask(
          'ask-rule',
          `the rule ${ruleText(shown(a.rule))} requires approval${a.subject ? ` for ${a.subject}` : ''}`,
          false,
          a.rule,
        ),
        subj,
      }
    }

    // 5 session grants and allow rules
    const covered = coverage(call, subj)
    if (covered !== undefined) return { decision: covered, subj }

    // 6 mode defaults, 7 fallback
    return { decision: modeDefault(call, subj), subj }
  }

  function outsideWrite(subj: Subjects): string | undefined {
    if (subj.spec?.category === 'write') {
      for (const p of subj.paths ?? [])
        if (relativeToRoot(p.resolved.real ?? p.resolved.lexical) === undefined) return p.written
    }
    if (subj.bash !== undefined) {
      for (const u of subj.bash.paths) {
        if (u.use !== 'write' || u.word.kind !== 'static') continue
        const w = u.word.value
        // From every directory the command may run in (a `cd` before it moves relative targets).
        for (const dir of u.cwd.dirs) {
          const base = resolvePath(dir, rootLexical, home).lexical
          const rp = resolvePath(w, base, home)
          const target = rp.real ?? rp.lexical
          if (HARMLESS_WRITES.has(target)) continue
          // Inside the sandbox /tmp is a private scratch directory, not the host's.
          if (sandboxed && (target === '/tmp' || target.startsWith('/tmp/'))) continue
          if (relativeToRoot(target) === undefined) return w
        }
      }
    }
    return undefined
  }

  function coverage(call: CallLike, subj: Subjects): PermissionDecision | undefined {
    const key = grantKeysOf(call, subj)
    if (subj.bash !== undefined) {
      const b = subj.bash
      if (!b.complete) return undefined
      const allowTool = allowRules.find((r) => toolRuleMatches(r, 'bash'))
      if (allowTool !== undefined)
        return allowBy('allow-rule', `allowed by the rule ${ruleText(allowTool)}`, allowTool)
      let firstRuleUsed: LoadedRule | undefined
      let usedGrant = false
      let ruleOrGrantWrites = 0
      for (const c of b.commands) {
        if (grantSet.has(bashKey(c.canonical))) {
          usedGrant = true
          ruleOrGrantWrites += c.writes.length
          continue
        }
        const r = allowRules.find((rule) => allowRuleMatches(rule, c))
        if (r !== undefined) {
          firstRuleUsed ??= r
          ruleOrGrantWrites += c.writes.length
          continue
        }
        if (c.readOnly && c.writes.length === 0) continue
        return undefined
      }
      if (firstRuleUsed === undefined && !usedGrant) return undefined // plain read-only: the mode decides
      // Writes outside the simple commands (a redirect on a whole list) are nobody's: not covered.
      if (b.writes.length > ruleOrGrantWrites) return undefined
      return firstRuleUsed !== undefined
        ? allowBy(
            'allow-rule',
            `every simple command is allowed (first by the rule ${ruleText(firstRuleUsed)})`,
            firstRuleUsed,
          )
        : allowBy('session-grant', 'every simple command was allowed for this session')
    }
    if (key.length === 1 && grantSet.has(key[0]!))
      return allowBy('session-grant', 'this exact call was allowed for this session')
    const tool = allowRules.find((r) => toolRuleMatches(r, call.name))
    if (tool !== undefined) return allowBy('allow-rule', `allowed by the rule ${ruleText(tool)}`, tool)
    if (subj.paths !== undefined && subj.paths.length > 0) {
      let used: LoadedRule | undefined
      for (const p of subj.paths) {
        // Allow rules must hold for the real target: a symlink cannot borrow an allowed name.
        const r = allowRules.find(
          (rule) => appliesTo(rule, subj.spec) && pathRuleMatches(rule, p.resolved, 'real'),
        )
        if (r === undefined) return undefined
        used ??= r
      }
      if (used !== undefined) return allowBy('allow-rule', `allowed by the rule ${ruleText(used)}`, used)
    }
    return undefined
  }

  function modeDefault(call: CallLike, subj: Subjects): PermissionDecision {
    const mode = MODE_DEFAULTS[preset]
    const category: ToolCategory | undefined = subj.spec?.category
    switch (category) {
      case undefined:
        return ask('fallback', `the tool ${call.name} is not known and no rule allows it`, true)
      case 'internal':
        return allowBy('mode-default', `${call.name} only affects this session`)
      case 'read': {
        const outside = (subj.paths ?? []).find(
          (p) => relativeToRoot(p.resolved.real ?? p.resolved.lexical) === undefined,
        )
        if (outside === undefined)
          return allowBy('mode-default', 'read-only fast path: reads inside the workspace')
        if (mode.readOutside === 'allow')
          return allowBy('mode-default', `the ${preset} preset reads anywhere`)
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
        if (mode.exec === 'sandbox' && sandboxed)
          return allowBy('mode-default', 'the workspace-write preset runs commands inside the sandbox')
        const reasons = b.classification.readOnly ? [] : b.classification.reasons
        const what = `the command is not read-only (${reasons.join('; ')})`
        const why = mode.exec === 'sandbox' ? `${what} and no sandbox confines it` : what
        return ask('mode-default', why, grantable)
      }
      default:
        return assertNever(category)
    }
  }

  const hitsOf = new WeakMap<BashAnalysis, BashProtectedHit[]>()
  /** The protected paths a bash call may touch (computed once per analysis). */
  function bashHits(b: BashAnalysis): BashProtectedHit[] {
    let hits = hitsOf.get(b)
    if (hits === undefined) {
      hits = bashProtectedHits(b, { table, root: rootLexical, home, homes })
      hitsOf.set(b, hits)
    }
    return hits
  }

  /** Everything about a bash call a person approves: protected paths, destructive parts, writes. */
  function concerns(b: BashAnalysis): string[] {
    const out = bashHits(b).map(hitWhy)
    for (const d of b.destructives) out.push(`"${d.text}" is destructive (${d.why})`)
    if (!b.classification.readOnly) for (const r of b.classification.reasons) out.push(r)
    return [...new Set(out)]
  }

  // ---- adjustments: headless, loops ----------------------------------------------------------

  function finish(
    call: CallLike,
    raw: PermissionDecision,
    subj: Subjects,
    interactive: boolean,
  ): PermissionDecision {
    const refused = refusalCounts.get(callKey(call, subj)) ?? 0
    const looping = refused >= LOOP_THRESHOLD
    let d = raw
    // A boundary refusal is the preset's default, not a rule: after repeated refusals a person is
    // shown the loop and may allow it once (seed 003 §8.7: surface the loop, keep human override).
    if (d.kind === 'deny' && d.step === 'workspace-boundary' && looping && interactive) {
      d = ask('workspace-boundary', d.why, false)
    }
    if (d.kind !== 'ask') return d
    // Every reason, not only the one that decided (issue 12 §7): what else the person approves.
    const also = subj.bash === undefined ? [] : concerns(subj.bash).filter((c) => !d.why.includes(c))
    const full = also.length === 0 ? d.displayReason : `${d.displayReason} Also: ${also.join('; ')}.`
    const displayReason = looping ? `${messages.loopingPrefix(refused)}${full}` : full
    d = { ...d, displayReason, looping, offerSessionGrant: d.offerSessionGrant && !looping }
    if (interactive) return d
    return {
      ...deny(d.step, messages.headless(call.name, d.why, headlessTail(call, d, subj), looping), d.why),
      ...provenance(d),
    }
  }

  function headlessTail(
    call: CallLike,
    d: Extract<PermissionDecision, { kind: 'ask' }>,
    subj: Subjects,
  ): string {
    if (d.step === 'ask-rule') {
      const rule = rules.find(
        (r) => r.text === d.rule?.text && r.source === d.rule?.source && r.action === 'ask',
      )
      if (rule !== undefined) return messages.headlessAskRule(shown(rule))
    }
    if (d.step === 'protected-path' || d.step === 'workspace-boundary') return messages.headlessNoRule
    const suggested = suggestRules(call, subj)
    if (suggested === undefined) return messages.headlessNoRule
    const file = projectSettingsPath === undefined ? undefined : relativeToRoot(projectSettingsPath)
    return messages.headlessAddRule(suggested, file || undefined, subj.bash?.destructive !== undefined)
  }

  /** The narrowest allow rules that would let this exact call through, or undefined if none can. */
  function suggestRules(call: CallLike, subj: Subjects): readonly string[] | undefined {
    if (subj.bash !== undefined) {
      const b = subj.bash
      if (!b.complete) return undefined
      const needed = b.commands
        .filter((c) => !(c.readOnly && c.writes.length === 0))
        .map((c) => `bash(${c.canonical})`)
      const out = [...new Set(needed)]
      return out.length > 0 && out.every((r) => parseRule(r).ok) ? out : undefined
    }
    if (subj.spec === undefined) return [call.name]
    if (subj.paths !== undefined) {
      const tool = subj.spec.category === 'write' ? 'edit' : 'read'
      const out = subj.paths.map((p) => {
        const target = p.resolved.real ?? p.resolved.lexical
        return `${tool}(${relativeToRoot(target) || target})`
      })
      const unique = [...new Set(out)]
      return unique.every((r) => parseRule(r).ok) ? unique : undefined
    }
    return [call.name]
  }

  // ---- keys -----------------------------------------------------------------------------------

  function grantKeysOf(call: CallLike, subj: Subjects): readonly string[] {
    if (subj.bash !== undefined) return [...new Set(subj.bash.commands.map((c) => bashKey(c.canonical)))]
    return [`${call.name}:${stableJson(call.arguments)}`]
  }

  function callKey(call: CallLike, subj: Subjects): string {
    if (subj.bash !== undefined) {
      return subj.bash.complete
        ? `bash:${subj.bash.commands.map((c) => c.canonical).join('\n')}`
        : `bash:${subj.bash.command}`
    }
    return `${call.name}:${stableJson(call.arguments)}`
  }

  // ---- public API -----------------------------------------------------------------------------

  const engine: PermissionEngine = {
    root,
    preset,
    approvalPolicy,
    projectSettingsPath,
    userSettingsPath,
    rules,
    decide(call, opts) {
      const interactive = opts?.interactive ?? approvalPolicy === 'on-request'
      const { decision: raw, subj } = evaluate(call)
      const decision = finish(call, raw, subj, interactive)
      if (decision.kind === 'ask' && call.callId !== undefined) {
        pending.set(call.callId, {
          toolName: call.name,
          subject: subj.bash !== undefined ? subj.bash.command : stableJson(call.arguments),
          decision,
          grantKeys: decision.offerSessionGrant ? grantKeysOf(call, subj) : [],
        })
      }
      return decision
    },
    explain(call) {
      const { decision: raw, subj } = evaluate(call)
      const decision = finish(call, raw, subj, approvalPolicy === 'on-request')
      const by =
        decision.rule !== undefined
          ? `rule "${decision.rule.action} ${decision.rule.text}" from ${decision.rule.file ?? decision.rule.source}`
          : decision.protectedPattern !== undefined
            ? `protected path ${decision.protectedPattern}`
            : `step ${decision.step}`
      return { ...decision, summary: `${decision.kind} by ${by}: ${decision.why}` }
    },
    bypassImmune(call) {
      const d = immune(call, subjectsOf(call))
      if (d === undefined) return undefined
      return d.kind === 'deny' ? { kind: 'deny', reason: d.reason } : { kind: 'ask', reason: d.why }
    },
    describeAsk(callId) {
      const p = pending.get(callId)
      if (p === undefined) return undefined
      return Object.freeze({
        callId,
        toolName: p.toolName,
        subject: p.subject,
        displayReason: p.decision.displayReason,
        offerSessionGrant: p.decision.offerSessionGrant,
        looping: p.decision.looping,
        grantKeys: p.grantKeys,
        decidedBy: provenance(p.decision),
      })
    },
    grantSession(callId) {
      const p = pending.get(callId)
      if (p === undefined) return { granted: false, reason: `no approval is pending for call ${callId}` }
      if (!p.decision.offerSessionGrant) {
        return {
          granted: false,
          reason: `this call cannot be allowed for the whole session (${p.decision.why}); allow it once instead`,
        }
      }
      for (const k of p.grantKeys) grantSet.add(k)
      return { granted: true, keys: p.grantKeys }
    },
    recordRefusal(call) {
      const key = callKey(call, subjectsOf(call))
      const n = (refusalCounts.get(key) ?? 0) + 1
      refusalCounts.set(key, n)
      return n
    },
    refusals(call) {
      return refusalCounts.get(callKey(call, subjectsOf(call))) ?? 0
    },
    settle(callId) {
      pending.delete(callId)
    },
    grants() {
      return [...grantSet].sort()
    },
    promptText() {
      const rules = renderPromptText(denyRules)
      const guarded = protectedPathsPrompt(table, root, home)
      if (guarded.length === 0) return rules
      return [rules, [PROTECTED_HEADER, ...guarded].join('\n')].filter((part) => part !== '').join('\n')
    },
  }
  return engine
}

/** Seed 003 §8.8: only the configured, session-stable part (deny rules, disabled tools). */
export function renderPromptText(denyRules: readonly LoadedRule[]): string {
  const tools = [...new Set(denyRules.filter((r) => r.matcher.kind === 'tool').map((r) => r.text))].sort()
  const args = [...new Set(denyRules.filter((r) => r.matcher.kind !== 'tool').map((r) => r.text))].sort()
  if (tools.length === 0 && args.length === 0) return ''
  const lines = [PROMPT_HEADER]
  if (tools.length > 0) lines.push(`- Disabled tools: ${tools.join(', ')}`)
  if (args.length > 0) lines.push(`- Denied: ${args.join(', ')}`)
  return lines.join('\n')
}

/**
 * Does a deny or ask rule (normalized words, optionally a prefix) name this command? A word only
 * known at run time may stand for any words (fail closed: `git reset $X` may be `git reset --hard`);
 * for an unknown program, a command may start at any of its arguments.
 */
function invocationMatches(rule: readonly string[], prefix: boolean, inv: Invocation): boolean {
  if (wordsMatch(rule, prefix, inv.words)) return true
  if (!inv.opaque) return false
  for (let s = 1; s < inv.words.length; s++) {
    if (wordsMatch(rule, prefix, normalizeCommand(inv.words.slice(s)))) return true
  }
  return false
}

function wordsMatch(rule: readonly string[], prefix: boolean, words: readonly RuleWord[]): boolean {
  // States (i, j): i words consumed, j rule words matched. `null` consumes zero or more rule words.
  const seen = new Set<number>()
  const stack: [number, number][] = [[0, 0]]
  while (stack.length > 0) {
    const [i, j] = stack.pop()!
    const k = i * (rule.length + 1) + j
    if (seen.has(k)) continue
    seen.add(k)
    if (j === rule.length && (prefix || words.slice(i).every((w) => w === null))) return true
    if (i >= words.length) continue
    const w = words[i]
    if (w === null) {
      stack.push([i + 1, j])
      if (j < rule.length) stack.push([i, j + 1])
      if (j === rule.length) stack.push([i + 1, j])
      continue
    }
    if (j < rule.length && w === rule[j]) stack.push([i + 1, j + 1])
  }
  return false
}
const HARMLESS_WRITES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty'])

const bashKey = (canonical: string) => `bash:${canonical}`

function argsOf(call: CallLike): Readonly<Record<string, JsonValue>> {
  const a = call.arguments
  return typeof a === 'object' && a !== null && !Array.isArray(a)
    ? (a as Readonly<Record<string, JsonValue>>)
    : {}
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

function provenance(d: PermissionDecision): DecidedBy {
  return {
    step: d.step,
    ...(d.rule === undefined ? {} : { rule: d.rule }),
    ...(d.protectedPattern === undefined ? {} : { protectedPattern: d.protectedPattern }),
  }
}

function ruleRef(rule: LoadedRule | undefined): Pick<DecidedBy, 'rule'> {
  if (rule === undefined) return {}
  return {
    rule: {
      action: rule.action,
      text: rule.text,
      source: rule.source,
      ...(rule.file === undefined ? {} : { file: rule.file }),
    },
  }
}

function deny(step: DecidedBy['step'], reason: string, why: string, rule?: LoadedRule): PermissionDecision {
  return { kind: 'deny', step, reason, why, ...ruleRef(rule) }
}

function allowBy(step: DecidedBy['step'], why: string, rule?: LoadedRule): PermissionDecision {
  return { kind: 'allow', step, why, ...ruleRef(rule) }
}

function ask(
  step: DecidedBy['step'],
  why: string,
  offerSessionGrant: boolean,
  rule?: LoadedRule,
): Extract<PermissionDecision, { kind: 'ask' }> {
  const sentence = why.charAt(0).toUpperCase() + why.slice(1)
  return {
    kind: 'ask',
    step,
    reason: `${step}: ${why}`,
    displayReason: `${sentence}.`,
    why,
    offerSessionGrant,
    looping: false,
    ...ruleRef(rule),
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`)
}
