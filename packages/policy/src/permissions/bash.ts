import { classifyCommand, splitCompound } from '../shell/classify.js'
import type { CommandClassification, SimpleCommandInfo } from '../shell/types.js'

/**
 * What a bash command is, as far as permissions care, from the shell classifier (issue 4 §1):
 * its simple commands, whether it splits completely (only then may rules and grants match it part
 * by part), the files it writes, the words that may name files, and whether it is destructive.
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
  /** Argument words that may name files (`@file`, `--out=file` unwrapped), as written. */
  readonly mentions: readonly string[]
  /** The first destructive simple command and why, or `undefined`. */
  readonly destructive: { readonly text: string; readonly why: string } | undefined
}

export function analyzeBash(command: string): BashAnalysis {
  const classification = classifyCommand(command)
  const complete = splitCompound(command) !== undefined
  const commands = classification.commands
  const mentions: string[] = []
  for (const c of commands) {
    const words = c.argv ?? roughWords(c.canonical)
    for (const w of words.slice(1)) addMentions(w, mentions)
  }
  for (const w of classification.writes) addMentions(w, mentions)
  let destructive: BashAnalysis['destructive']
  for (const c of commands) {
    const why = destructiveWhy(c)
    if (why !== undefined) {
      destructive = { text: c.canonical, why }
      break
    }
  }
  if (destructive === undefined && (!complete || commands.length === 0) && !classification.readOnly) {
    destructive = { text: command, why: 'the command could not be fully analysed, so it may be destructive' }
  }
  return { command, classification, commands, complete, writes: classification.writes, mentions, destructive }
}

/** Words of a canonical text when the classifier could not resolve them statically. */
function roughWords(canonical: string): string[] {
  return canonical.split(/\s+/).map((w) => w.replace(/["']/g, ''))
}

const HOME_VAR = /^\$\{HOME\}(?=\/|$)|^\$HOME(?=\/|$)/

/** A word as a file candidate: `@file` (curl) unwrapped, `$HOME` read as `~`. */
function asPath(word: string): string {
  return (word.startsWith('@') ? word.slice(1) : word).replace(HOME_VAR, '~')
}

function addMentions(word: string, out: string[]): void {
  if (word === '' || word.includes('://')) return
  out.push(asPath(word))
  const eq = word.indexOf('=')
  if (eq >= 0 && eq < word.length - 1) out.push(asPath(word.slice(eq + 1)))
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
])
/** Programs that run another program given in their arguments (`xargs rm`, `env X=1 git ...`). */
export const WRAPPERS: ReadonlySet<string> = new Set([
  'xargs',
  'env',
  'nice',
  'nohup',
  'timeout',
  'time',
  'command',
  'builtin',
  'exec',
  'stdbuf',
  'ionice',
  'watch',
])

/**
 * "Destructive" (never offered a session grant; asks even where the preset would allow): deletes or
 * overwrites data beyond recovery, discards uncommitted work, rewrites published history, or kills
 * processes. Defined on the classifier's parsed argv, never on raw text.
 */
export function destructiveWhy(c: SimpleCommandInfo): string | undefined {
  const program = c.program
  if (program === undefined) return 'the program name is computed at run time'
  const base = program.slice(program.lastIndexOf('/') + 1)
  const argv = c.argv
  if (ALWAYS_DESTRUCTIVE.has(base) || base.startsWith('mkfs')) return `${base} is destructive`
  if (argv === undefined) return undefined
  const args = argv.slice(1)
  if (WRAPPERS.has(base)) {
    const inner = args.find((a) => ALWAYS_DESTRUCTIVE.has(a.slice(a.lastIndexOf('/') + 1)))
    if (inner !== undefined) return `${base} runs ${inner}, which is destructive`
  }
  if (base === 'find' && args.some((a) => ['-delete', '-exec', '-execdir', '-ok', '-okdir'].includes(a))) {
    return 'find with -delete or -exec can delete files'
  }
  if (
    (base === 'chmod' || base === 'chown' || base === 'chgrp') &&
    args.some((a) => /^-[a-zA-Z]*R/.test(a) || a === '--recursive')
  ) {
    return `${base} -R changes a whole tree`
  }
  if (base === 'git') return gitDestructive(c.subcommand, args)
  return undefined
}

function gitDestructive(sub: string | undefined, args: readonly string[]): string | undefined {
  const has = (...flags: string[]) => args.some((a) => flags.includes(a))
  switch (sub) {
    case 'push':
      if (has('-f', '--force', '--force-with-lease', '--mirror', '--delete', '-d', '--prune')) {
        return 'git push with --force/--delete rewrites or removes published history'
      }
      if (args.some((a, i) => i > 0 && (a.startsWith('+') || a.startsWith(':')))) {
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
    case 'branch':
      return has('-D', '--delete', '-d', '-M', '--force', '-f') ? 'git branch -D deletes a branch' : undefined
    case 'stash':
      return has('drop', 'clear') ? 'git stash drop/clear deletes stashed work' : undefined
    case 'filter-branch':
    case 'filter-repo':
      return `git ${sub} rewrites history`
    case 'reflog':
      return has('expire', 'delete') ? 'git reflog expire/delete removes recovery points' : undefined
    case 'update-ref':
      return has('-d') ? 'git update-ref -d deletes a reference' : undefined
    default:
      return undefined
  }
}

/**
 * The words of a simple command when it is exactly those words: no env prefix (`LD_PRELOAD=...`)
 * and no redirect other than harmless ones (`2>&1`, `>/dev/null`). Allow/ask rules and grants only
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
