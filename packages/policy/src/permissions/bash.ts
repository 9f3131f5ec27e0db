import type { Analysis, CommandFacts, Cwd } from '../shell/analysis.js'
import { analyzeCommand } from '../shell/classify.js'
import { normalizeCommand, type RuleWord, ruleWords } from '../shell/normalize.js'
import type { CommandClassification, ContentRead, SimpleCommandInfo, Word } from '../shell/types.js'

/**
 * What a bash command is, as far as permissions care, from the shell classifier (issue 4 §1,
 * issue 12): its simple commands, whether it splits completely (only then may allow rules and
 * grants match it part by part), every command it runs in normal form (for deny and ask rules and
 * the destructive check: behind wrappers, `find -exec`, `xargs`, `sh -c`), every path it may touch
 * (for the protected-path table), and whether it is destructive or may not be granted.
 */
export interface BashAnalysis {
  readonly command: string
  readonly classification: CommandClassification
  /** Every simple command found (substitutions included), in source order. */
  readonly commands: readonly SimpleCommandInfo[]
  /** True when the simple commands cover the whole input (`splitCompound` succeeded). */
  readonly complete: boolean
  /** Statically known write targets (redirects and write flags), as written. */
  readonly writes: readonly string[]
  /** Every command the call runs, normalized (see normalize.ts), with the simple command it is in. */
  readonly invocations: readonly Invocation[]
  /** Every path use to check against the protected table. */
  readonly paths: readonly PathUse[]
  /** Destructive commands and why, in source order (the first decides the message). */
  readonly destructives: readonly { readonly text: string; readonly why: string }[]
  readonly destructive: { readonly text: string; readonly why: string } | undefined
  /** Why no session grant may cover this call (an interpreter, a shell, code from stdin). */
  readonly ungrantable: string | undefined
  /** Glob options may be changed by the command: globs are matched in the worst case. */
  readonly globOptions: boolean
}

export interface Invocation {
  /** Normalized words; `null` stands for words only known at run time. */
  readonly words: readonly RuleWord[]
  /** An unknown program: any of its arguments may start a command it runs. */
  readonly opaque: boolean
  /** The simple command it belongs to (for messages). */
  readonly text: string
  /**
   * Stands for code whose text is unknown here (`| sh`, `eval "$X"`): deny rules match it (they
   * name the thing, not the spelling); ask rules do not (the call is destructive-unknown, which
   * asks anyway, and an ask naming an unrelated rule would mislead).
   */
  readonly unknownCode?: true
  /**
   * Words found inside an argument of a program that runs code or is unknown (`node -e
   * 'execSync("git push")'`, `sqlite3 -cmd '.shell git push'`): deny rules match a command
   * starting at any of them (fail closed: the code may run it); ask rules and the destructive
   * check do not.
   */
  readonly inCode?: true
}

/**
 * A path a command may touch. `mention`: a word that may name a file (every argument, as before:
 * checked as a read, and as a write when the command is not read-only). `read`: a file whose
 * content it reads. `write`: a file it writes.
 */
export interface PathUse {
  readonly word: Word
  readonly cwd: Cwd
  readonly use: 'mention' | 'read' | 'write'
  readonly recursive?: ContentRead['recursive']
  /** The command it belongs to is read-only. */
  readonly readOnly: boolean
  readonly text: string
}

export function analyzeBash(command: string): BashAnalysis {
  const a = analyzeCommand(command)
  const invocations: Invocation[] = []
  // Words inside code, matched after every command the call certainly runs (for the message).
  const codeWords: Invocation[] = []
  const paths: PathUse[] = []
  const destructives: { text: string; why: string }[] = []
  let ungrantable: string | undefined
  const visit = (an: Analysis) => {
    for (const f of an.facts) {
      collect(f, invocations, codeWords, paths, destructives)
      if (ungrantable === undefined && (f.judgement.interpreter === true || f.judgement.code !== undefined)) {
        ungrantable = `"${f.info.canonical}" runs a shell or an interpreter, which can run any code`
      }
      // A grant covers the exact part; a part whose words are only known at run time is not exact.
      if (ungrantable === undefined && !f.info.readOnly && f.info.argv === undefined) {
        ungrantable = `"${f.info.canonical}" has words only known at run time`
      }
      for (const inner of f.inner) visit(inner)
    }
    for (const r of an.reads)
      paths.push({ word: r.word, cwd: r.cwd, use: 'read', readOnly: true, text: 'an input redirect' })
    for (const w of an.writes)
      paths.push({ word: w.word, cwd: w.cwd, use: 'write', readOnly: false, text: 'an output redirect' })
  }
  visit(a)
  invocations.push(...codeWords)
  const classification = a.classification
  if (destructives.length === 0 && (!a.complete || a.facts.length === 0) && !classification.readOnly) {
    destructives.push({
      text: command,
      why: 'the command could not be fully analysed, so it may be destructive',
    })
  }
  return {
    command,
    classification,
    commands: classification.commands,
    complete: a.complete,
    writes: classification.writes,
    invocations,
    paths,
    destructives,
    destructive: destructives[0],
    ungrantable,
    globOptions: a.globOptions,
  }
}

/** Programs with a script language that can run commands (awk `system()`, sed `e`). */
const SCRIPT_LANGUAGES: ReadonlySet<string> = new Set([
  'awk',
  'gawk',
  'mawk',
  'nawk',
  'busybox',
  'sed',
  'gsed',
])

const UNKNOWN_CODE: Word = {
  kind: 'dynamic',
  why: 'code only known at run time',
  prefix: '',
  split: true,
}

function collect(
  f: CommandFacts,
  invocations: Invocation[],
  codeWords: Invocation[],
  paths: PathUse[],
  destructives: { text: string; why: string }[],
): void {
  const text = f.info.canonical
  const j = f.judgement
  const add = (words: readonly Word[], opaque: boolean, unknownCode = false) => {
    if (words.length === 0) return
    const inv: Invocation = {
      words: normalizeCommand(ruleWords(words)),
      opaque,
      text,
      ...(unknownCode ? { unknownCode: true as const } : {}),
    }
    if (unknownCode) {
      invocations.push(inv)
      return
    }
    invocations.push(inv)
    const why = destructiveOf(inv)
    if (why !== undefined && !destructives.some((d) => d.text === text && d.why === why))
      destructives.push({ text, why })
  }
  if (f.words.length > 0) add(f.words, j.opaque === true)
  for (const r of j.runs) if (r.kind === 'argv') add(r.words, r.opaque === true)
  // Code whose text is unknown here (`| sh`, `eval "$X"`, `$((a[$(...)]))`) may run any command:
  // words only known at run time, which every deny and ask rule matches (a deny rule means the
  // thing, not the spelling; issue 12 §5).
  // Code the engine cannot parse (another language, a program's own command syntax): the words
  // in it, each a possible start of a command for deny rules.
  // (Shell code the engine parsed is in f.inner instead.)
  const program = f.info.program?.slice(f.info.program.lastIndexOf('/') + 1)
  const script = !j.readOnly && program !== undefined && SCRIPT_LANGUAGES.has(program)
  if (
    f.inner.length === 0 &&
    (script || j.opaque === true || (j.interpreter === true && j.code !== undefined))
  ) {
    for (const w of f.words.slice(1)) {
      if (w.kind !== 'static') continue
      const tokens = w.value.split(/[^A-Za-z0-9_.:/@%+=,-]+/).filter((t) => t !== '')
      if (tokens.length < 2) continue
      codeWords.push({ words: tokens, opaque: true, text, inCode: true })
    }
  }
  if (j.code === 'stdin' || j.code === 'dynamic') add([UNKNOWN_CODE], false, true)
  for (const r of j.runs) if (r.kind === 'shell' && r.code.kind !== 'static') add([UNKNOWN_CODE], false, true)
  if (j.code === 'inline' || j.code === 'stdin' || j.code === 'dynamic') {
    const why = `it ${j.code === 'stdin' ? 'runs code it reads from standard input' : j.code === 'dynamic' ? 'runs code only known at run time' : 'runs code given on the command line'}, which is not analysed, so it may be destructive`
    if (!destructives.some((d) => d.text === text)) destructives.push({ text, why })
  }
  const ro = f.info.readOnly
  const place = (word: Word, use: PathUse['use'], recursive?: ContentRead['recursive']) =>
    paths.push({
      word,
      cwd: f.cwd,
      use,
      readOnly: ro,
      text,
      ...(recursive !== undefined ? { recursive } : {}),
    })
  // Writes and reads first: they name the use in messages; then every word as a mention.
  for (const w of j.writes) place(w, 'write')
  for (const w of f.redirectWrites) place(w, 'write')
  for (const r of j.reads) place(r.word, 'read', r.recursive)
  for (const w of f.redirectReads) place(w, 'read')
  for (const w of f.words.slice(1)) place(w, 'mention')
  for (const w of f.assignments) place(w, 'mention')
  for (const w of j.mentions ?? []) place(w, 'mention')
}

const ALWAYS_DESTRUCTIVE = new Set([
  'rm',
  'rmdir',
  'unlink',
  'shred',
  'dd',
  'truncate',
  'wipefs',
  'fdisk',
  'sfdisk',
  'parted',
  'mkswap',
  'kill',
  'pkill',
  'killall',
  'reboot',
  'shutdown',
  'halt',
  'poweroff',
  'sudo',
  'doas',
  'su',
  'pkexec',
])

/**
 * "Destructive" (never offered a session grant; asks even where the preset would allow): deletes or
 * overwrites data beyond recovery, discards uncommitted work, rewrites published history, or kills
 * processes. Judged on the normal form of every command the call runs; a word only known at run
 * time counts as the worst word it could be (`git reset $X` may be `--hard`). For an unknown
 * program every argument may start a command (`mytool rm -rf x`).
 */
function destructiveOf(inv: Pick<Invocation, 'words' | 'opaque'>): string | undefined {
  const direct = destructiveWords(inv.words)
  if (direct !== undefined || !inv.opaque) return direct
  for (let s = 1; s < inv.words.length; s++) {
    const w = inv.words[s] as RuleWord
    if (w === null || w.startsWith('-')) continue
    const why = destructiveWords(normalizeCommand(inv.words.slice(s)))
    if (why !== undefined) return `it may run "${w}": ${why}`
  }
  return undefined
}

function destructiveWords(words: readonly RuleWord[]): string | undefined {
  const program = words[0]
  if (program === undefined) return undefined
  if (program === null) return 'the program name is computed at run time'
  const args = words.slice(1)
  const unknown = args.includes(null)
  const has = (...flags: string[]) => unknown || args.some((a) => a !== null && flags.includes(a))
  const hasShort = (c: string) =>
    unknown || args.some((a) => a !== null && new RegExp(`^-[a-zA-Z]*${c}`).test(a))
  if (ALWAYS_DESTRUCTIVE.has(program) || program.startsWith('mkfs')) return `${program} is destructive`
  switch (program) {
    case 'find':
      return has('-delete') ? 'find -delete deletes files' : undefined
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return hasShort('R') || has('--recursive') ? `${program} -R changes a whole tree` : undefined
    case 'rsync':
      return args.some((a) => a === null || a.startsWith('--delete') || a === '--remove-source-files')
        ? 'rsync --delete removes files'
        : undefined
    case 'git':
      return gitDestructive(args)
    default:
      return undefined
  }
}

function gitDestructive(args: readonly RuleWord[]): string | undefined {
  const sub = args[0]
  if (sub === undefined) return undefined
  if (sub === null) return 'git with a subcommand only known at run time may be destructive'
  const rest = args.slice(1)
  const unknown = rest.includes(null)
  const has = (...flags: string[]) => unknown || rest.some((a) => a !== null && flags.includes(a))
  switch (sub) {
    case 'push':
      if (has('-f', '--force', '--force-with-lease', '--mirror', '--delete', '-d', '--prune')) {
        return 'git push with --force/--delete rewrites or removes published history'
      }
      if (rest.some((a, i) => i > 0 && a !== null && (a.startsWith('+') || a.startsWith(':')))) {
        return 'git push with a +refspec or :refspec rewrites or removes published history'
      }
      return undefined
    case 'reset':
      return has('--hard', '--merge', '--keep') ? 'git reset --hard discards uncommitted work' : undefined
    case 'clean':
      return 'git clean deletes untracked files'
    case 'checkout':
      return has('--', '-f', '--force', '.')
        ? 'git checkout of paths or --force discards uncommitted work'
        : undefined
    case 'restore':
      return 'git restore discards uncommitted work'
    case 'switch':
      return has('-f', '--force', '--discard-changes', '-C', '--force-create')
        ? 'git switch --force discards uncommitted work'
        : undefined
    case 'branch':
      return has('-D', '--delete', '-d', '-M', '--force', '-f') ? 'git branch -D deletes a branch' : undefined
    case 'tag':
      return has('-d', '--delete', '-f', '--force') ? 'git tag -d deletes a tag' : undefined
    case 'stash':
      return has('drop', 'clear') ? 'git stash drop/clear deletes stashed work' : undefined
    case 'filter-branch':
    case 'filter-repo':
      return `git ${sub} rewrites history`
    case 'reflog':
      return has('expire', 'delete') ? 'git reflog expire/delete removes recovery points' : undefined
    case 'update-ref':
      return has('-d', '--delete') ? 'git update-ref -d deletes a reference' : undefined
    case 'gc':
    case 'prune':
      return has('--prune=now', '--aggressive') || sub === 'prune'
        ? `git ${sub} removes unreachable objects`
        : undefined
    default:
      return undefined
  }
}

/**
 * The words of a simple command when it is exactly those words: no env prefix (`LD_PRELOAD=...`)
 * and no redirect other than harmless ones (`2>&1`, `>/dev/null`). Allow rules and grants only
 * match such parts; a rule never matches what it does not name.
 */
export function plainWords(c: SimpleCommandInfo): readonly string[] | undefined {
  if (c.argv === undefined) return undefined
  const stripped = c.canonical.replace(/(^|\s)(?:\d*>&\d+|\d*>&-|&?\d*>>?\s*\/dev\/null)(?=\s|$)/g, '$1')
  let quote: string | undefined
  for (let i = 0; i < stripped.length; i++) {
    const ch = stripped[i]!
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else if (ch === '\\' && quote === '"') i++
      continue
    }
    if (ch === '\\') i++
    else if (ch === "'" || ch === '"') quote = ch
    else if (ch === '<' || ch === '>') return undefined
  }
  if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(stripped.trimStart())) return undefined
  return c.argv
}

/** Compatibility: the first destructive reason of one simple command's words. */
export function destructiveWhy(c: SimpleCommandInfo): string | undefined {
  if (c.program === undefined) return 'the program name is computed at run time'
  if (c.argv === undefined) return destructiveWords([c.program.slice(c.program.lastIndexOf('/') + 1)])
  return destructiveWords(normalizeCommand(c.argv))
}
