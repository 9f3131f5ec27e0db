import type { CommandClassification } from '@toolgate/policy'
import { SANDBOX_HOME } from './fixture.js'
import { isMarker, SANDBOX_MARKER_DIR } from './markers.js'
import type { Observation } from './worker.js'

/**
 * What a command classified read-only must never do, judged from an observation:
 *
 * - `write`: a file created, changed or deleted in the fixture copy (snapshot diff), or a write
 *   attempt the snapshot cannot see (it failed: read-only mount, permission, missing directory; or
 *   it landed outside the fixture).
 * - `marker`: a marker program ran (PATH shim or git hook), or a program with a marker's name was
 *   executed by any path.
 * - `hidden-exec`: a program ran that the classification does not show (not a command's program or
 *   argument, nor a known helper of one).
 * - `network`: a socket of an internet, packet or other non-local family, or a connection to one.
 * - `privileged`: host name, clock, mount, module, namespace, kernel log changes, and changes to
 *   another process (priority, affinity, limits).
 * - `inconclusive`: the trace is missing or was cut, so the command was not fully checked (fail
 *   closed: this counts as a failure too).
 */
export type FindingKind = 'write' | 'marker' | 'hidden-exec' | 'network' | 'privileged' | 'inconclusive'

export interface Finding {
  readonly kind: FindingKind
  readonly detail: string
}

// Write targets that are not files: devices, descriptors, and the process's own /proc entries
// (coredump_filter, oom_score_adj: a process may adjust itself, as the JVM does at start; not
// /proc/self/root/... or /proc/self/cwd/..., which are paths into the file system).
const HARMLESS_WRITE_TARGET =
  /^\/dev\/(null|zero|full|tty|console|stdout|stderr|stdin|random|urandom|fd\/\d+|pts\/\d+)$|^\/proc\/(self|thread-self)\/([^/]+|fd\/\d+)$/

/**
 * Programs that a visible program legitimately runs itself. Each entry is a fact about the program,
 * checked by the harness tests: git runs its own subcommands, xargs defaults to echo, npm is a node
 * script, zcat and tar run decompressors.
 */
const KNOWN_CHILDREN: Readonly<Record<string, readonly (string | RegExp)[]>> = {
  git: ['git', /^git-/],
  xargs: ['echo'],
  npm: ['env', 'node'],
  zcat: ['gzip'],
  egrep: ['grep'], // Debian's egrep and fgrep are scripts running grep -E / -F
  fgrep: ['grep'],
  zgrep: ['gzip', 'grep'],
  tar: ['gzip', 'bzip2', 'xz', 'lzma', 'zstd', 'lzip', 'lzop', 'gunzip'],
  yq: ['jq'], // the Python yq (and its xq, tomlq) is a jq wrapper
  xq: ['jq'],
  tomlq: ['jq'],
  apt: ['dpkg'], // apt and apt-cache ask dpkg for the foreign architectures
  dpkg: ['dpkg-query'], // dpkg -s, -l, -L are dpkg-query
  'apt-cache': ['dpkg'],
  rg: ['gzip', 'bzip2', 'xz', 'lz4', 'lzma', 'zstd', 'brotli'], // rg -z runs decompressors
}

/** strace's argv of a program asked only for its version or help (see markers.ts shimScript). */
const VERSION_ONLY =
  /^\["(?:[^"]*\/)?(?:[^"/]*", "(?:--version|--help|-V|-version)|(?:perl|php)", "-v|python3?", "-VV)"\]$/

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1)

/**
 * Words of a command's canonical text when the classifier gives no argv (a word is dynamic): quotes
 * and backslashes dropped, `$'...'` escapes decoded. Generous on purpose: it may take a quoted
 * `$(ls)` for a word `$(ls)`, never for `ls`.
 */
function looseWords(text: string): string[] {
  return text
    .split(/\s+/)
    .map((t) =>
      t
        .replace(/\$'((?:[^'\\]|\\.)*)'/g, (_, body: string) =>
          body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|[0-7]{1,3}|.)/g, (__, e: string) =>
            e[0] === 'x' || e[0] === 'u'
              ? String.fromCharCode(Number.parseInt(e.slice(1), 16))
              : /^[0-7]+$/.test(e)
                ? String.fromCharCode(Number.parseInt(e, 8))
                : e,
          ),
        )
        .replace(/['"\\]/g, ''),
    )
}

/** The program names a classification shows: programs, argument words, and their known helpers. */
export function visiblePrograms(c: CommandClassification): { names: Set<string>; patterns: RegExp[] } {
  const names = new Set<string>()
  const patterns: RegExp[] = []
  for (const cmd of c.commands) {
    // Words split at blanks too: `env -S 'ls -l'` and `flock -c 'cat x'` name programs inside a word.
    const words = cmd.argv?.flatMap((w) => w.split(/\s+/)) ?? looseWords(cmd.canonical)
    for (const w of words) names.add(base(w))
    if (cmd.program !== undefined) names.add(base(cmd.program))
  }
  for (const n of [...names]) {
    for (const child of KNOWN_CHILDREN[n] ?? []) {
      if (typeof child === 'string') names.add(child)
      else patterns.push(child)
    }
  }
  return { names, patterns }
}

/** Show a path of the worker tree as the sandbox sees it. */
function sandboxPath(rel: string): string {
  if (rel === 'home' || rel.startsWith('home/')) return SANDBOX_HOME + rel.slice(4)
  if (rel === 'tmp' || rel.startsWith('tmp/')) return `/tmp${rel.slice(3)}`
  return rel
}

/** strace pads the ` = result` column; one blank reads better in a report. */
const tidy = (line: string): string => line.trim().replace(/\s+= /, ' = ')

const insideTree = (p: string): boolean =>
  p === SANDBOX_HOME || p.startsWith(`${SANDBOX_HOME}/`) || p === '/tmp' || p.startsWith('/tmp/')

export function findings(obs: Observation, c: CommandClassification): Finding[] {
  const out: Finding[] = []
  for (const ch of obs.changes)
    out.push({ kind: 'write', detail: `${ch.kind} ${sandboxPath(ch.path)} (${ch.detail})` })
  for (const w of obs.trace.writes) {
    const p = w.path
    if (p !== undefined && HARMLESS_WRITE_TARGET.test(p)) continue
    if (p !== undefined && (p === SANDBOX_MARKER_DIR || p.startsWith(`${SANDBOX_MARKER_DIR}/`))) continue
    // Successful writes inside the fixture are the snapshot's to judge (git's optional index.lock
    // and temporary files come and go); relative ones can only have landed in the fixture or on a
    // device (everything else is mounted read-only, so a write there fails and is reported).
    if (w.ok && (p === undefined || !p.startsWith('/') || insideTree(p))) continue
    out.push({ kind: 'write', detail: `${w.ok ? '' : 'attempted: '}${tidy(w.line)}` })
  }
  for (const m of obs.markers)
    out.push({
      kind: 'marker',
      detail: `${m.kind === 'hook' ? 'git hook' : 'marker'} ${m.program}${m.args === '' ? '' : ` ${m.args}`}`,
    })
  const visible = visiblePrograms(c)
  const root = obs.trace.execs[0]
  for (const e of obs.trace.execs) {
    if (e === root) continue // the harness's bash -c
    const name = base(e.path)
    if (isMarker(name)) {
      // As the shims do: a lone version or help request runs nothing.
      if (!VERSION_ONLY.test(e.argv)) out.push({ kind: 'marker', detail: `executed ${e.path} ${e.argv}` })
      continue
    }
    if (!e.ok) continue
    if (visible.names.has(name) || visible.patterns.some((r) => r.test(name))) continue
    out.push({ kind: 'hidden-exec', detail: `executed ${e.path} ${e.argv} (not in the classification)` })
  }
  for (const n of obs.trace.network) out.push({ kind: 'network', detail: tidy(n.line) })
  for (const p of obs.trace.privileged) out.push({ kind: 'privileged', detail: tidy(p.line) })
  if (obs.traceIncomplete)
    out.push({ kind: 'inconclusive', detail: 'the syscall trace is missing or was cut' })
  return out
}
