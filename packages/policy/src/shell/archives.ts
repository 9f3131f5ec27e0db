import { no, ok, reading, unsure } from './judgement.js'
import {
  arg,
  effect,
  flag,
  grammar,
  type OptionSpec,
  optArg,
  parseOptions,
  readsValue,
  tagged,
  writesValue,
} from './options.js'
import type { ContentRead, InnerCommand, Judgement, Word } from './types.js'
import { describeWord } from './words.js'

/**
 * Archive and compression tools in their listing and to-stdout modes (issue 12 §8): `tar -tf`,
 * `tar -xOf`, `unzip -l`, `gzip -l`, `zcat`. GNU tar's grammar (1.34, `tar --help`) includes its
 * old style (`tar tzf x.tgz`: bundled letters whose values follow in order) and the options that
 * run programs (`--to-command`, `-I`, `--checkpoint-action`, `-F`, `--rsh-command`) or write
 * (`-g`, `--index-file`, `--volno-file`), and an archive name `host:file` that tar opens over rsh.
 */

const RUNS = (why: string): OptionSpec => effect('required', { kind: 'runs', why })
const MODE = (m: string): OptionSpec => tagged(flag, `mode:${m}`)

const TAR = grammar({
  short: 'GnSkUWmpsMBiajJzZhPvlRwohQ',
  shortSpecs: {
    A: MODE('A'),
    c: MODE('c'),
    d: MODE('d'),
    r: MODE('r'),
    t: MODE('t'),
    u: MODE('u'),
    x: MODE('x'),
    O: tagged(flag, 'stdout'),
    g: writesValue,
    C: arg,
    T: readsValue,
    X: readsValue,
    f: tagged(arg, 'archive'),
    F: RUNS('runs a script at the end of each volume'),
    L: arg,
    b: arg,
    H: arg,
    V: arg,
    I: RUNS('runs a compression program'),
    K: arg,
    N: arg,
  },
  long: {
    catenate: MODE('A'),
    concatenate: MODE('A'),
    create: MODE('c'),
    delete: MODE('delete'),
    diff: MODE('d'),
    compare: MODE('d'),
    append: MODE('r'),
    'test-label': MODE('test-label'),
    list: MODE('t'),
    update: MODE('u'),
    extract: MODE('x'),
    get: MODE('x'),
    'to-stdout': tagged(flag, 'stdout'),
    'to-command': RUNS('runs a command for every member'),
    'use-compress-program': RUNS('runs a compression program'),
    'checkpoint-action': RUNS('can run a command at checkpoints'),
    'info-script': RUNS('runs a script at the end of each volume'),
    'new-volume-script': RUNS('runs a script at the end of each volume'),
    'rmt-command': RUNS('runs a remote tape program'),
    'rsh-command': RUNS('runs a remote shell program'),
    'listed-incremental': writesValue,
    'index-file': writesValue,
    'volno-file': writesValue,
    'files-from': readsValue,
    'exclude-from': readsValue,
    'owner-map': readsValue,
    'group-map': readsValue,
    'add-file': arg,
    file: tagged(arg, 'archive'),
    directory: arg,
    exclude: arg,
    'exclude-ignore': arg,
    'exclude-ignore-recursive': arg,
    'exclude-tag': arg,
    'exclude-tag-all': arg,
    'exclude-tag-under': arg,
    'hole-detection': arg,
    level: arg,
    occurrence: optArg,
    'sparse-version': arg,
    'one-top-level': optArg,
    'atime-preserve': optArg,
    group: arg,
    mode: arg,
    mtime: arg,
    owner: arg,
    sort: arg,
    'xattrs-exclude': arg,
    'xattrs-include': arg,
    'tape-length': arg,
    'blocking-factor': arg,
    'record-size': arg,
    format: arg,
    'pax-option': arg,
    label: arg,
    backup: optArg,
    'starting-file': arg,
    'newer-mtime': arg,
    newer: arg,
    'after-date': arg,
    suffix: arg,
    'strip-components': arg,
    transform: arg,
    xform: arg,
    checkpoint: optArg,
    'no-quote-chars': arg,
    'quote-chars': arg,
    'quoting-style': arg,
    totals: optArg,
    warning: arg,
    'force-local': tagged(flag, 'force-local'),
    ...Object.fromEntries(
      'check-device ignore-failed-read no-check-device no-seek seek sparse exclude-backups exclude-caches exclude-caches-all exclude-caches-under exclude-vcs exclude-vcs-ignores no-null no-recursion no-unquote no-verbatim-files-from null verbatim-files-from recursion unquote anchored ignore-case no-anchored no-ignore-case no-wildcards no-wildcards-match-slash wildcards wildcards-match-slash keep-directory-symlink keep-newer-files keep-old-files no-overwrite-dir overwrite overwrite-dir recursive-unlink remove-files skip-old-files unlink-first verify ignore-command-error no-ignore-command-error clamp-mtime delay-directory-restore touch no-delay-directory-restore no-same-owner no-same-permissions numeric-owner preserve-permissions same-permissions same-owner preserve-order same-order acls no-acls no-selinux no-xattrs selinux xattrs multi-volume read-full-records ignore-zeros old-archive portability posix auto-compress bzip2 xz lzip lzma lzop no-auto-compress zstd gzip gunzip ungzip compress uncompress hard-dereference dereference one-file-system absolute-names full-time check-links block-number show-defaults show-omitted-dirs show-snapshot-field-ranges show-transformed-names utc verbose interactive confirmation restrict usage version help incremental'
        .split(' ')
        .map((n) => [n, flag]),
    ),
  },
})

const TAR_VALUE_LETTERS = new Set([...'gCTXfFLbHVIKN'])

export function judgeTar(args: readonly Word[]): Judgement {
  // Old style: the first word is a bundle of letters without a dash; values follow in order.
  let words = args
  const first = args[0]
  if (first?.kind === 'static' && first.value !== '' && !first.value.startsWith('-')) {
    const expanded: Word[] = []
    let next = 1
    for (const c of first.value) {
      expanded.push({ kind: 'static', value: `-${c}` })
      if (TAR_VALUE_LETTERS.has(c)) {
        const v = args[next++]
        if (v === undefined) return unsure(`tar ${first.value}: option ${c} needs a value`)
        expanded.push(v)
      }
    }
    words = [...expanded, ...args.slice(next)]
  }
  const p = parseOptions(TAR, words)
  if (!p.ok) return unsure(`tar: ${p.reason}, so the command is not analysed`)
  if (p.unknown.length > 0)
    return unsure(`tar with ${describeWord(p.unknown[0]!)} where an option may stand is not analysed`)
  const reads: ContentRead[] = []
  const running = p.options.filter((o) => o.spec.effect?.kind === 'runs')
  if (running.length > 0) {
    const first = running[0]!
    // The values are shell commands (tar runs them with sh -c): analysed for deny rules.
    const runs: InnerCommand[] = running.flatMap((o) => {
      const code = tarProgram(o.name, o.value)
      return code === undefined ? [] : [{ kind: 'shell' as const, code, via: `tar ${o.name}` }]
    })
    return no(`tar ${first.name} ${(first.spec.effect as { why: string }).why}`, { runs })
  }
  for (const o of p.options) {
    const e = o.spec.effect
    if (e?.kind === 'writes-value')
      return no(`tar ${o.name} writes ${o.value === undefined ? 'a file' : describeWord(o.value)}`, {
        writes: o.value === undefined ? [] : [o.value],
      })
    if (e?.kind === 'reads-value' && o.value !== undefined) reads.push({ word: o.value })
  }
  const modes = new Set(
    p.options.filter((o) => o.spec.tag?.startsWith('mode:')).map((o) => o.spec.tag!.slice(5)),
  )
  const toStdout = p.options.some((o) => o.spec.tag === 'stdout')
  const mode = [...modes][0]
  if (modes.size !== 1) return unsure('tar without exactly one mode (-c, -t, -x, ...) is not analysed')
  const listing = mode === 't' || mode === 'd' || (mode === 'x' && toStdout)
  if (!listing) return no(`tar -${mode} ${mode === 'x' ? 'extracts files' : 'writes an archive'}`)
  const forceLocal = p.options.some((o) => o.spec.tag === 'force-local')
  for (const o of p.options) {
    if (o.spec.tag !== 'archive' || o.value === undefined) continue
    if (o.value.kind !== 'static')
      return unsure(`tar with an archive name only known at run time (${describeWord(o.value)})`)
    // GNU tar reads `host:file` (a colon before any slash) through rsh unless --force-local.
    const colon = o.value.value.indexOf(':')
    const slash = o.value.value.indexOf('/')
    if (colon > 0 && (slash < 0 || colon < slash) && !forceLocal)
      return no(`tar -f ${o.value.value} opens a remote archive over rsh`)
    reads.push({ word: o.value })
  }
  return ok(
    mode === 't'
      ? 'tar -t only lists an archive'
      : mode === 'd'
        ? 'tar -d only compares an archive with files'
        : 'tar -xO extracts to standard output only',
    { reads },
  )
}

/** unzip: `-l`, `-v`, `-t`, `-z`, `-p`, `-c` and zipinfo mode (`-Z`) only read; -T changes the archive. */
export function judgeUnzip(args: readonly Word[], program: string): Judgement {
  if (program === 'zipinfo')
    return ok('zipinfo only lists an archive', {
      reads: reading(args.filter((w) => !(w.kind === 'static' && w.value.startsWith('-')))),
    })
  let mode: string | undefined
  const operands: Word[] = []
  for (const w of args) {
    if (w.kind !== 'static') {
      operands.push(w)
      continue
    }
    if (w.value.startsWith('-') && w.value.length > 1) {
      for (const c of w.value.slice(1)) {
        if (c === 'T' || c === 'M')
          return no(`unzip -${c} ${c === 'T' ? 'changes the archive timestamp' : 'runs a pager'}`)
        if ('lvtzpcZ'.includes(c)) mode ??= c
      }
      continue
    }
    operands.push(w)
  }
  if (mode === undefined) return no('unzip extracts files')
  const archive = operands[0]
  return ok(`unzip -${mode} only reads the archive`, {
    reads: archive === undefined ? [] : [{ word: archive }],
  })
}

/** gzip, xz, bzip2, zstd, lz4 with `-c`/`-l`/`-t`/`-d -c`; the *cat forms; never `-o FILE`. */
export function judgeCompressor(args: readonly Word[], program: string): Judgement {
  const cat = /cat$/.test(program)
  let toStdout = cat
  const files: Word[] = []
  let ended = false
  for (const w of args) {
    if (w.kind !== 'static' || ended || !w.value.startsWith('-') || w.value === '-') {
      if (w.kind === 'dynamic' && !ended && (w.prefix === '' || w.prefix.startsWith('-')))
        return unsure(`${program} with ${describeWord(w)} where an option may stand is not analysed`)
      files.push(w)
      continue
    }
    const a = w.value
    if (a === '--') {
      ended = true
      continue
    }
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=', 1)[0]!
      if (['stdout', 'to-stdout', 'list', 'test'].includes(name)) toStdout = true
      else if (name === 'output' || name.startsWith('output-dir') || name === 'rm')
        return no(`${program} --${name} writes or removes files`)
      continue
    }
    if (/o/.test(a.slice(1)) && (program.startsWith('zstd') || program.startsWith('lz4')))
      return no(`${program} -o writes a file`, {})
    if (/[clt]/.test(a.slice(1))) toStdout = true
  }
  if (!toStdout) return no(`${program} without -c, -l or -t replaces the files it names`, { writes: files })
  return ok(`${program} ${cat ? '' : 'with -c, -l or -t '}only reads`.replace('  ', ' '), {
    reads: reading(files),
  })
}

/** The command a running option's value names (`--checkpoint-action=exec=CMD` is CMD). */
function tarProgram(name: string, value: Word | undefined): Word | undefined {
  if (value === undefined) return undefined
  if (name !== '--checkpoint-action') return value
  if (value.kind !== 'static') return value
  return value.value.startsWith('exec=') ? { kind: 'static', value: value.value.slice(5) } : undefined
}
