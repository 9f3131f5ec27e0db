import { firstDynamic, hitsFlag, no, staticArgs } from './programs.js'
import type { Verdict, Word } from './types.js'

/**
 * git is read-only only for reading subcommands with reading flags (seed 003 §8.4: `git status`
 * yes, `git push --force` no). Global options that load other configuration or another repository
 * (`-c`, `--config-env`, `-C`, `--git-dir`, `--work-tree`, `--exec-path`) are refused: a config can
 * name a pager, an fsmonitor or a diff driver, which runs arbitrary code.
 */

// Global options that are safe before the subcommand.
const SAFE_GLOBAL = new Set([
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--no-replace-objects',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--version',
  '--help',
])

// Subcommands that only read the repository (with the flag checks below).
const READING = new Set([
  'status',
  'log',
  'show',
  'diff',
  'shortlog',
  'describe',
  'rev-parse',
  'rev-list',
  'ls-files',
  'ls-tree',
  'cat-file',
  'blame',
  'annotate',
  'grep',
  'show-ref',
  'for-each-ref',
  'merge-base',
  'name-rev',
  'count-objects',
  'check-ignore',
  'check-attr',
  'whatchanged',
  'cherry',
  'range-diff',
  'show-branch',
  'version',
  'diff-tree',
  'diff-files',
  'diff-index',
])

// Flags that write a file, run an external program or a pager, wherever they appear.
const DANGEROUS_LONG = [
  'output',
  'ext-diff',
  'textconv',
  'open-files-in-pager',
  'exec',
  'upload-pack',
  'receive-pack',
]

export function judgeGit(args: readonly Word[]): Verdict {
  const list = staticArgs(args)
  if (list === undefined) {
    return no(`git with a dynamic argument (${firstDynamic(args)!.why}) could expand to a writing option`, {
      unsure: true,
    })
  }
  let i = 0
  for (; i < list.length; i++) {
    const a = list[i]!
    if (!a.startsWith('-')) break
    if (SAFE_GLOBAL.has(a)) {
      if (a === '--version') return { readOnly: true, reason: 'git --version only prints' }
      if (a === '--help') return no('git --help opens a pager or browser', { unsure: true })
      continue
    }
    return no(
      `git ${a.split('=')[0]} can load other configuration or another repository (which can run code)`,
    )
  }
  const sub = list[i]
  if (sub === undefined) return no('git without a subcommand is not analysed', { unsure: true })
  const rest = list.slice(i + 1)
  const verdict = judgeSub(sub, rest)
  return { ...verdict, subcommand: sub }
}

function judgeSub(sub: string, rest: readonly string[]): Verdict {
  for (const a of rest) {
    if (a === '--') break
    const hit = hitsFlag(a, sub === 'grep' ? 'O' : '', DANGEROUS_LONG)
    if (hit !== undefined) {
      return no(
        `git ${sub} ${hit} writes a file or runs an external program`,
        hit === '--output' && a.includes('=') ? { writes: [a.slice(a.indexOf('=') + 1)] } : {},
      )
    }
  }
  if (READING.has(sub)) return { readOnly: true, reason: `git ${sub} only reads the repository` }
  switch (sub) {
    case 'branch':
      return listingOnly(
        sub,
        rest,
        [
          '-a',
          '--all',
          '-r',
          '--remotes',
          '-v',
          '-vv',
          '--verbose',
          '--show-current',
          '--no-color',
          '--color',
          '--column',
          '--no-column',
          '-i',
          '--ignore-case',
          '--omit-empty',
        ],
        [
          '--contains',
          '--no-contains',
          '--merged',
          '--no-merged',
          '--points-at',
          '--sort',
          '--format',
          '--abbrev',
        ],
      )
    case 'tag':
      return listingOnly(
        sub,
        rest,
        ['-n', '--no-color', '--color', '--column', '--no-column', '-i', '--ignore-case'],
        ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'],
      )
    case 'remote':
      if (rest.length === 0 || (rest.length === 1 && (rest[0] === '-v' || rest[0] === '--verbose')))
        return { readOnly: true, reason: 'git remote lists remotes' }
      if (rest[0] === 'get-url')
        return { readOnly: true, reason: 'git remote get-url only reads configuration' }
      return no(`git remote ${rest[0]} changes remotes or reaches the network`)
    case 'config': {
      if (rest[0] === 'get' || rest[0] === 'list')
        return { readOnly: true, reason: `git config ${rest[0]} only reads configuration` }
      const reading = rest.some((a) =>
        ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l'].includes(a),
      )
      const writing = rest.some(
        (a) =>
          /^--(add|unset|unset-all|replace-all|rename-section|remove-section|edit)$/.test(a) || a === '-e',
      )
      if (reading && !writing)
        return { readOnly: true, reason: 'git config --get/--list only reads configuration' }
      return no('git config without --get or --list can change configuration', { unsure: true })
    }
    case 'stash':
      if (rest[0] === 'list' || rest[0] === 'show')
        return { readOnly: true, reason: `git stash ${rest[0]} only reads` }
      return no('git stash changes the working tree')
    case 'worktree':
      if (rest[0] === 'list') return { readOnly: true, reason: 'git worktree list only reads' }
      return no(`git worktree ${rest[0] ?? ''} changes worktrees`.trimEnd())
    case 'reflog':
      if (
        rest.length === 0 ||
        rest[0] === 'show' ||
        (!['expire', 'delete', 'exists'].includes(rest[0]!) && rest[0]!.startsWith('-'))
      ) {
        return { readOnly: true, reason: 'git reflog show only reads' }
      }
      return no(`git reflog ${rest[0]} changes the reflog`)
    case 'fetch':
    case 'pull':
    case 'push':
    case 'clone':
    case 'ls-remote':
    case 'submodule':
      return no(`git ${sub} reaches the network or changes the repository`)
    default:
      return no(`git ${sub} is not a reading subcommand`)
  }
}

/** `git branch`/`git tag`: listing only; a bare operand creates a branch or tag unless --list. */
function listingOnly(
  sub: string,
  rest: readonly string[],
  flags: readonly string[],
  valued: readonly string[],
): Verdict {
  const listing = rest.some((a) => a === '-l' || a === '--list')
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!
    if (a === '-l' || a === '--list' || flags.includes(a)) continue
    const name = a.split('=', 1)[0]!
    if (valued.includes(name)) {
      if (!a.includes('=')) i++
      continue
    }
    if (!a.startsWith('-') && listing) continue
    return no(`git ${sub} ${a} ${a.startsWith('-') ? 'is not a listing option' : `creates a ${sub}`}`)
  }
  return { readOnly: true, reason: `git ${sub} only lists` }
}
