import { assertNever } from '@toolgate/core'
import { type Grammar, hasEffects, type Parsed, parseOptions } from './options.js'
import type { CodeKind, ContentRead, InnerCommand, Judgement, Word } from './types.js'
import { describeWord } from './words.js'

/** Builders for the verdicts of the program tables (types.ts `Judgement`). */

export interface Extra {
  readonly subcommand?: string
  readonly writes?: readonly Word[]
  readonly reads?: readonly ContentRead[]
  readonly runs?: readonly InnerCommand[]
  readonly code?: CodeKind
  readonly interpreter?: boolean
  readonly unsure?: boolean
  readonly opaque?: boolean
  readonly mentions?: readonly Word[]
}

const NONE: readonly never[] = Object.freeze([])

export function ok(reason: string, extra: Extra = {}): Judgement {
  return build(true, reason, extra)
}

export function no(reason: string, extra: Extra = {}): Judgement {
  return build(false, reason, extra)
}

/** Not understood: not read-only, and nobody checked whether it writes. */
export function unsure(reason: string, extra: Extra = {}): Judgement {
  return build(false, reason, { ...extra, unsure: true })
}

function build(readOnly: boolean, reason: string, e: Extra): Judgement {
  return {
    readOnly,
    reason,
    ...(e.unsure === true && !readOnly ? { unsure: true } : {}),
    ...(e.subcommand !== undefined ? { subcommand: e.subcommand } : {}),
    writes: e.writes ?? NONE,
    reads: e.reads ?? NONE,
    runs: e.runs ?? NONE,
    ...(e.code !== undefined ? { code: e.code } : {}),
    ...(e.interpreter === true ? { interpreter: true } : {}),
    ...(e.opaque === true ? { opaque: true } : {}),
    ...(e.mentions !== undefined && e.mentions.length > 0 ? { mentions: e.mentions } : {}),
  }
}

export const reading = (words: readonly Word[], recursive?: ContentRead['recursive']): ContentRead[] =>
  words.map((word) => (recursive === undefined ? { word } : { word, recursive }))

export const lit = (value: string): Word => ({ kind: 'static', value })

/** What a program's operands are, for the protected-path checks. */
export type OperandUse = 'read' | 'meta' | 'none'

export interface GrammarJudge {
  readonly grammar: Grammar
  /** `read`: files whose content it reads; `meta`: names it only looks at; `none`: not paths. */
  readonly operands: OperandUse
  /** Further checks on a successful parse (program-specific meanings of options and operands). */
  readonly check?: (p: Extract<Parsed, { ok: true }>, program: string) => Judgement | undefined
}

/**
 * Judge a command by its option grammar: an option with an effect decides (writes, runs,
 * network, not analysed); a word only known at run time standing where an option may stand is
 * refused when the grammar has such options. GNU programs permute their options unless
 * POSIXLY_CORRECT is set, so both readings are judged and the worse one is kept.
 */
export function judgeByGrammar(program: string, j: GrammarJudge, args: readonly Word[]): Judgement {
  const first = judgeReading(program, j, parseOptions(j.grammar, args, j.grammar.permute))
  if (!first.readOnly || !j.grammar.permute) return first
  // Either reading may be the program's (POSIXLY_CORRECT, or a program that does not permute):
  // the writes of the stricter one, the reads of both (`rg KEY --hidden` reads hidden files).
  const second = judgeReading(program, j, parseOptions(j.grammar, args, false))
  return { ...second, reads: [...first.reads, ...second.reads] }
}

function judgeReading(program: string, j: GrammarJudge, p: Parsed): Judgement {
  if (!p.ok) return unsure(`${program}: ${p.reason}, so the command is not analysed`)
  if (p.unknown.length > 0 && hasEffects(j.grammar)) {
    return unsure(
      `${program} with ${describeWord(p.unknown[0]!)} where an option may stand could expand to an option that writes or runs programs`,
    )
  }
  const reads: ContentRead[] = []
  const writes: Word[] = []
  const runs: InnerCommand[] = []
  let problem: Judgement | undefined
  for (const o of p.options) {
    const e = o.spec.effect
    if (e === undefined) continue
    switch (e.kind) {
      case 'reads-value':
        if (o.value !== undefined) reads.push({ word: o.value })
        continue
      case 'writes-value':
        if (o.value !== undefined) writes.push(o.value)
        problem ??= no(
          `${program} ${o.name} writes ${o.value === undefined ? 'a file' : describeWord(o.value)}`,
        )
        continue
      case 'writes':
        problem ??= no(`${program} ${o.name} ${e.why}`)
        continue
      case 'runs':
        problem ??= no(`${program} ${o.name} ${e.why}`)
        // The value names the program it runs (`sort --compress-program=CMD`, `rg --pre CMD`):
        // analysed as shell code so that deny rules and the destructive check see it.
        if (o.value !== undefined) runs.push({ kind: 'shell', code: o.value, via: `${program} ${o.name}` })
        continue
      case 'network':
        problem ??= no(`${program} ${o.name} ${e.why}`)
        continue
      case 'unsure':
        problem ??= unsure(`${program} ${o.name} ${e.why}`)
        continue
      default:
        assertNever(e)
    }
  }
  if (problem !== undefined)
    return { ...problem, writes: [...problem.writes, ...writes], reads, runs: [...problem.runs, ...runs] }
  const checked = j.check?.(p, program)
  if (checked !== undefined)
    return reads.length === 0 ? checked : { ...checked, reads: [...reads, ...checked.reads] }
  if (j.operands === 'read') reads.push(...reading(p.operands))
  return ok(`${program} only reads`, { reads })
}

/**
 * Words in code that may name files: quoted strings and `/...` or `~/...` tokens (at most 64).
 * A way to see the plain spellings (`open('/home/u/.ssh/id_rsa')`), not a proof: code can build
 * a name at run time, which is why code given to an interpreter always asks.
 */
export function pathsInCode(code: string): Word[] {
  const out = new Set<string>()
  for (const m of code.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`\n]*)`/g)) {
    const v = m[1] ?? m[2] ?? m[3] ?? ''
    if (v !== '' && !v.includes('\n')) out.add(v)
  }
  for (const m of code.matchAll(/(?:^|[\s(=,:])((?:~|\/)[^\s'"`;,)]+)/g)) out.add(m[1]!)
  return [...out].slice(0, 64).map((value) => ({ kind: 'static', value }))
}
