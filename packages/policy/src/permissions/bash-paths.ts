import { posix, resolve } from 'node:path'
import { assertNever } from '@toolgate/core'
import type { Cwd } from '../shell/analysis.js'
import type { BashAnalysis, PathUse } from './bash.js'
import { hiddenMayBeWhitelisted } from './ignore-files.js'
import { expandHome, type ResolvedPath, realPath, TILDE_USER, userHome } from './paths.js'
import { checkProtected, type ProtectedPath } from './protected.js'
import {
  anchored,
  entrySegments,
  escapeForGlob,
  expandGlob,
  pathsMeet,
  WALK_LIMIT,
  walkBelow,
} from './reach.js'

/**
 * The protected-path check of a bash call (issue 12 §4): every path a command can read or write,
 * checked against the protected table, from the directory the command runs in (issue 12 §6).
 *
 * - a word naming a file: as written and with symbolic links resolved (as for the file tools);
 * - a glob: can it match a protected path (pattern against pattern), and does it now (expanded);
 * - a directory read recursively (`grep -r`, `rg`, `find -exec cat {}`): can a protected path be
 *   below it, and is one (a bounded walk);
 * - a directory named by a command that is not read-only: is it above a protected tree (`cp -r ~`);
 * - a file whose name is only known at run time (`cat $F`, `xargs cat`, `cd "$D" && cat x`): it
 *   may be any path, so a person is asked.
 */

export interface BashProtectedHit {
  readonly action: 'deny' | 'ask'
  /** The table entry, or `undefined` for a path only known at run time. */
  readonly entry: ProtectedPath | undefined
  readonly reason: string
  /** What to name in messages: the word, and how it reaches the protected path. */
  readonly subject: string
  readonly pattern: string
  /** The whole reason, when it is not "the path SUBJECT is protected (REASON)". */
  readonly why?: string
}

export interface BashPathContext {
  readonly table: readonly ProtectedPath[]
  readonly root: string
  readonly home: string
  readonly homes: readonly string[]
}

const UNKNOWN_REASON =
  'a path only known at run time may be a protected path (credentials, secrets, configuration)'

/** Every protected path the call may touch (each subject once), in the order of its words. */
export function bashProtectedHits(b: BashAnalysis, ctx: BashPathContext): BashProtectedHit[] {
  const hits: BashProtectedHit[] = []
  const seen = new Set<string>()
  const budget = { left: WALK_LIMIT }
  for (const u of b.paths) {
    for (const hit of checkUse(u, b, ctx, budget)) {
      const key = `${hit.action}:${hit.subject}`
      if (seen.has(key)) continue
      seen.add(key)
      hits.push(hit)
      if (hits.length >= MAX_HITS) return hits
    }
  }
  return hits
}

const MAX_HITS = 16

/** The hit that decides: the first deny, else the first ask. */
export function decidingHit(hits: readonly BashProtectedHit[]): BashProtectedHit | undefined {
  return hits.find((h) => h.action === 'deny') ?? hits[0]
}

/** The sentence naming a hit (the engine's `why`). */
export function hitWhy(h: Pick<BashProtectedHit, 'why' | 'subject' | 'reason'>): string {
  return h.why ?? `the path ${h.subject} is protected (${h.reason})`
}

function* checkUse(
  use: PathUse,
  b: BashAnalysis,
  ctx: BashPathContext,
  budget: { left: number },
): Generator<BashProtectedHit> {
  // A command that writes may create the ignore file that whitelists hidden names before ripgrep
  // runs (`echo '!.env' > .ignore; rg KEY`): hidden names then count as read.
  const u: PathUse =
    use.recursive?.skipHidden === true && !b.classification.readOnly
      ? { ...use, recursive: { ...use.recursive, skipHidden: false } }
      : use
  const w = u.word
  switch (w.kind) {
    case 'static':
      yield* checkText(w.value, u, ctx, budget)
      return
    case 'glob':
      yield* checkGlob(w.pattern, w.text, u, b, ctx, budget)
      return
    case 'dynamic':
      if (w.path !== undefined) {
        yield* checkText(w.path, u, ctx, budget)
        return
      }
      if (w.values !== undefined) {
        for (const v of w.values) yield* checkUse({ ...u, word: v }, b, ctx, budget)
        return
      }
      if (u.use !== 'mention') yield unknown(u, w.why)
      return
    default:
      assertNever(w, 'word')
  }
}

function unknown(u: PathUse, why: string): BashProtectedHit {
  const verb = u.use === 'write' ? 'writes' : 'reads'
  return {
    action: 'ask',
    entry: undefined,
    reason: UNKNOWN_REASON,
    subject: `a path only known at run time (${why})`,
    pattern: '(a path only known at run time)',
    why: `"${u.text}" ${verb} a path only known at run time (${why}), which may be a protected path (credentials, secrets, configuration)`,
  }
}

/**
 * Candidate spellings of a mention: `@file` (curl), `--opt=file`, `name=file`, and the value
 * attached to a short option anywhere in a cluster (`-f.env`, `date -uf.env`, `awk -f.env`):
 * every program table cannot know every program's options, so each suffix is a candidate.
 */
function spellings(text: string, use: PathUse['use']): string[] {
  if (use !== 'mention') return [text]
  if (text === '' || text.includes('://')) return []
  const unwrap = (t: string) => (t.startsWith('@') ? t.slice(1) : t)
  const out = [unwrap(text)]
  const eq = text.indexOf('=')
  if (eq >= 0 && eq < text.length - 1) out.push(unwrap(text.slice(eq + 1)))
  if (/^-[^-]/.test(text)) for (let k = 2; k < text.length; k++) out.push(unwrap(text.slice(k)))
  return [...new Set(out)]
}

/**
 * `/proc/PID/root/x` and `/proc/PID/task/TID/root/x` are `/x` for any process in the same root (in
 * the sandbox too: `cat /proc/1/root/home/u/.ssh/id_rsa` reads the key); `/proc/self/cwd/x` is `x`
 * where the command runs; another process's `cwd` is a directory only known at run time. The
 * engine cannot resolve these links itself (its own `/proc/self` is not the command's, and other
 * processes' links are not readable here), so they are rewritten as written.
 */
const PROC_LINK = /^\/proc\/([^/]+)\/(?:task\/[^/]+\/)?(root|cwd)(?=\/|$)(.*)$/

type ProcAlias =
  | { readonly kind: 'root'; readonly rest: string }
  | { readonly kind: 'cwd'; readonly rest: string; readonly own: boolean }

function procAlias(path: string): ProcAlias | undefined {
  const m = PROC_LINK.exec(posix.normalize(path))
  if (m === null) return undefined
  const rest = m[3] ?? ''
  return m[2] === 'root'
    ? { kind: 'root', rest: rest === '' ? '/' : rest }
    : { kind: 'cwd', rest, own: m[1] === 'self' || m[1] === 'thread-self' }
}

/** The absolute forms of a path written in a command that runs in `cwd` (one per candidate). */
function placesOf(
  text: string,
  cwd: Cwd,
  ctx: BashPathContext,
): { places: { lexical: string; dir: string }[]; unknown: boolean } {
  const proc = text.startsWith('/') ? procAlias(text) : undefined
  if (proc !== undefined) {
    const own = { lexical: resolve(text), dir: '.' }
    if (proc.kind === 'cwd' && !proc.own) return { places: [own], unknown: true }
    const alias = placesOf(proc.kind === 'root' ? proc.rest : `.${proc.rest}`, cwd, ctx)
    return { places: [own, ...alias.places], unknown: alias.unknown }
  }
  // `~+` is the current directory, `~-` the previous one (only known at run time).
  if (text === '~-' || text.startsWith('~-/'))
    return { places: [{ lexical: resolve(ctx.root, text), dir: '.' }], unknown: true }
  if (text === '~+' || text.startsWith('~+/')) return placesOf(`.${text.slice(2)}`, cwd, ctx)
  const expanded = expandHome(text, ctx.home)
  if (expanded.startsWith('/')) return { places: [{ lexical: resolve(expanded), dir: '.' }], unknown: false }
  const user = TILDE_USER.exec(text)
  if (user !== null && userHome(user[1]!) === undefined)
    return { places: [{ lexical: resolve(ctx.root, text), dir: '.' }], unknown: true }
  const seen = new Set<string>()
  const places: { lexical: string; dir: string }[] = []
  for (const dir of cwd.dirs) {
    const lexical = resolve(ctx.root, expandHome(dir, ctx.home), expanded)
    if (seen.has(lexical)) continue
    seen.add(lexical)
    places.push({ lexical, dir })
  }
  return { places, unknown: cwd.unknown }
}

function accessesOf(u: PathUse): ('read' | 'write')[] {
  switch (u.use) {
    case 'read':
      return ['read']
    case 'write':
      return ['write']
    case 'mention':
      return u.readOnly ? ['read'] : ['read', 'write']
    default:
      return assertNever(u.use, 'path use')
  }
}

function* checkText(
  text: string,
  u: PathUse,
  ctx: BashPathContext,
  budget: { left: number },
): Generator<BashProtectedHit> {
  for (const spelling of spellings(text, u.use)) {
    const { places, unknown: lost } = placesOf(spelling, u.cwd, ctx)
    if (lost && u.use !== 'mention') yield unknown(u, `${spelling} from a directory only known at run time`)
    for (const { lexical, dir } of places) {
      const rp: ResolvedPath = { lexical, real: realPath(lexical) }
      // A relative path after a `cd` is named with the directory it is in.
      const named =
        dir === '.' || spelling.startsWith('/') || spelling.startsWith('~')
          ? spelling
          : `${spelling} (in ${dir})`
      for (const access of accessesOf(u)) {
        const hit = checkProtected(ctx.table, rp, access, homesFor(spelling, ctx))
        if (hit !== undefined && hit.entry.action !== 'exempt') {
          const subject =
            rp.real !== undefined && rp.real !== rp.lexical && hit.path === rp.real
              ? `${named} (a symbolic link to ${rp.real})`
              : named
          yield found(hit.entry, subject)
        }
      }
      if (u.recursive !== undefined) yield* checkRecursive(spelling, rp, u, ctx, budget)
      else if (u.use === 'mention' && !u.readOnly) yield* checkAncestor(spelling, lexical, ctx)
    }
  }
}

function found(entry: ProtectedPath, subject: string): BashProtectedHit {
  return {
    action: entry.action === 'deny' ? 'deny' : 'ask',
    entry,
    reason: entry.reason,
    subject,
    pattern: entry.pattern,
  }
}

/** Homes to anchor `~/` entries at: the session's, and that of a `~name` the word names. */
function homesFor(text: string, ctx: BashPathContext): readonly string[] {
  const user = TILDE_USER.exec(text)
  const h = user === null ? undefined : userHome(user[1]!)
  return h === undefined ? ctx.homes : [...ctx.homes, h]
}

function relevant(entry: ProtectedPath, accesses: readonly ('read' | 'write')[]): boolean {
  return entry.action !== 'exempt' && (entry.access === 'any' || accesses.includes(entry.access))
}

function* checkGlob(
  pattern: string,
  text: string,
  u: PathUse,
  b: BashAnalysis,
  ctx: BashPathContext,
  budget: { left: number },
): Generator<BashProtectedHit> {
  const accesses = accessesOf(u)
  // `~`, `~/x`, `~name/x` at the start expand before globbing.
  let absolute: string[]
  const tilde = /^~([A-Za-z_][A-Za-z0-9_.-]*)?(?=\/|$)/.exec(text)
  if (tilde !== null && pattern.startsWith(tilde[0])) {
    const h = tilde[1] === undefined ? ctx.home : userHome(tilde[1])
    if (h === undefined) {
      if (u.use !== 'mention') yield unknown(u, `${text} names an unknown user's home`)
      return
    }
    absolute = [`${escapeForGlob(h)}${pattern.slice(tilde[0].length)}`]
  } else if (pattern.startsWith('/')) {
    absolute = [pattern]
    // `/proc/*/root/home/u/.ss?/id_*`: the same pattern from the root (see procAlias).
    const proc = procAlias(pattern)
    if (proc?.kind === 'root') absolute.push(proc.rest)
    else if (proc?.kind === 'cwd') {
      if (!proc.own && u.use !== 'mention') yield unknown(u, `${text} is below another process's directory`)
      for (const d of u.cwd.dirs)
        absolute.push(`${escapeForGlob(resolve(ctx.root, expandHome(d, ctx.home)))}${proc.rest}`)
    }
  } else {
    if (u.cwd.unknown && u.use !== 'mention')
      yield unknown(u, `${text} from a directory only known at run time`)
    absolute = u.cwd.dirs.map(
      (d) => `${escapeForGlob(resolve(ctx.root, expandHome(d, ctx.home)))}/${pattern}`,
    )
  }
  const homes = homesFor(text, ctx)
  for (const abs of absolute) {
    // Pattern against pattern: what it can match, now or after the command creates files.
    for (const entry of ctx.table) {
      if (!relevant(entry, accesses)) continue
      const recursive = u.recursive !== undefined || (u.use === 'mention' && !u.readOnly && anchored(entry))
      const meets = entrySegments(entry, homes).some((segs) =>
        pathsMeet(abs, segs, {
          dotglob: b.globOptions,
          globstar: b.globOptions,
          ancestor: recursive,
          skipHiddenBelow: u.recursive?.skipHidden ?? false,
        }),
      )
      if (meets) {
        yield found(entry, `${text} (a pattern that can match ${entry.pattern})`)
        break
      }
    }
    // What it matches now, symbolic links resolved (`cat lin*/id_rsa` with `link -> ~/.ssh`).
    const matches = expandGlob(abs, b.globOptions, budget)
    if (matches === undefined) {
      yield {
        action: 'ask',
        entry: undefined,
        reason: UNKNOWN_REASON,
        subject: `${text} (it matches more files than were checked)`,
        pattern: '(too many matches)',
      }
      continue
    }
    for (const m of matches) {
      const rp = { lexical: m, real: realPath(m) }
      for (const access of accesses) {
        const hit = checkProtected(ctx.table, rp, access, homes)
        if (hit !== undefined && hit.entry.action !== 'exempt')
          yield found(hit.entry, `${text} (it matches ${display(hit.path, ctx)})`)
      }
      if (u.recursive !== undefined) yield* checkRecursive(m, rp, u, ctx, budget)
    }
  }
}

/**
 * A directory read recursively: the protected entries that can match below it (as patterns), and
 * if any can, the files actually below it (bounded; past the bound, the strictest such entry).
 */
function* checkRecursive(
  text: string,
  rp: ResolvedPath,
  u: PathUse,
  ctx: BashPathContext,
  budget: { left: number },
): Generator<BashProtectedHit> {
  const asked = u.recursive!
  // A reader that skips hidden names (ripgrep) reads them when an ignore file whitelists them.
  const rec =
    asked.skipHidden && hiddenMayBeWhitelisted(rp.real ?? rp.lexical, ctx.home, budget)
      ? { ...asked, skipHidden: false }
      : asked
  const roots = [...new Set([rp.lexical, rp.real ?? rp.lexical])]
  const candidates: ProtectedPath[] = []
  for (const entry of ctx.table) {
    if (!relevant(entry, ['read'])) continue
    const meets = roots.some((root) =>
      entrySegments(entry, ctx.homes).some((segs) =>
        pathsMeet(escapeForGlob(root), segs, {
          dotglob: false,
          globstar: false,
          ancestor: true,
          skipHiddenBelow: rec.skipHidden,
        }),
      ),
    )
    if (meets) candidates.push(entry)
  }
  if (candidates.length === 0) return
  const queue = [rp.real ?? rp.lexical]
  const seen = new Set<string>()
  let ask: BashProtectedHit | undefined
  while (queue.length > 0) {
    const root = queue.shift()!
    if (seen.has(root)) continue
    seen.add(root)
    const result = walkBelow(root, rec.skipHidden, budget, (path, isLink) => {
      const real = isLink ? realPath(path) : path
      const hit = checkProtected(ctx.table, { lexical: path, real }, 'read', ctx.homes)
      if (hit !== undefined && hit.entry.action !== 'exempt') {
        const h = found(hit.entry, `${text} (read recursively, it reaches ${display(path, ctx)})`)
        if (h.action === 'deny') {
          ask = h
          return true
        }
        ask ??= h
      }
      if (isLink && rec.followLinks && real !== undefined) queue.push(real)
      return false
    })
    if (result.kind === 'found' && ask !== undefined) {
      yield ask
      return
    }
    if (result.kind === 'limit') {
      const strictest = candidates.find((c) => c.action === 'deny') ?? candidates[0]!
      yield found(
        strictest,
        `${text} (read recursively, it may reach ${strictest.pattern}; more files are below it than were checked)`,
      )
      return
    }
  }
  if (ask !== undefined) yield ask
}

/** A directory above a protected tree, named by a command that is not read-only (`cp -r ~ x`). */
function* checkAncestor(text: string, lexical: string, ctx: BashPathContext): Generator<BashProtectedHit> {
  for (const entry of ctx.table) {
    if (entry.action === 'exempt' || !anchored(entry)) continue
    const meets = entrySegments(entry, homesFor(text, ctx)).some((segs) =>
      pathsMeet(escapeForGlob(lexical), segs, {
        dotglob: false,
        globstar: false,
        ancestor: true,
        skipHiddenBelow: false,
      }),
    )
    if (meets) {
      yield found(entry, `${text} (a directory that holds ${entry.pattern})`)
      return
    }
  }
}

/** A found path as the model may see it: inside the workspace relative to it, else from `~`. */
function display(path: string, ctx: BashPathContext): string {
  if (path.startsWith(`${ctx.root}/`)) return path.slice(ctx.root.length + 1)
  for (const h of ctx.homes) if (path.startsWith(`${h}/`)) return `~/${path.slice(h.length + 1)}`
  return path
}
