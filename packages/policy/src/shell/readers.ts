import {
  type GrammarJudge,
  judgeByGrammar,
  lit,
  no,
  type OperandUse,
  ok,
  reading,
  unsure,
} from './judgement.js'
import {
  arg,
  effect,
  flag,
  type Grammar,
  grammar,
  type OptionSpec,
  optArg,
  type Parsed,
  readsValue,
  tagged,
  writesValue,
} from './options.js'
import { judgeSedArgs } from './sed-command.js'
import type { ContentRead, Judgement, Word } from './types.js'
import { describeWord, mayBeOption } from './words.js'

/**
 * Programs that read (files, directories, system state) and print, each with its option grammar
 * (GNU coreutils and friends as installed on Debian 12, checked against `--help` in the tests) and
 * the BSD/macOS options that write (`base64 -o`), so that no spelling of a writing option passes.
 * `operands` says what the operands are for the protected-path checks: file contents (`read`),
 * names only (`meta`: `ls`, `stat`, `du`) or not paths at all (`none`).
 */

type ReaderJudge = (args: readonly Word[], program: string) => Judgement

const RUNS_DECOMPRESSORS: OptionSpec = effect('none', {
  kind: 'runs',
  why: 'runs external decompression programs',
})

/** A program whose options only need to be told apart from operands (unknown ones are flags). */
function simple(
  operands: OperandUse,
  takes = '',
  longTakes: readonly string[] = [],
  numeric = false,
): GrammarJudge {
  const long: Record<string, OptionSpec> = {}
  for (const l of longTakes) long[l] = arg
  return {
    grammar: grammar({
      short: [...takes].map((c) => `${c}:`).join(''),
      long,
      lenient: true,
      ...(numeric ? { numeric: arg } : {}),
    }),
    operands,
  }
}

const by =
  (j: GrammarJudge): ReaderJudge =>
  (args, program) =>
    judgeByGrammar(program, j, args)

// ---- grep and ripgrep ---------------------------------------------------------------------------

const RECURSE = tagged(flag, 'recursive')
const GREP: Grammar = grammar({
  short: 'EFGPiywxzsvVbnHhoqaIlLcTZU',
  shortSpecs: {
    e: tagged(arg, 'pattern'),
    f: { arity: 'required', effect: { kind: 'reads-value' }, tag: 'pattern' },
    m: arg,
    A: arg,
    B: arg,
    C: arg,
    d: tagged(arg, 'directories'),
    D: arg,
    r: RECURSE,
    R: tagged(flag, 'recursive-follow'),
  },
  long: {
    'extended-regexp': flag,
    'fixed-strings': flag,
    'basic-regexp': flag,
    'perl-regexp': flag,
    regexp: tagged(arg, 'pattern'),
    file: { arity: 'required', effect: { kind: 'reads-value' }, tag: 'pattern' },
    'ignore-case': flag,
    'no-ignore-case': flag,
    'word-regexp': flag,
    'line-regexp': flag,
    'null-data': flag,
    'no-messages': flag,
    'invert-match': flag,
    version: flag,
    help: flag,
    'max-count': arg,
    'byte-offset': flag,
    'line-number': flag,
    'no-line-number': flag,
    'line-buffered': flag,
    'with-filename': flag,
    'no-filename': flag,
    label: arg,
    'only-matching': flag,
    quiet: flag,
    silent: flag,
    'binary-files': arg,
    text: flag,
    directories: tagged(arg, 'directories'),
    devices: arg,
    recursive: RECURSE,
    'dereference-recursive': tagged(flag, 'recursive-follow'),
    include: arg,
    exclude: arg,
    'exclude-from': readsValue,
    'exclude-dir': arg,
    'files-without-match': flag,
    'files-with-matches': flag,
    count: flag,
    'initial-tab': flag,
    null: flag,
    'before-context': arg,
    'after-context': arg,
    context: arg,
    'group-separator': arg,
    'no-group-separator': flag,
    color: optArg,
    colour: optArg,
    binary: flag,
  },
  numeric: arg,
})

function judgeGrep(args: readonly Word[], program: string): Judgement {
  return judgeByGrammar(
    program,
    { grammar: GREP, operands: 'read', check: (p) => grepReads(p, 'grep') },
    args,
  )
}

/** grep and rg read the first operand as the pattern unless -e/-f give one; directories recurse. */
function grepReads(p: Extract<Parsed, { ok: true }>, kind: 'grep' | 'rg'): Judgement {
  const hasPattern = p.options.some((o) => o.spec.tag === 'pattern' || o.spec.tag === 'no-pattern')
  const files = hasPattern ? p.operands : p.operands.slice(1)
  let recursive: ContentRead['recursive']
  if (kind === 'grep') {
    const follow = p.options.some((o) => o.spec.tag === 'recursive-follow')
    const recurse =
      follow ||
      p.options.some(
        (o) =>
          o.spec.tag === 'recursive' ||
          (o.spec.tag === 'directories' && (o.value?.kind !== 'static' || o.value.value === 'recurse')),
      )
    if (recurse) recursive = { followLinks: follow, skipHidden: false }
  } else {
    const names = new Set(p.options.map((o) => o.name))
    const unrestricted = p.options.filter((o) => o.name === '-u' || o.name === '--unrestricted').length
    // Globs (`-g '*'`), file types (`-t sh` holds .bashrc) and ignore files given on the command
    // line whitelist names, hidden ones too (checked with ripgrep 13): then hidden files are read.
    const whitelists = RG_WHITELISTING.some((n) => names.has(n))
    recursive = {
      followLinks: names.has('-L') || names.has('--follow'),
      skipHidden: !(names.has('-.') || names.has('--hidden') || unrestricted >= 2 || whitelists),
    }
  }
  const operands = files.length === 0 && recursive !== undefined ? [lit('.')] : files
  return ok(`${kind} only reads`, { reads: reading(operands, recursive) })
}

const RG_WHITELISTING = ['-g', '--glob', '--iglob', '-t', '--type', '--type-add', '--ignore-file']

// ripgrep 13 (`rg --help`) and the options ripgrep 14 added; no abbreviations (clap, lexopt).
const RG_VALUES = 'ABCEgMmrtTj'
const RG_FLAGS = 'bscilFL.hvnxUINqo0PpSazuVHw'
const RG_LONG_VALUES = [
  'after-context',
  'before-context',
  'color',
  'colors',
  'context',
  'context-separator',
  'dfa-size-limit',
  'encoding',
  'engine',
  'field-context-separator',
  'field-match-separator',
  'glob',
  'iglob',
  'max-columns',
  'max-count',
  'max-depth',
  'max-filesize',
  'path-separator',
  'pre-glob',
  'regex-size-limit',
  'replace',
  'sort',
  'sortr',
  'threads',
  'type',
  'type-add',
  'type-clear',
  'type-not',
  'hyperlink-format',
  'generate',
]
const RG_LONG_FLAGS = [
  'auto-hybrid-regex',
  'binary',
  'no-binary',
  'block-buffered',
  'no-block-buffered',
  'byte-offset',
  'case-sensitive',
  'column',
  'no-column',
  'no-context-separator',
  'count',
  'count-matches',
  'crlf',
  'no-crlf',
  'debug',
  'trace',
  'files-with-matches',
  'files-without-match',
  'fixed-strings',
  'no-fixed-strings',
  'follow',
  'no-follow',
  'glob-case-insensitive',
  'no-glob-case-insensitive',
  'heading',
  'no-heading',
  'help',
  'hidden',
  'no-hidden',
  'ignore-case',
  'ignore-file-case-insensitive',
  'no-ignore-file-case-insensitive',
  'include-zero',
  'no-include-zero',
  'invert-match',
  'no-invert-match',
  'json',
  'no-json',
  'line-buffered',
  'no-line-buffered',
  'line-number',
  'no-line-number',
  'line-regexp',
  'max-columns-preview',
  'no-max-columns-preview',
  'mmap',
  'no-mmap',
  'multiline',
  'no-multiline',
  'multiline-dotall',
  'no-multiline-dotall',
  'no-config',
  'no-filename',
  'with-filename',
  'no-ignore',
  'ignore',
  'no-ignore-dot',
  'ignore-dot',
  'no-ignore-exclude',
  'ignore-exclude',
  'no-ignore-files',
  'ignore-files',
  'no-ignore-global',
  'ignore-global',
  'no-ignore-messages',
  'ignore-messages',
  'no-ignore-parent',
  'ignore-parent',
  'no-ignore-vcs',
  'ignore-vcs',
  'no-messages',
  'messages',
  'no-pcre2-unicode',
  'pcre2-unicode',
  'no-require-git',
  'require-git',
  'no-unicode',
  'unicode',
  'null',
  'null-data',
  'one-file-system',
  'no-one-file-system',
  'only-matching',
  'passthru',
  'passthrough',
  'pcre2',
  'no-pcre2',
  'pcre2-version',
  'no-pre',
  'pretty',
  'quiet',
  'smart-case',
  'stats',
  'no-stats',
  'text',
  'no-text',
  'trim',
  'no-trim',
  'unrestricted',
  'version',
  'vimgrep',
  'word-regexp',
  'no-search-zip',
  'stop-on-nonmatch',
  'no-hyperlink-format',
]
const RG: Grammar = (() => {
  const shortSpecs: Record<string, OptionSpec> = {
    e: tagged(arg, 'pattern'),
    f: { arity: 'required', effect: { kind: 'reads-value' }, tag: 'pattern' },
    z: RUNS_DECOMPRESSORS,
  }
  const long: Record<string, OptionSpec> = {}
  for (const l of RG_LONG_VALUES) long[l] = arg
  for (const l of RG_LONG_FLAGS) long[l] = flag
  Object.assign(long, {
    regexp: tagged(arg, 'pattern'),
    file: { arity: 'required', effect: { kind: 'reads-value' }, tag: 'pattern' },
    files: tagged(flag, 'no-pattern'),
    'type-list': tagged(flag, 'no-pattern'),
    'ignore-file': readsValue,
    pre: effect('required', { kind: 'runs', why: 'runs a preprocessor program on every file' }),
    'hostname-bin': effect('required', { kind: 'runs', why: 'runs a program to find the host name' }),
    'search-zip': RUNS_DECOMPRESSORS,
  } satisfies Record<string, OptionSpec>)
  return grammar({
    short: `${[...RG_VALUES].map((c) => `${c}:`).join('')}${RG_FLAGS}`,
    shortSpecs,
    long,
    abbreviate: false,
  })
})()

function judgeRg(args: readonly Word[], program: string): Judgement {
  return judgeByGrammar(program, { grammar: RG, operands: 'read', check: (p) => grepReads(p, 'rg') }, args)
}

// ---- sort, uniq, tee, tree, file, base64, jq, yq ------------------------------------------------

const SORT: GrammarJudge = {
  grammar: grammar({
    short: 'bdfgiMhnRrVcCmsuz',
    shortSpecs: {
      k: arg,
      t: arg,
      S: arg,
      o: writesValue,
      T: effect('required', { kind: 'writes', why: 'writes temporary files to a directory it names' }),
    },
    long: {
      'ignore-leading-blanks': flag,
      'dictionary-order': flag,
      'ignore-case': flag,
      'general-numeric-sort': flag,
      'ignore-nonprinting': flag,
      'month-sort': flag,
      'human-numeric-sort': flag,
      'numeric-sort': flag,
      'random-sort': flag,
      'random-source': readsValue,
      reverse: flag,
      sort: arg,
      'version-sort': flag,
      'batch-size': arg,
      check: optArg,
      'compress-program': effect('required', { kind: 'runs', why: 'runs a compression program' }),
      debug: flag,
      'files0-from': readsValue,
      key: arg,
      merge: flag,
      output: writesValue,
      stable: flag,
      'buffer-size': arg,
      'field-separator': arg,
      'temporary-directory': effect('required', {
        kind: 'writes',
        why: 'writes temporary files to a directory it names',
      }),
      parallel: arg,
      unique: flag,
      'zero-terminated': flag,
      help: flag,
      version: flag,
    },
  }),
  operands: 'read',
}

const UNIQ: GrammarJudge = {
  grammar: grammar({
    short: 'cdDiuz',
    shortSpecs: { f: arg, s: arg, w: arg },
    long: {
      count: flag,
      repeated: flag,
      'all-repeated': optArg,
      'skip-fields': arg,
      group: optArg,
      'ignore-case': flag,
      'skip-chars': arg,
      unique: flag,
      'zero-terminated': flag,
      'check-chars': arg,
      help: flag,
      version: flag,
    },
  }),
  operands: 'read',
  // `uniq [INPUT [OUTPUT]]`: the second operand is a file it writes.
  check: (p) => {
    // A glob or an unquoted expansion may be two operands, the second one the output file.
    const split = p.operands.find((w) => w.kind === 'glob' || (w.kind === 'dynamic' && w.split))
    if (split !== undefined)
      return unsure(`uniq with ${describeWord(split)}, which may expand to an output file operand`)
    const out = p.operands[1]
    if (out !== undefined) return no(`uniq writes its output to ${describeWord(out)}`, { writes: [out] })
    return ok('uniq with at most one operand only reads', { reads: reading(p.operands) })
  },
}

const HARMLESS_OUTPUTS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr'])

const TEE: GrammarJudge = {
  grammar: grammar({
    short: 'aip',
    long: { append: flag, 'ignore-interrupts': flag, 'output-error': optArg, help: flag, version: flag },
  }),
  operands: 'none',
  // Every operand is a file it writes, also `-x` after `--`.
  check: (p) => {
    const files = p.operands.filter((w) => !(w.kind === 'static' && HARMLESS_OUTPUTS.has(w.value)))
    if (files.length > 0) return no(`tee writes ${describeWord(files[0]!)}`, { writes: files })
    return ok('tee without files only copies to standard output')
  },
}

// tree 2.1 (its own parser: clustered short options, values in the next word, long options by
// exact name with `=` or a space). `-R` reruns tree in every directory with `-o 00Tree.html`.
const TREE: GrammarJudge = {
  grammar: grammar({
    short: 'adlfxqNQpugshDFvtcUrCASnXJi',
    shortSpecs: {
      L: arg,
      P: arg,
      I: arg,
      H: arg,
      T: arg,
      o: writesValue,
      R: effect('none', { kind: 'writes', why: 'writes a 00Tree.html file into every directory' }),
    },
    long: {
      gitignore: flag,
      gitfile: readsValue,
      'ignore-case': flag,
      matchdirs: flag,
      metafirst: flag,
      prune: flag,
      info: flag,
      infofile: readsValue,
      noreport: flag,
      charset: arg,
      filelimit: arg,
      si: flag,
      du: flag,
      timefmt: arg,
      inodes: flag,
      device: flag,
      dirsfirst: flag,
      filesfirst: flag,
      sort: arg,
      nolinks: flag,
      hintro: readsValue,
      houtro: readsValue,
      fromfile: tagged(flag, 'fromfile'),
      fflinks: flag,
      version: flag,
      help: flag,
    },
    abbreviate: false,
  }),
  operands: 'meta',
  check: (p) =>
    p.options.some((o) => o.spec.tag === 'fromfile')
      ? ok('tree --fromfile only reads', {
          reads: reading(p.operands.length === 0 ? [lit('.')] : p.operands),
        })
      : undefined,
}

// file 5.44: -C compiles a magic file (writes *.mgc), -m/-f read files.
const FILE: GrammarJudge = {
  grammar: grammar({
    short: 'vzZbcilLhnN0prsSkd',
    shortSpecs: {
      m: readsValue,
      e: arg,
      f: readsValue,
      F: arg,
      P: arg,
      C: effect('none', { kind: 'writes', why: 'compiles a magic file (writes a .mgc file)' }),
    },
    long: {
      help: flag,
      version: flag,
      'magic-file': readsValue,
      uncompress: flag,
      'uncompress-noreport': flag,
      brief: flag,
      'checking-printout': flag,
      exclude: arg,
      'exclude-quiet': arg,
      'files-from': readsValue,
      separator: arg,
      mime: flag,
      apple: flag,
      extension: flag,
      'mime-type': flag,
      'mime-encoding': flag,
      'keep-going': flag,
      list: flag,
      dereference: flag,
      'no-dereference': flag,
      'no-buffer': flag,
      'no-pad': flag,
      print0: flag,
      'preserve-date': flag,
      parameter: arg,
      raw: flag,
      'special-files': flag,
      'no-sandbox': flag,
      compile: effect('none', { kind: 'writes', why: 'compiles a magic file (writes a .mgc file)' }),
      debug: flag,
    },
  }),
  operands: 'read',
}

// GNU base64/base32 and the BSD/macOS variants (`-o FILE`, `--output FILE`, `-i FILE`).
const BASE64: GrammarJudge = {
  grammar: grammar({
    short: 'dDi',
    shortSpecs: { w: arg, b: arg, o: writesValue, i: optArg },
    long: {
      decode: flag,
      'ignore-garbage': flag,
      wrap: arg,
      break: arg,
      input: readsValue,
      output: writesValue,
      help: flag,
      version: flag,
    },
    lenient: true,
  }),
  operands: 'read',
}

// jq 1.6/1.7: clustered short options, long options by exact name, `--arg NAME VALUE`.
const JQ: GrammarJudge = {
  grammar: grammar({
    short: 'nrjacCMSsehRVj',
    shortSpecs: { f: tagged(readsValue, 'program-file'), L: arg },
    long: {
      'null-input': flag,
      'raw-input': flag,
      slurp: flag,
      'compact-output': flag,
      'raw-output': flag,
      'raw-output0': flag,
      'join-output': flag,
      'ascii-output': flag,
      'sort-keys': flag,
      'color-output': flag,
      'monochrome-output': flag,
      tab: flag,
      indent: arg,
      unbuffered: flag,
      stream: flag,
      'stream-errors': flag,
      seq: flag,
      'from-file': tagged(readsValue, 'program-file'),
      'exit-status': flag,
      arg: { arity: 'two' },
      argjson: { arity: 'two' },
      slurpfile: tagged({ arity: 'two' }, 'file-second'),
      rawfile: tagged({ arity: 'two' }, 'file-second'),
      args: tagged(flag, 'args'),
      jsonargs: tagged(flag, 'args'),
      'debug-dump-disasm': flag,
      'debug-trace': flag,
      'build-configuration': flag,
      help: flag,
      version: flag,
    },
    abbreviate: false,
  }),
  operands: 'read',
  check: (p) => {
    const program = p.options.some((o) => o.spec.tag === 'program-file')
    const reads: ContentRead[] = []
    for (const o of p.options)
      if (o.spec.tag === 'file-second' && o.second !== undefined) reads.push({ word: o.second })
    const rest = program ? p.operands : p.operands.slice(1)
    // With --args/--jsonargs the remaining operands are values, not files (jq's own reading order
    // is subtle, so the operands before the option are files, the rest are read as files too).
    reads.push(...reading(rest))
    return ok('jq only reads', { reads })
  },
}

/** yq (kislyuk's jq wrapper on Debian, or mikefarah's): refuse in-place and split-to-file options. */
function judgeYq(args: readonly Word[], program: string): Judgement {
  const reads: ContentRead[] = []
  let first = true
  for (const w of args) {
    if (w.kind !== 'static') {
      if (mayBeOption(w))
        return unsure(
          `${program} with ${describeWord(w)} where an option may stand could expand to --in-place`,
        )
      if (!first) reads.push({ word: w })
      first = false
      continue
    }
    const a = w.value
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=', 1)[0]!
      if (
        name.length >= 3 &&
        ['in-place', 'inplace', 'split-exp', 'split-exp-file'].some((l) => l.startsWith(name))
      )
        return no(`${program} --${name} writes files`)
      continue
    }
    if (a.startsWith('-') && a !== '-') {
      if (/[is]/.test(a.slice(1)))
        return no(`${program} ${a} writes files in place or splits output into files`)
      continue
    }
    if (!first) reads.push({ word: w })
    first = false
  }
  return ok(`${program} only reads`, { reads })
}

const HEAD = simple('read', 'cn', ['bytes', 'lines'], true)
const TAIL: GrammarJudge = (() => {
  const j = simple('read', 'cns', ['bytes', 'lines', 'max-unchanged-stats', 'pid', 'sleep-interval'], true)
  return { ...j, grammar: { ...j.grammar, long: { ...j.grammar.long, follow: optArg } } }
})()
const CUT = simple('read', 'bcdf', ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'])
// ---- the table ---------------------------------------------------------------------------------

/** Readers and printers, by program name. */
export const READERS: Readonly<Record<string, ReaderJudge>> = {
  cat: by(simple('read')),
  tac: by(simple('read', 's', ['separator'])),
  nl: by(
    simple('read', 'bdfhilnsvw', [
      'body-numbering',
      'section-delimiter',
      'footer-numbering',
      'header-numbering',
      'line-increment',
      'join-blank-lines',
      'number-format',
      'number-separator',
      'starting-line-number',
      'number-width',
    ]),
  ),
  head: by(HEAD),
  tail: by(TAIL),
  wc: by({ ...simple('read'), grammar: grammar({ long: { 'files0-from': readsValue }, lenient: true }) }),
  cut: by(CUT),
  rev: by(simple('read')),
  tr: by(simple('none')),
  paste: by(simple('read', 'd', ['delimiters'])),
  fold: by(simple('read', 'w', ['width'])),
  expand: by(simple('read', 't', ['tabs'])),
  unexpand: by(simple('read', 't', ['tabs'])),
  column: by(
    simple('read', 'sonNlRTWHEOpicd', [
      'separator',
      'output-separator',
      'table-name',
      'table-columns',
      'table-columns-limit',
      'table-right',
      'table-truncate',
      'table-wrap',
      'table-hide',
      'table-order',
      'tree',
      'tree-id',
      'tree-parent',
      'output-width',
    ]),
  ),
  od: by(
    simple('read', 'AjNStw', ['address-radix', 'skip-bytes', 'read-bytes', 'format', 'strings', 'width']),
  ),
  hexdump: by({
    ...simple('read', 'ens'),
    grammar: grammar({ short: 'e:n:s:', shortSpecs: { f: readsValue }, lenient: true }),
  }),
  strings: by(simple('read', 'ntTeds', ['bytes', 'radix', 'target', 'encoding', 'output-separator'])),
  comm: by(simple('read', '', ['output-delimiter'])),
  cmp: by(simple('read', 'in', ['ignore-initial', 'bytes'])),
  diff: (args, program) =>
    judgeByGrammar(
      program,
      {
        grammar: grammar({
          short: 'C:U:W:F:I:x:D:',
          shortSpecs: { X: readsValue, S: arg, r: tagged(flag, 'recursive') },
          long: {
            recursive: tagged(flag, 'recursive'),
            width: arg,
            'show-function-line': arg,
            label: arg,
            tabsize: arg,
            exclude: arg,
            'exclude-from': readsValue,
            'starting-file': arg,
            'from-file': readsValue,
            'to-file': readsValue,
            'ignore-matching-lines': arg,
            ifdef: arg,
            'line-format': arg,
            'old-line-format': arg,
            'new-line-format': arg,
            'unchanged-line-format': arg,
            'old-group-format': arg,
            'new-group-format': arg,
            'changed-group-format': arg,
            'unchanged-group-format': arg,
            'horizon-lines': arg,
            color: optArg,
            palette: arg,
            context: optArg,
            unified: optArg,
          },
          lenient: true,
        }),
        operands: 'read',
        check: (p) => {
          const recursive = p.options.some((o) => o.spec.tag === 'recursive')
          return ok('diff only reads', {
            reads: reading(p.operands, recursive ? { followLinks: false, skipHidden: false } : undefined),
          })
        },
      },
      args,
    ),
  md5sum: by(simple('read')),
  sha1sum: by(simple('read')),
  sha224sum: by(simple('read')),
  sha256sum: by(simple('read')),
  sha384sum: by(simple('read')),
  sha512sum: by(simple('read')),
  b2sum: by(simple('read', 'l', ['length'])),
  cksum: by(simple('read', 'al', ['algorithm', 'length'])),
  sum: by(simple('read')),
  base64: by(BASE64),
  base32: by(BASE64),
  grep: judgeGrep,
  egrep: judgeGrep,
  fgrep: judgeGrep,
  rg: judgeRg,
  sort: by(SORT),
  uniq: by(UNIQ),
  tee: by(TEE),
  tree: by(TREE),
  file: by(FILE),
  jq: by(JQ),
  gojq: by(JQ),
  yq: judgeYq,
  xq: judgeYq,
  tomlq: judgeYq,
  sed: judgeSedArgs,
  // Names and metadata only.
  ls: by(
    simple('meta', 'ITw', [
      'block-size',
      'color',
      'format',
      'hide',
      'hyperlink',
      'indicator-style',
      'ignore',
      'quoting-style',
      'sort',
      'time',
      'time-style',
      'tabsize',
      'width',
    ]),
  ),
  dir: by(
    simple('meta', 'ITw', [
      'block-size',
      'format',
      'hide',
      'ignore',
      'quoting-style',
      'sort',
      'time',
      'time-style',
      'tabsize',
      'width',
    ]),
  ),
  vdir: by(
    simple('meta', 'ITw', [
      'block-size',
      'format',
      'hide',
      'ignore',
      'quoting-style',
      'sort',
      'time',
      'time-style',
      'tabsize',
      'width',
    ]),
  ),
  stat: by(simple('meta', 'c', ['format', 'printf', 'cached'])),
  du: by({
    ...simple('meta'),
    grammar: grammar({
      short: 'B:d:t:',
      shortSpecs: { X: readsValue },
      long: {
        'block-size': arg,
        'max-depth': arg,
        threshold: arg,
        'exclude-from': readsValue,
        'files0-from': readsValue,
        exclude: arg,
        'time-style': arg,
        time: optArg,
      },
      lenient: true,
    }),
  }),
  df: by(simple('meta', 'Btx', ['block-size', 'type', 'exclude-type'])),
  realpath: by(simple('meta', '', ['relative-to', 'relative-base'])),
  readlink: by(simple('meta')),
  basename: by(simple('none', 's', ['suffix'])),
  dirname: by(simple('none')),
  pwd: by(simple('none')),
  which: by(simple('none')),
  whereis: by(simple('none', 'BMSf')),
  type: by(simple('none')),
  echo: by(simple('none')),
  true: by(simple('none')),
  false: by(simple('none')),
  ':': by(simple('none')),
  seq: by(simple('none', 'fs', ['format', 'separator'])),
  sleep: by(simple('none')),
  expr: by(simple('none')),
  numfmt: by(simple('none')),
  factor: by(simple('none')),
  // System inspection (issue 12 §8): these only print the state of the machine.
  id: by(simple('none')),
  whoami: by(simple('none')),
  groups: by(simple('none')),
  logname: by(simple('none')),
  users: by(simple('none')),
  who: by(simple('none')),
  w: by(simple('none')),
  tty: by(simple('none')),
  uname: by(simple('none')),
  arch: by(simple('none')),
  nproc: by(simple('none')),
  printenv: by(simple('none')),
  locale: by(simple('none')),
  getconf: by(simple('none')),
  uptime: by(simple('none')),
  free: by(simple('none', 'sc', ['seconds', 'count'])),
  vmstat: by(simple('none', 'SMcd', ['unit'])),
  lscpu: by(simple('none', 's', ['sysroot'])),
  lsblk: by(simple('none', 'eIoxEM', ['exclude', 'include', 'output', 'sort', 'width', 'tree'])),
  lsmem: by(simple('none', 'o', ['output', 'split', 'sysroot'])),
  lsmod: by(simple('none')),
  ps: by(
    simple('none', 'CGgOoptUuN', [
      'cols',
      'columns',
      'format',
      'group',
      'Group',
      'pid',
      'ppid',
      'quick-pid',
      'rows',
      'sid',
      'sort',
      'tty',
      'user',
      'User',
      'width',
      'lines',
    ]),
  ),
  pgrep: by(
    simple('none', 'dgGPstuUF', [
      'delimiter',
      'pgroup',
      'group',
      'parent',
      'session',
      'terminal',
      'euid',
      'uid',
      'pidfile',
      'ns',
      'nslist',
    ]),
  ),
  // sysvinit pidof logs an unknown option to /dev/console (found by the fuzzer): known options only.
  pidof: by({ grammar: grammar({ short: 'scnxzqwo:d:', long: {} }), operands: 'none' }),
  pstree: by(simple('none')),
  findmnt: by(
    simple('none', 'FoStTdNuOwRx', [
      'tab-file',
      'output',
      'source',
      'target',
      'types',
      'direction',
      'task',
      'options',
      'poll',
      'timeout',
      'mountpoint',
    ]),
  ),
  netstat: by(simple('none')),
  lsof: by(simple('none', 'pugcdsStTFoKk', [])),
  cal: by(simple('none')),
  ncal: by(simple('none')),
  dmesg: by({
    grammar: grammar({
      short: 'CcDEn:',
      shortSpecs: {
        C: effect('none', { kind: 'writes', why: 'clears the kernel ring buffer' }),
        c: effect('none', { kind: 'writes', why: 'clears the kernel ring buffer' }),
        D: effect('none', { kind: 'writes', why: 'changes kernel console logging' }),
        E: effect('none', { kind: 'writes', why: 'changes kernel console logging' }),
        n: effect('required', { kind: 'writes', why: 'changes kernel console logging' }),
        F: readsValue,
        f: arg,
        l: arg,
        s: arg,
      },
      long: {
        clear: effect('none', { kind: 'writes', why: 'clears the kernel ring buffer' }),
        'read-clear': effect('none', { kind: 'writes', why: 'clears the kernel ring buffer' }),
        'console-off': effect('none', { kind: 'writes', why: 'changes kernel console logging' }),
        'console-on': effect('none', { kind: 'writes', why: 'changes kernel console logging' }),
        'console-level': effect('required', { kind: 'writes', why: 'changes kernel console logging' }),
        file: readsValue,
        facility: arg,
        level: arg,
        'buffer-size': arg,
        'time-format': arg,
      } as Record<string, OptionSpec>,
      lenient: true,
    }),
    operands: 'none',
  }),
}

/** The grammars checked against the programs' own `--help` in the tests (test/shell-grammars.test.ts). */
export const CHECKED_GRAMMARS: Readonly<Record<string, Grammar>> = {
  sort: SORT.grammar,
  uniq: UNIQ.grammar,
  tee: TEE.grammar,
  grep: GREP,
  rg: RG,
  tree: TREE.grammar,
  file: FILE.grammar,
  jq: JQ.grammar,
  head: HEAD.grammar,
  tail: TAIL.grammar,
  cut: CUT.grammar,
}
