import { normalizeCommand, type RuleWord } from '../shell/normalize.js'
import { type BashAnalysis, type Invocation, plainWords } from './bash.js'
import type { ToolSpec } from './categories.js'
import type { ResolvedPath } from './paths.js'
import type { EngineSetup } from './setup.js'
import type { Subjects } from './subjects.js'
import type { CallLike, LoadedRule } from './types.js'
import { relativeToRoot } from './workspace.js'

/**
 * Does a rule name this call? Three kinds of matcher (rule-syntax.ts): a tool name, a path glob
 * for one access (read or write), and bash words. Deny and ask rules name the thing, not the
 * spelling (every command a bash call runs, in normal form, and every path form); allow rules must
 * hold for exactly what runs (the plain words, the real target), so a wrapper or a symbolic link
 * cannot borrow an allowed name.
 */

/** The first rule of `list` (one action, provenance order) that applies to this call. */
export function firstRule(
  setup: EngineSetup,
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
        if ((inv.unknownCode === true || inv.inCode === true) && rule.action !== 'deny') continue
        if (invocationMatches(normalized, prefix, inv)) {
          const computed = inv.words.includes(null)
          return {
            rule,
            subject:
              inv.unknownCode === true
                ? `"${inv.text}", which runs code only known at run time that may spell it`
                : inv.inCode === true
                  ? `"${inv.text}", whose code names it`
                  : computed
                    ? `"${inv.text}", whose words only known at run time may spell it`
                    : `"${inv.text}"`,
          }
        }
      }
    }
    if (rule.matcher.kind === 'path' && subj.paths !== undefined && appliesTo(rule, subj.spec)) {
      for (const p of subj.paths)
        if (pathRuleMatches(setup, rule, p.resolved, 'any')) return { rule, subject: p.written }
    }
  }
  return undefined
}

export function toolRuleMatches(rule: LoadedRule, name: string): boolean {
  return rule.matcher.kind === 'tool' && rule.matcher.pattern.test(name)
}

/** A path rule applies to tools of its access category only (`read(...)` never covers a write). */
export function appliesTo(rule: LoadedRule, spec: ToolSpec | undefined): boolean {
  return rule.matcher.kind === 'path' && spec !== undefined && spec.category === rule.matcher.access
}

/** `any`: the path as written or its real target; `real`: the real target only (allow rules). */
export function pathRuleMatches(
  setup: EngineSetup,
  rule: LoadedRule,
  rp: ResolvedPath,
  forms: 'any' | 'real',
): boolean {
  if (rule.matcher.kind !== 'path') return false
  const m = rule.matcher
  const candidates = forms === 'real' ? [rp.real] : [rp.lexical, rp.real]
  for (const form of candidates) {
    if (form === undefined) continue
    if (m.anchor === 'workspace') {
      const rel = relativeToRoot(setup, form)
      if (rel !== undefined && m.pattern.test(rel)) return true
    } else if (m.glob.startsWith('~/')) {
      for (const h of setup.homes) {
        if (form.startsWith(`${h}/`) && m.pattern.test(form.slice(h.length + 1))) return true
      }
    } else if (m.pattern.test(form)) return true
  }
  return false
}

/** Does an allow rule name this simple command exactly (no normalization, no wrappers)? */
export function allowRuleMatches(rule: LoadedRule, c: BashAnalysis['commands'][number]): boolean {
  if (rule.matcher.kind !== 'bash') return false
  const { words, prefix } = rule.matcher
  const argv = plainWords(c)
  if (argv === undefined) return false
  return (
    (prefix ? argv.length >= words.length : argv.length === words.length) &&
    words.every((w, i) => argv[i] === w)
  )
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
