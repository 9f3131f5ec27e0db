import { assertNever } from '@toolgate/core'
import { no, ok, reading, unsure } from './judgement.js'
import { arg, effect, flag, grammar, type OptionSpec, parseOptions, tagged } from './options.js'
import { scanSedScript } from './sed.js'
import type { ContentRead, Judgement, Word } from './types.js'
import { describeWord } from './words.js'

/**
 * `sed`: GNU sed 4.9's options (and the BSD/macOS in-place spellings `-i EXT`, `-I EXT`), then the
 * script scanned by sed.ts. GNU sed joins `-e` scripts with newlines, and so does the scan.
 */
const IN_PLACE: OptionSpec = effect('optional', { kind: 'writes', why: 'edits files in place' })
export const SED_GRAMMAR = grammar({
  short: 'nrEsuzb',
  shortSpecs: {
    e: tagged(arg, 'script'),
    f: effect('required', { kind: 'unsure', why: 'reads its script from a file that is not analysed' }),
    l: arg,
    i: IN_PLACE,
    I: IN_PLACE,
    a: flag,
  },
  long: {
    quiet: flag,
    silent: flag,
    debug: flag,
    expression: tagged(arg, 'script'),
    file: effect('required', { kind: 'unsure', why: 'reads its script from a file that is not analysed' }),
    'follow-symlinks': flag,
    'in-place': IN_PLACE,
    'line-length': arg,
    posix: flag,
    'regexp-extended': flag,
    separate: flag,
    sandbox: flag,
    unbuffered: flag,
    'null-data': flag,
    'zero-terminated': flag,
    binary: flag,
    help: flag,
    version: flag,
  },
})

export function judgeSedArgs(args: readonly Word[]): Judgement {
  let worst: Judgement | undefined
  for (const permute of [true, false]) {
    const j = judgeReading(args, permute)
    if (!j.readOnly) return j
    worst ??= j
  }
  return worst!
}

function judgeReading(args: readonly Word[], permute: boolean): Judgement {
  const p = parseOptions(SED_GRAMMAR, args, permute)
  if (!p.ok) return unsure(`sed: ${p.reason}, so the command is not analysed`)
  if (p.unknown.length > 0)
    return unsure(`sed with ${describeWord(p.unknown[0]!)} where an option may stand could expand to -i`)
  for (const o of p.options) {
    if (o.spec.effect?.kind === 'writes') {
      const files = p.options.some((x) => x.spec.tag === 'script') ? p.operands : p.operands.slice(1)
      return no(`sed ${o.name} edits files in place`, { writes: files })
    }
    if (o.spec.effect?.kind === 'unsure') return unsure(`sed ${o.name} ${o.spec.effect.why}`)
  }
  const given = p.options.filter((o) => o.spec.tag === 'script').map((o) => o.value!)
  const scripts = given.length > 0 ? given : p.operands.slice(0, 1)
  const files = given.length > 0 ? p.operands : p.operands.slice(1)
  if (scripts.length === 0) return unsure('sed without a script is not analysed')
  const texts: string[] = []
  for (const s of scripts) {
    if (s.kind !== 'static')
      return unsure(`sed with a script only known at run time (${describeWord(s)}) is not analysed`)
    texts.push(s.value)
  }
  const scan = scanSedScript(texts.join('\n'))
  switch (scan.kind) {
    case 'writes':
      return no(`sed script ${scan.why}`, {
        writes: scan.files.map((value) => ({ kind: 'static' as const, value })),
      })
    case 'runs':
      return no(`sed script ${scan.why}`)
    case 'unsure':
      return unsure(`sed script ${scan.why}`)
    case 'prints': {
      const reads: ContentRead[] = [
        ...reading(files),
        ...scan.reads.map((value) => ({ word: { kind: 'static' as const, value } })),
      ]
      return ok('sed without -i and without w/e commands only prints', { reads })
    }
    default:
      return assertNever(scan)
  }
}
