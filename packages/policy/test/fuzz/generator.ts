// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, not templates
import fc from 'fast-check'
import { PAYLOAD } from './markers.js'
import {
  AWK_PROGRAMS,
  CMDS,
  CODE_RUNNERS,
  DIRS,
  FILES,
  FORMATS,
  GLOBS,
  JQ_PROGRAMS,
  NEW_FILES,
  NUMS,
  PATTERNS,
  PROGRAMS,
  PROGS,
  type ProgramSpec,
  SAFE_ENV_PREFIXES,
  SED_SCRIPTS,
  STRINGS,
  UNSAFE_ENV_PREFIXES,
  WRAPPERS,
} from './vocabulary.js'

/**
 * The command generator: a grammar of bash biased to the constructs that break classifiers
 * (issue 12): heredocs, expansions of every kind, quoting, redirects, option orders and clusters,
 * wrappers, compound statements, real programs with their writing options; plus near misses (one
 * token inserted into a generated command) and random printable strings.
 *
 * Commands are built as fragments: the text of the line and the heredoc bodies it opened, which
 * follow the line (bash reads a heredoc body after the newline that ends the line it was opened on).
 */
export interface Frag {
  readonly t: string
  readonly h: readonly string[]
}

const frag = (t: string, h: readonly string[] = []): Frag => ({ t, h })
/** The text with its heredoc bodies (at the end of a line, or inside `$( ... )`). */
export const flush = (f: Frag): string => f.t + f.h.join('')

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs)
/** A counterexample shrinks across branches towards the first one (no decoration, one line). */
const SHRINK_TO_FIRST = { withCrossShrink: true } as const
/** `arb` once in `n` draws, otherwise null. */
const rarely = <T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> =>
  fc.oneof(SHRINK_TO_FIRST, { arbitrary: fc.constant(null), weight: n - 1 }, { arbitrary: arb, weight: 1 })

// ---- words -------------------------------------------------------------------------------------

const RAW_OK = /^[^\s;&|<>()$`\\"'#]+$/

/** Spell one word's value as bash text, in one of the quotings that all mean the same value. */
export function spell(value: string): fc.Arbitrary<string> {
  const single = `'${value.replace(/'/g, `'\\''`)}'`
  const double = `"${value.replace(/[\\"$`]/g, '\\$&')}"`
  const ansi = `$'${value.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}'`
  const options: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.constant(single), weight: 2 },
    { arbitrary: fc.constant(double), weight: 2 },
    { arbitrary: fc.constant(ansi), weight: 1 },
  ]
  if (value === '') return fc.oneof(...options)
  if (RAW_OK.test(value)) options.push({ arbitrary: fc.constant(value), weight: 24 })
  if (value.length > 1) {
    options.push({
      arbitrary: fc.integer({ min: 1, max: value.length - 1 }).map((k) => {
        const a = value.slice(0, k)
        const b = value.slice(k)
        return `'${a.replace(/'/g, `'\\''`)}'"${b.replace(/[\\"$`]/g, '\\$&')}"`
      }),
      weight: 1,
    })
  }
  if (!value.includes('\n'))
    options.push({
      arbitrary: fc.constant(value.replace(/[^A-Za-z0-9]/g, '\\$&').replace(/^([A-Za-z0-9])/, '\\$1')),
      weight: 1,
    })
  // Every byte escaped: $'\x6c\x73' is ls, and so are the octal and \u forms.
  options.push({
    arbitrary: fc.constantFrom('x', 'o', 'u').map((form) => {
      const esc = [...value].map((c) => {
        const n = c.charCodeAt(0)
        if (form === 'x') return `\\x${n.toString(16).padStart(2, '0')}`
        if (form === 'o') return `\\${n.toString(8).padStart(3, '0')}`
        return `\\u${n.toString(16).padStart(4, '0')}`
      })
      return `$'${esc.join('')}'`
    }),
    weight: 1,
  })
  return fc.oneof(...options)
}

/** Words whose value is only known at run time: every kind of expansion, some with a payload. */
const EXPANSIONS: readonly string[] = [
  '$HOME',
  '"$HOME"',
  '${HOME}',
  '~',
  '~/.ssh/id_rsa',
  '~root',
  '~nobody/x',
  '$x',
  '"$x"',
  '${x-README.md}',
  '${x:-notes.txt}',
  '${x+y}',
  `\${x-$(${PAYLOAD})}`,
  `"\${x-'$(${PAYLOAD})'}"`,
  `"\${x:-\`${PAYLOAD}\`}"`,
  `\${x-"$(${PAYLOAD})"}`,
  '${x:=y}',
  '${x?}',
  '${#HOME}',
  '${HOME/a/b}',
  '${HOME#/}',
  '${HOME%%/*}',
  '${HOME^^}',
  '${HOME@Q}',
  '${HOME@P}',
  '${!HOME}',
  '${!H*}',
  `\${a[$(${PAYLOAD})]}`,
  '$((1+2))',
  '$(( x ))',
  `$((a[$(${PAYLOAD})]))`,
  '$[1+2]',
  `$(${PAYLOAD})`,
  `"$(${PAYLOAD})"`,
  `\`${PAYLOAD}\``,
  '$(cat README.md)',
  '$(ls)',
  '`echo hi`',
  `<(${PAYLOAD})`,
  '<(ls)',
  `>(${PAYLOAD})`,
  '>(cat)',
  "$'\\x41'",
  "$'\\044(pwned)'",
  '$"x"',
  '$1',
  '$@',
  '"$@"',
  '$*',
  '$#',
  '$?',
  '$$',
  '$!',
  '$-',
  '$_',
  '$0',
  ...GLOBS,
  '{a,b}',
  '{README.md,notes.txt}',
  '{1..3}',
  `{x,$(${PAYLOAD})}`,
  '\\$(pwned)',
  "'$(pwned)'",
  '"\\$(pwned)"',
]

export const expansionWord: fc.Arbitrary<string> = pick(EXPANSIONS)

const PLACEHOLDER = /\{(file|new|dir|num|prog|cmd|cmdq|cmdw|pat|str|sed|awk|fmt|glob|jq|tar)\}/g

function placeholderValue(name: string): fc.Arbitrary<string> {
  switch (name) {
    case 'file':
      return pick(FILES)
    case 'new':
      return pick(NEW_FILES)
    case 'dir':
      return pick(DIRS)
    case 'num':
      return pick(NUMS)
    case 'prog':
      return pick(PROGS)
    case 'cmd':
    case 'cmdq':
    case 'cmdw':
      return pick(CMDS)
    case 'pat':
      return pick(PATTERNS)
    case 'str':
      return pick(STRINGS)
    case 'sed':
      return sedScript
    case 'awk':
      return pick(AWK_PROGRAMS).chain((p) => fillRaw(p))
    case 'fmt':
      return pick(FORMATS)
    case 'glob':
      return pick(GLOBS)
    case 'jq':
      return pick(JQ_PROGRAMS)
    case 'tar':
      return pick(['archive.tar', 'archive.tar', 'archive.tar.gz', 'notes.txt'])
    default:
      throw new Error(`unknown placeholder ${name}`)
  }
}

/** Fill placeholders with plain values (inside a script that is itself one word). */
function fillRaw(template: string): fc.Arbitrary<string> {
  const names = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!)
  if (names.length === 0) return fc.constant(template)
  return fc
    .tuple(
      ...names.map((n) =>
        n === 'new' ? pick(NEW_FILES.filter((f) => !/[\s;}]/.test(f))) : placeholderValue(n),
      ),
    )
    .map((vals) => {
      let i = 0
      return template.replace(PLACEHOLDER, () => vals[i++]!)
    })
}

// Plain words may be re-spelled; globs, braces, tildes and reserved words keep their meaning only raw.
const RESPELLABLE = /^[A-Za-z0-9_./:=,+@%^-]+$/
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'in',
  'function',
  'select',
  'time',
  'coproc',
])

/**
 * A template of shell text to shell text: literal parts stay as written (plain words may be
 * re-spelled), each placeholder's value is spelled as a quoted or raw word part. `{cmdq}` is put
 * unquoted into a surrounding single-quoted string.
 */
export function fill(template: string): fc.Arbitrary<string> {
  const tokens = template.split(' ').filter((t) => t !== '')
  return fc
    .tuple(
      ...tokens.map((tok): fc.Arbitrary<string> => {
        const names = [...tok.matchAll(PLACEHOLDER)].map((m) => m[1]!)
        if (names.length === 0)
          return RESPELLABLE.test(tok) && !RESERVED.has(tok) ? spell(tok) : fc.constant(tok)
        const parts = tok.split(PLACEHOLDER)
        // split with a capture group interleaves literals and placeholder names.
        return fc
          .tuple(
            ...parts.map((p, i): fc.Arbitrary<string> => {
              if (i % 2 === 0) return fc.constant(p)
              if (p === 'cmdq') return pick(CMDS)
              return placeholderValue(p).chain(spell)
            }),
          )
          .map((xs) => xs.join(''))
      }),
    )
    .map((xs) => xs.join(' '))
}

// ---- redirects and prefixes --------------------------------------------------------------------

const HARMLESS_REDIRECTS = [
  '2>&1',
  '2>/dev/null',
  '>/dev/null',
  '< README.md',
  '<notes.txt',
  '>&2',
  '1>&2',
  '2>&-',
  '<&-',
  '<<< hello',
]

const REDIRECT_TEMPLATES: readonly string[] = [
  ...HARMLESS_REDIRECTS,
  '> {new}',
  '>> {new}',
  '>| {new}',
  '&> {new}',
  '&>> {new}',
  '>& {new}',
  '2> {new}',
  '1>{new}',
  '< {file}',
  '<> {new}',
  '<> {file}',
  '0<> {new}',
  '3<> {new}',
  '3> {new}',
  '3>&1',
  '4<&0',
  '< /dev/tcp/127.0.0.1/9',
  '> /dev/tcp/127.0.0.1/9',
  '< /dev/udp/127.0.0.1/53',
  '> /dev/stdout',
  '> /dev/stderr',
  '< $x',
  '> $x',
  '> *',
  '< *.md',
  `> "$(${PAYLOAD})"`,
  `< <(${PAYLOAD})`,
  `<<< "$(${PAYLOAD})"`,
  `<<< \`${PAYLOAD}\``,
  "<<<'$(pwned)'",
  '>~/pwn',
  '> ../pwn',
  '>/tmp/pwn',
  '2>>/tmp/log',
]

const redirect: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: pick(HARMLESS_REDIRECTS), weight: 3 },
  { arbitrary: pick(REDIRECT_TEMPLATES).chain(fill), weight: 2 },
)

const envPrefix: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: pick(SAFE_ENV_PREFIXES), weight: 2 },
  { arbitrary: pick(UNSAFE_ENV_PREFIXES), weight: 1 },
)

// ---- heredocs ----------------------------------------------------------------------------------

const HEREDOC_LINES: readonly string[] = [
  'plain text',
  'alpha beta',
  `\`${PAYLOAD} hd-backquote\``,
  ` \`${PAYLOAD}\``,
  `$(${PAYLOAD} hd-subst)`,
  ` $(${PAYLOAD})`,
  `x $( ${PAYLOAD})`,
  `\\$(${PAYLOAD})`,
  `\\\`${PAYLOAD}\``,
  `$\\\n(${PAYLOAD})`,
  `\`\\\n${PAYLOAD}\``,
  `$(\\\n${PAYLOAD})`,
  `line continued \\\n$(${PAYLOAD})`,
  `\${x-$(${PAYLOAD})}`,
  `\${x-'$(${PAYLOAD})'}`,
  `\${x-"$(${PAYLOAD})"}`,
  `\${x:-\`${PAYLOAD}\`}`,
  `"\${x-'\`${PAYLOAD}\`'}"`,
  `'$(${PAYLOAD})'`,
  `"$(${PAYLOAD})"`,
  `$((1+$(${PAYLOAD})))`,
  `$[$(${PAYLOAD})]`,
  `\${a[$(${PAYLOAD})]}`,
  '${HOME@P}',
  '$HOME',
  `$(\n${PAYLOAD}\n)`,
  `$(cat <<'IN'\nx\nIN\n${PAYLOAD})`,
  '$(',
  '`',
  '${',
  `<(${PAYLOAD})`,
  `EOF $(${PAYLOAD})`,
  '\\',
  `\t$(${PAYLOAD} tab)`,
  `#$(${PAYLOAD} comment)`,
]

interface Delim {
  readonly spelled: string
  readonly quoted: boolean
  readonly word: string
}

const DELIMS: readonly Delim[] = [
  { spelled: 'EOF', quoted: false, word: 'EOF' },
  { spelled: 'END', quoted: false, word: 'END' },
  { spelled: "'EOF'", quoted: true, word: 'EOF' },
  { spelled: '"EOF"', quoted: true, word: 'EOF' },
  { spelled: '\\EOF', quoted: true, word: 'EOF' },
  { spelled: "E'O'F", quoted: true, word: 'EOF' },
  { spelled: 'E"O"F', quoted: true, word: 'EOF' },
  { spelled: 'EO\\F', quoted: true, word: 'EOF' },
  { spelled: ' EOF', quoted: false, word: 'EOF' },
  { spelled: "'E O F'", quoted: true, word: 'E O F' },
  { spelled: '$x', quoted: false, word: '$x' },
  { spelled: "''", quoted: true, word: '' },
  { spelled: '_x1', quoted: false, word: '_x1' },
]

/** `<<DELIM` (or `<<-`) and the body that follows the line, with a right or a near-miss terminator. */
const heredoc: fc.Arbitrary<Frag> = fc
  .record({
    dash: fc.boolean(),
    delim: pick(DELIMS),
    lines: fc.array(pick(HEREDOC_LINES), { minLength: 1, maxLength: 3 }),
    end: fc.oneof(
      { arbitrary: fc.constant('right'), weight: 6 },
      { arbitrary: pick(['tab', 'space', 'trailing', 'missing', 'other']), weight: 1 },
    ),
  })
  .map(({ dash, delim, lines, end }) => {
    const term =
      end === 'tab'
        ? `\t${delim.word}`
        : end === 'space'
          ? ` ${delim.word}`
          : end === 'trailing'
            ? `${delim.word} `
            : end === 'other'
              ? 'EOF2'
              : delim.word
    const body = `\n${lines.join('\n')}${end === 'missing' ? '' : `\n${term}`}`
    return frag(`<<${dash ? '-' : ''}${delim.spelled}`, [body])
  })

/** Programs that read a heredoc as stdin and print it (or read it as a script). */
const HEREDOC_READERS = [
  'cat',
  'cat -n',
  'wc -l',
  'grep alpha',
  'head -1',
  'sort',
  'tr a b',
  'sed -n p',
  'awk 1',
  'cut -c1',
  'jq -R .',
  'tee',
  'xargs',
  'sh',
  'bash',
  'read -r x',
  ':',
  'true',
  'echo',
]

const heredocCommand: fc.Arbitrary<Frag> = fc
  .tuple(pick(HEREDOC_READERS), heredoc, rarely(heredoc, 5), rarely(pick(HARMLESS_REDIRECTS), 3))
  .map(([prog, h1, h2, r]) =>
    frag([prog, h1.t, h2?.t, r].filter((x) => x != null).join(' '), [...h1.h, ...(h2?.h ?? [])]),
  )

// ---- simple commands ---------------------------------------------------------------------------

const simpleFromSpec = (spec: ProgramSpec): fc.Arbitrary<Frag> =>
  fc
    .record({
      name: spell(spec.name),
      opts:
        spec.options.length === 0
          ? fc.constant<string[]>([])
          : fc.array(pick(spec.options).chain(fill), { maxLength: 3 }),
      cluster:
        spec.cluster === undefined
          ? fc.constant(undefined)
          : rarely(
              fc
                .subarray([...spec.cluster], {
                  minLength: Math.min(2, spec.cluster.length),
                  maxLength: Math.min(4, spec.cluster.length),
                })
                .map((cs) => `-${cs.join('')}`),
              3,
            ),
      operands:
        spec.operands.length === 0
          ? fc.constant<string[]>([])
          : fc.array(pick(spec.operands).chain(fill), { maxLength: 2 }),
      order: fc.oneof(
        { arbitrary: fc.constant('options-first'), weight: 4 },
        { arbitrary: fc.constant('operands-first'), weight: 1 },
        { arbitrary: fc.constant('dashdash'), weight: 1 },
      ),
      extra: rarely(expansionWord, 6),
    })
    .map(({ name, opts, cluster, operands, order, extra }) => {
      const options = cluster == null ? opts : [cluster, ...opts]
      const ops = operands.filter((o) => o !== '')
      const words =
        order === 'operands-first'
          ? [...ops, ...options]
          : order === 'dashdash'
            ? [...options, '--', ...ops]
            : [...options, ...ops]
      if (extra !== null) words.push(extra)
      return frag([name, ...words].join(' '))
    })

const CUSTOM = new Set(['git', 'sed', 'awk', 'find'])
// The everyday readers come up more often: most traffic is theirs, and their verdicts get run.
const COMMON = new Set([
  'cat',
  'ls',
  'grep',
  'head',
  'tail',
  'wc',
  'sort',
  'echo',
  'stat',
  'jq',
  'tree',
  'rg',
  'diff',
  'tee',
  'uniq',
  'file',
  'date',
  'printf',
])
const specCommand: fc.Arbitrary<Frag> = fc.oneof(
  ...PROGRAMS.filter((p) => !CUSTOM.has(p.name)).map((p) => ({
    arbitrary: simpleFromSpec(p),
    weight: COMMON.has(p.name) ? 4 : 1,
  })),
)

// git: global options, a subcommand, its options and operands.
const GIT_GLOBALS: readonly string[] = [
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '-c core.pager={prog}',
  '-c core.fsmonitor={prog}',
  '-c diff.external={prog}',
  '-c alias.x=!pwned',
  '-C src',
  '-C ..',
  '--git-dir=.git',
  '--work-tree=.',
  '--exec-path=.',
  '--exec-path',
  '-p',
  '--paginate',
  '--bare',
  '--namespace=x',
  '--config-env=core.pager=HOME',
  '--version',
  '--help',
  '--html-path',
  '--list-cmds=main',
]

const REFS = [
  'HEAD',
  'HEAD~1',
  'main',
  'feature',
  'v1',
  'v2',
  'v3',
  'stash@{0}',
  'origin/main',
  'HEAD:README.md',
  'HEAD~1..HEAD',
  'v1..main',
]
const GIT_FMT = [
  '%H',
  '%an',
  '%G?',
  '%GS',
  '%GK',
  '%GF',
  '%GP',
  '%GT',
  '%s',
  '%(describe)',
  '%(trailers)',
  '%h%d',
]

const GIT_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  status: ['-s', '--short', '-b', '--porcelain', '-uno', '--ignored', '--column', '-z'],
  log: [
    '--oneline',
    '-1',
    '-n 2',
    '-p',
    '--stat',
    '--show-signature',
    '--format={gfmt}',
    '--pretty=format:{gfmt}',
    '--graph',
    '--all',
    '--output={new}',
    '--output {new}',
    '--ext-diff',
    '--textconv',
    '--no-textconv',
    '-G x',
    '-S x',
    '--follow -- README.md',
    '{ref}',
    '--grep=x',
    '--decorate',
    '--since=2020',
    '--no-ext-diff',
    '-c',
  ],
  show: [
    '{ref}',
    '--show-signature',
    '--stat',
    '--format={gfmt}',
    '--output={new}',
    '--textconv',
    '--ext-diff',
    '-s',
    '--name-only',
  ],
  diff: [
    '{ref}',
    '--stat',
    '--cached',
    '--ext-diff',
    '--textconv',
    '--output={new}',
    '--no-index {file} {file}',
    '--color-words',
    '-R',
    '--word-diff',
    'main feature',
    'v1 v2',
    '-- README.md',
    '--exit-code',
    '--quiet',
  ],
  blame: [
    'README.md',
    '-L 1,2 notes.txt',
    '--contents {file} README.md',
    '-s notes.txt',
    '--incremental notes.txt',
  ],
  grep: [
    'alpha',
    '-n x',
    '-O{prog} alpha',
    '--open-files-in-pager={prog} alpha',
    '-O alpha',
    '--no-index x',
    '-e x',
    '-- x',
    '--untracked x',
    '-P x',
    '--threads 1 x',
    '-l a',
  ],
  'ls-files': ['-o', '--others', '-m', '-s', '--stage', '--exclude-standard', '-z', '--debug'],
  'rev-parse': [
    'HEAD',
    '--show-toplevel',
    '--git-dir',
    '--abbrev-ref HEAD',
    '--verify HEAD',
    '--sq-quote x',
    '--local-env-vars',
    '--git-path hooks',
  ],
  describe: ['--tags', '--always', '--dirty', '--broken', '--all', 'HEAD', '--contains HEAD~1'],
  shortlog: ['-sn', 'HEAD', '-e HEAD'],
  'rev-list': ['--all', '--count HEAD', 'HEAD', '--objects --all'],
  'cat-file': [
    '-p HEAD',
    '-t HEAD',
    '--textconv HEAD:README.md',
    '--filters HEAD:README.md',
    '-e HEAD',
    '-s HEAD',
    '--batch-check',
    'commit HEAD',
    '-p v3',
  ],
  'for-each-ref': [
    '',
    "--format='%(refname)'",
    '--format=%(contents:signature)',
    '--sort=refname',
    'refs/tags',
    '--contains HEAD',
  ],
  'show-ref': ['', '--tags', '--heads', '-s', '--verify refs/heads/main'],
  'merge-base': ['HEAD feature', '--all HEAD feature', '--is-ancestor HEAD~1 HEAD'],
  'name-rev': ['HEAD', '--all'],
  'count-objects': ['-v', '-H'],
  'check-ignore': ['.env', '-v .env', '--stdin'],
  'check-attr': ['-a README.md', '--all -- README.md'],
  whatchanged: ['-1', '-p -1'],
  cherry: ['-v', 'main feature'],
  'range-diff': ['HEAD~1..HEAD HEAD~1..HEAD'],
  'show-branch': ['', '--all'],
  version: ['', '--build-options'],
  'diff-tree': ['-p HEAD', '--stat HEAD', '-r HEAD', '--ext-diff -p HEAD', '--textconv -p HEAD'],
  'diff-files': ['', '-p', '--ext-diff -p'],
  'diff-index': ['HEAD', '--cached HEAD', '-p HEAD'],
  'ls-tree': ['HEAD', '-r HEAD', '--name-only HEAD'],
  branch: [
    '',
    '-a',
    '-r',
    '-v',
    '-vv',
    '--list',
    '--list x',
    '--show-current',
    '--contains HEAD',
    '--merged',
    '--format=%(refname)',
    '--sort=refname',
    '--abbrev NAME',
    '--abbrev=7',
    '--column',
    '-l x y',
    'newbranch',
    '-d feature',
    '-D feature',
    '-m x',
    '-c x',
    '--set-upstream-to=main',
    '-u main',
    '--edit-description',
    '-f main HEAD',
    '--track x',
    '--no-track x',
    '--create-reflog x',
    '--unset-upstream',
    '--color=always',
    '--no-color newb',
    '-i',
    '--points-at HEAD',
    '--omit-empty',
  ],
  tag: [
    '',
    '-l',
    '--list',
    '-n',
    '-l v*',
    '--contains HEAD',
    'v9',
    '-d v1',
    '-v v3',
    '--verify v3',
    '-a x -m y',
    '-s x',
    '-f v1',
    '--sort=version:refname',
    '--format=%(refname)',
    '--points-at HEAD',
    '--column',
    '-n9',
    '--merged',
    '--no-merged',
    '--create-reflog x',
  ],
  remote: [
    '',
    '-v',
    'get-url origin',
    'show origin',
    'show -n origin',
    'add x y',
    'prune origin',
    'set-url origin x',
    'update',
    'rename origin x',
    'remove origin',
  ],
  config: [
    '--get user.name',
    '--list',
    '-l',
    'get user.name',
    'list',
    'user.name',
    'user.name X',
    'core.fsmonitor {prog} --get',
    'core.pager {prog} --get',
    '--get core.pager {prog}',
    '--file {new} x.y z',
    '--file {new} --get x.y',
    '-f {new} a.b c',
    '--global x.y z',
    '--global --get user.name',
    '--system --get x.y',
    '--local --list',
    '--show-origin --list',
    '--get-regexp .',
    '--edit',
    '-e',
    '--add x.y z',
    '--unset user.name',
    '--replace-all x.y z',
    '--rename-section user x',
    '--remove-section user',
    '--get-urlmatch http.proxy https://x',
    '--type=bool --get x.y',
    '--default=1 --get x.y',
    '--null --list',
    '--includes --list',
    '--blob=HEAD:README.md --list',
    '--name-only --list',
    '--list --file={new}',
    '--get-colorbool x',
    '--get-color x',
    '--get-all user.name',
    'x.y --get',
    '--list x.y z',
    '--get x.y z --add',
  ],
  stash: [
    'list',
    'show',
    'show -p',
    'show stash@{0}',
    'show --include-untracked',
    'drop',
    'pop',
    'push',
    'clear',
    'save',
    'list --format=%G?',
    'show --ext-diff -p',
    'create',
  ],
  worktree: ['list', 'list --porcelain', 'add x', 'prune', 'remove x', 'lock x'],
  reflog: [
    '',
    'show',
    'show --all',
    'expire --all',
    'delete HEAD@{0}',
    'exists HEAD',
    '--all',
    '-1',
    '--format=%G?',
  ],
  notes: ['list', 'show', 'add -m x'],
  archive: [
    '--output={new} HEAD',
    '-o {new} HEAD',
    'HEAD',
    '--remote=x HEAD',
    '--exec={prog} --remote=x HEAD',
    '--format=tar HEAD',
  ],
  bundle: ['list-heads {file}', 'create {new} HEAD', 'verify {file}'],
  'format-patch': ['-o {new} -1', '--stdout -1', '-1'],
  'verify-commit': ['HEAD'],
  'verify-tag': ['v3'],
  'symbolic-ref': ['HEAD', 'HEAD refs/heads/x', '--short HEAD'],
  'update-index': ['--refresh', '--really-refresh'],
  'hash-object': ['{file}', '-w {file}', '--stdin'],
  var: ['-l', 'GIT_EDITOR', 'GIT_PAGER'],
  'check-ref-format': ['refs/heads/x'],
  fsck: ['', '--lost-found'],
  gc: ['', '--auto'],
  'commit-graph': ['write'],
  'pack-refs': ['--all'],
  checkout: ['feature', '-- README.md', '-b x'],
  switch: ['feature'],
  restore: ['README.md'],
  reset: ['--hard', '--soft HEAD~1'],
  clean: ['-n', '-f', '-fdx'],
  add: ['-n .', 'README.md', '-A'],
  commit: ['--dry-run', '-m x', '--allow-empty -m x'],
  fetch: ['', 'origin'],
  pull: [''],
  push: [''],
  'ls-remote': ['', 'origin'],
  submodule: ['status', 'foreach ls'],
  difftool: ['HEAD~1'],
  help: ['log', '-a'],
  bisect: ['log', 'start'],
  rerere: ['status', 'diff'],
  'sparse-checkout': ['list'],
  boom: [''],
  st: [''],
  lg: [''],
}

const gitSub = pick(Object.keys(GIT_SUBCOMMANDS))

function fillGit(template: string): fc.Arbitrary<string> {
  return fill(template.replace('{ref}', '{gitref}').replace('{gfmt}', '{gitfmt}')).chain((s) =>
    s.includes('{gitref}') || s.includes('{gitfmt}')
      ? fc
          .tuple(pick(REFS), pick(GIT_FMT))
          .map(([r, f]) => s.replace('{gitref}', r).replace('{gitfmt}', `'${f}'`))
      : fc.constant(s),
  )
}

/** Where git runs: here, or in a repository whose configuration runs the payload (fixture.ts). */
const GIT_PLACES = [
  '',
  '',
  '',
  '',
  '',
  '',
  'cd vendor/evil && ',
  'cd evil.git; ',
  'cd vendor/evil; command ',
  'env -C vendor/evil ',
  'env --chdir=evil.git ',
  'GIT_DIR=vendor/evil/.git ',
  'pushd vendor/evil >/dev/null && ',
  'cd src && ',
  'cd nested/a && ',
  'cd vendor && cd evil && ',
]

const GIT_NAMES = [
  'git',
  'git',
  'git',
  'git',
  '/usr/bin/git',
  'command git',
  '\\git',
  'nice git',
  'timeout 9 git',
  'time git',
]

const gitCommand: fc.Arbitrary<Frag> = fc
  .record({
    place: pick(GIT_PLACES),
    name: pick(GIT_NAMES).chain((n) => (n === 'git' ? spell(n) : fc.constant(n))),
    globals: fc.array(pick(GIT_GLOBALS).chain(fill), { maxLength: 2 }),
    sub: gitSub,
  })
  .chain(({ place, name, globals, sub }) =>
    fc
      .record({
        subSpelled: spell(sub),
        args: fc.array(pick(GIT_SUBCOMMANDS[sub]!).chain(fillGit), { maxLength: 2 }),
        extra: rarely(fc.oneof(expansionWord, pick(REFS)), 8),
      })
      .map(({ subSpelled, args, extra }) =>
        frag(
          [
            place + name,
            ...globals,
            subSpelled,
            ...args.filter((a) => a !== ''),
            ...(extra === null ? [] : [extra]),
          ].join(' '),
        ),
      ),
  )

// sed: options (clusters with -n -E -s -i -e), scripts and files.
const sedScript: fc.Arbitrary<string> = fc
  .array(pick(SED_SCRIPTS).chain(fillRaw), { minLength: 1, maxLength: 2 })
  .chain((parts) => pick([';', '\n', ' ; ']).map((sep) => parts.join(sep)))

const SED_OPTIONS = [
  '-n',
  '-E',
  '-r',
  '-s',
  '-z',
  '-u',
  '--debug',
  '--sandbox',
  '--posix',
  '-i',
  '-i.bak',
  '-ibak',
  '--in-place',
  '--in-place=.bak',
  '-e {sed}',
  '--expression={sed}',
  '--expression {sed}',
  '-f {file}',
  '-l 5',
  '--line-length=5',
  '-ne {sed}',
  '-nE',
  '-En',
  '--quiet',
  '--silent',
  '--follow-symlinks',
  '-c',
  '--null-data',
]

const sedCommand: fc.Arbitrary<Frag> = fc
  .record({
    name: spell('sed'),
    opts: fc.array(pick(SED_OPTIONS).chain(fill), { maxLength: 2 }),
    script: fc.option(sedScript.chain(spell), { freq: 8, nil: undefined }),
    files: fc.array(pick(FILES).chain(spell), { maxLength: 2 }),
    after: fc.boolean(),
  })
  .map(({ name, opts, script, files, after }) => {
    const head = script === undefined ? [...opts] : [...opts, script]
    return frag(
      [
        name,
        ...(after ? [...(script === undefined ? [] : [script]), ...files, ...opts] : [...head, ...files]),
      ].join(' '),
    )
  })

const AWK_OPTIONS = [
  '-F ,',
  '-F,',
  '-v x=1',
  '-vx=1',
  "-v 'x=$(pwned)'",
  '-f {file}',
  '--',
  '-e {awk}',
  '-i {file}',
  '-l filefuncs',
  '-b',
  '-c',
  '-P',
  '--sandbox',
  '-M',
  '-o{new}',
  '-p{new}',
  '-d{new}',
  '--dump-variables={new}',
  '--profile={new}',
  '--pretty-print={new}',
  '-D',
  '-E {file}',
  '--exec={file}',
  '-S',
  '-O',
  '--lint',
]

const awkCommand: fc.Arbitrary<Frag> = fc
  .record({
    name: pick(['awk', 'gawk', 'mawk']).chain(spell),
    opts: fc.array(pick(AWK_OPTIONS).chain(fill), { maxLength: 2 }),
    program: pick(AWK_PROGRAMS).chain(fillRaw).chain(spell),
    files: fc.array(pick(FILES).chain(spell), { maxLength: 2 }),
  })
  .map(({ name, opts, program, files }) => frag([name, ...opts, program, ...files].join(' ')))

const FIND_TERMS = [
  '-name {glob}',
  '-type f',
  '-type d',
  '-maxdepth 1',
  '-mindepth 1',
  '-newer {file}',
  '-print',
  '-print0',
  '-printf {fmt}',
  '-ls',
  '-fprint {new}',
  '-fprint0 {new}',
  '-fprintf {new} %p',
  '-fls {new}',
  `-exec ${PAYLOAD} {} ;`,
  '-exec ls {} +',
  `-execdir ${PAYLOAD} {} ;`,
  '-ok ls {} ;',
  '-okdir ls {} ;',
  '-delete',
  '-quit',
  '-prune',
  '-regex {pat}',
  '-size +0',
  '-empty',
  '-path {glob}',
  '-o',
  '-a',
  '!',
  '-not',
  '-L',
  '-follow',
  '-depth',
  '-xdev',
  '-readable',
  '-perm -u+x',
  '-newerXY',
  '-files0-from {file}',
]

const findCommand: fc.Arbitrary<Frag> = fc
  .record({
    name: spell('find'),
    pre: rarely(pick(['-H', '-L', '-P', '-O1', '-D stat']), 5),
    paths: fc.array(pick(['.', 'src', '..', '~', 'docs', 'dashes', '{dir}']).chain(fill), { maxLength: 2 }),
    terms: fc.array(
      pick(FIND_TERMS).chain((t) => fill(t.replace(/ ;$/, ' \\;').replace(/ \{\} /, ' {} '))),
      { maxLength: 3 },
    ),
  })
  .map(({ name, pre, paths, terms }) =>
    frag([name, ...(pre === null ? [] : [pre]), ...paths, ...terms].join(' ')),
  )

/** A command run by a wrapper: a likely read-only one, a payload, or a writer. */
const innerCommand: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: specCommand.map((f) => f.t), weight: 4 },
  { arbitrary: gitCommand.map((f) => f.t), weight: 1 },
  { arbitrary: pick(CMDS), weight: 2 },
  {
    arbitrary: pick([
      'ls',
      'cat README.md',
      'git status',
      'grep -r alpha .',
      'sort -o PWN notes.txt',
      'tee PWN',
      'find . -fprint PWN',
    ]),
    weight: 2,
  },
)

/** A wrapper's own words are filled; the wrapped command is inserted as written. */
const wrapperCommand: fc.Arbitrary<Frag> = fc
  .tuple(pick(WRAPPERS).chain(fill), innerCommand, rarely(pick(WRAPPERS).chain(fill), 5))
  .map(([w, inner, outer]) => {
    const once = w.replace(/\{inner\}/g, inner)
    return frag(outer === null ? once : outer.replace(/\{inner\}/g, once))
  })

const codeRunner: fc.Arbitrary<Frag> = pick(CODE_RUNNERS)
  .chain(fill)
  .map((t) => frag(t))

/**
 * Shapes that make bash run something a word-level reading misses: command names spelled through
 * escapes, braces or line continuations, arithmetic contexts that evaluate array subscripts,
 * aliases, sort spilling to temporary files (and its compressor), make's dry run.
 */
export const TRAPS: readonly string[] = [
  `pw\\\nned cmdname-continuation`,
  `$'\\x70wned' ansi-c-name`,
  `{${PAYLOAD},brace-name}`,
  '{ls,-la}',
  `"pw"ned quoted-name`,
  `p\\wned escaped-name`,
  `\${x:-${PAYLOAD}} default-name`,
  `$(echo ${PAYLOAD}) substituted-name`,
  `echo $\\\n(${PAYLOAD} word-continuation)`,
  `echo \`\\\n${PAYLOAD}\``,
  `[[ 1 -eq 'a[$(${PAYLOAD} arith-test)]' ]]`,
  `[[ -v 'a[$(${PAYLOAD} v-test)]' ]]`,
  `[[ a[$(${PAYLOAD})] -gt 0 ]]`,
  `(( a[$(${PAYLOAD} arith-cmd)] ))`,
  `(( 'a[$(${PAYLOAD})]' ))`,
  `test -v 'a[$(${PAYLOAD} test-v)]'`,
  `[ -v 'a[$(${PAYLOAD})]' ]`,
  `x='a[$(${PAYLOAD} arith-var)]'; echo $((x))`,
  `for ((i=a[$(${PAYLOAD})]; i<1; i++)); do :; done`,
  `case $(${PAYLOAD}) in *) ;; esac`,
  `for f in $(${PAYLOAD}); do :; done`,
  `shopt -s expand_aliases; alias ls=${PAYLOAD}\nls alias`,
  `alias ls=${PAYLOAD}\nls`,
  'seq 1 30000 | sort -S 1 -T .',
  'seq 1 30000 | sort -S 1 -T /tmp',
  `seq 1 30000 | sort -S 1 --compress-program=${PAYLOAD}`,
  'seq 1 30000 | sort -S 1 -o PWN',
  'make -n',
  'make -q',
  'make -p -f /dev/null',
  'sed -f edit.sed notes.txt',
  'sed -nf edit.sed notes.txt',
  'awk -f prog.awk notes.txt',
  'gawk -i ./prog.awk 1 notes.txt',
  'gawk -d notes.txt',
  'gawk -p 1 notes.txt',
  'gawk -o 1 notes.txt',
  'gawk --dump-variables 1 notes.txt',
  `tee >(${PAYLOAD})`,
  `diff <(ls) <(${PAYLOAD})`,
  'ls > >(cat)',
  `echo "$(cat <<EOF\n$(${PAYLOAD} nested-heredoc)\nEOF\n)"`,
  `cat <<EOF\n$(\nEOF\n${PAYLOAD}\n)\nEOF`,
  `$(cat <<EOF\n)\nEOF\n${PAYLOAD})`,
  `cat <<"E"OF\n$(${PAYLOAD})\nEOF`,
  `cat << 'EOF' | sh\n${PAYLOAD}\nEOF`,
  `bash <<< ${PAYLOAD}`,
  `exec 3>PWN`,
  `exec >PWN; ls`,
  `trap ${PAYLOAD} EXIT; ls`,
  `ls; trap '${PAYLOAD}' DEBUG; ls`,
  `command_not_found_handle() { ${PAYLOAD}; }; nosuchprogram`,
  `ls() { ${PAYLOAD}; }; ls`,
  // Assignments to exported variables reach every later program (HOME, PATH are exported).
  'HOME=vendor/evil; git status',
  'HOME=vendor/evil; git diff HEAD~1',
  'HOME=$PWD/vendor/evil; git log --show-signature -1',
  'PATH=tools:$PATH; ls',
  'PATH=tools; git status',
  'PATH=./tools:/usr/bin; cat README.md',
  'x=1; PATH=tools:$PATH ls',
  'export HOME=vendor/evil; git status',
  'cd tools && PATH=. ls',
  'hash -p tools/ls ls; ls',
  'IFS=/; ls README.md',
  // xargs appends what it reads: options and output operands the classifier cannot see.
  "printf '%s\\n' -o PWN notes.txt | xargs sort",
  'echo -o PWN | xargs sort notes.txt',
  'echo PWN | xargs uniq notes.txt',
  'echo NAME | xargs git branch',
  `echo core.pager ${PAYLOAD} | xargs git config`,
  'echo -fprint PWN | xargs find .',
  'echo -i | xargs sed s/a/b/ notes.txt',
  'echo PWN | xargs tee',
  'echo -s 2020-01-01 | xargs date',
  'ls dashes | xargs sort',
  'cd dashes && ls | xargs sort',
  'cd dashes && sort *',
  'cd dashes && git log *',
  // find -exec runs what it names, {} included.
  'find . -name script.sh -exec {} \\;',
  'find . -maxdepth 1 -name script.sh -execdir {} \\;',
  'find . -name README.md -exec cat {} +',
  `find . -name x -exec git config core.pager ${PAYLOAD} \\;`,
  'find dashes -exec sort {} +',
  'find . -maxdepth 1 -exec test -e {} \\; -exec ls {} +',
  'find . -name notes.txt -exec sort -o PWN {} \\;',
  `find . -name notes.txt -exec sh -c '${PAYLOAD}' \\;`,
  // Patterns and tests expand too.
  `case x in $(${PAYLOAD} case-pattern)) :;; esac`,
  `case x in "$(${PAYLOAD})") :;; esac`,
  `[[ x == $(${PAYLOAD} test-pattern) ]]`,
  `[[ -f $(${PAYLOAD}) ]]`,
  `for ((i=0; i<$(${PAYLOAD} for-arith); i++)); do :; done`,
  `select v in $(${PAYLOAD}); do break; done`,
  'exec 3<>PWN',
  'exec 3>&1 >PWN',
  // Brace expansion turns one word into several: an output operand, an option and its value.
  'uniq {notes.txt,PWN}',
  'uniq -c notes.txt{,.out}',
  'sort {-o,PWN} notes.txt',
  'sort notes.txt -{o,}PWN',
  'sed {-i,s/a/b/} notes.txt',
  "sed -n {'w PWN',p} notes.txt",
  'date {-s,2020-01-01}',
  `git {config,core.pager,${PAYLOAD}}`,
  'git branch {NAME,}',
  'git tag {v9,}',
  'tee {PWN,}',
  'tree {-o,PWN}',
  'find . {-fprint,PWN}',
  `env {${PAYLOAD},}`,
  `xargs {${PAYLOAD},} < notes.txt`,
  'cat {README.md,notes.txt} {x,y}',
  'ionice -p 1 -c 3',
  'renice -n 5 -p 1',
  'taskset -p 1 1',
  'prlimit --pid 1 --nofile=10:10',
  'dmesg -C',
  'sysctl -w kernel.hostname=x',
  'ip link set lo down',
  'hostname -F /etc/hostname',
  'script -qc true PWN',
  'nohup ls',
  'ls | tee /dev/null',
  'ls >/dev/null 2>&1 | tee -a /dev/null',
  `git -C vendor/evil status`,
  `GIT_DIR=evil.git git log -p --ext-diff`,
  'cd vendor/evil && git status',
  'cd vendor/evil && command git status',
  'cd evil.git && git diff HEAD~1 HEAD',
  'cd vendor/evil; git log --show-signature -1',
  '(cd vendor/evil && git status)',
  '{ cd vendor/evil; git status; }',
  'env -C vendor/evil git status',
  'cd vendor && cd evil && git status',
  'cd - >/dev/null; cd vendor/evil && git status',
  'for d in vendor/evil; do (cd "$d" && git status); done',
]

const trap: fc.Arbitrary<Frag> = pick(TRAPS).map((t) => frag(t))

/** echo/cat/printf/test/[ with expansions: the words are where hidden code hides. */
const expansionCommand: fc.Arbitrary<Frag> = fc
  .tuple(
    pick([
      'echo',
      'cat',
      'printf %s',
      'ls',
      'test -n',
      '[ -n',
      '[[ -n',
      'wc -c',
      ':',
      'true',
      'grep x',
      'head -1',
      'stat',
      'git log',
      'sort',
    ]),
    fc.array(expansionWord, { minLength: 1, maxLength: 3 }),
  )
  .map(([p, ws]) =>
    frag(
      p.startsWith('[[')
        ? `${p} ${ws.join(' ')} ]]`
        : p.startsWith('[')
          ? `${p} ${ws.join(' ')} ]`
          : `${p} ${ws.join(' ')}`,
    ),
  )

/** A simple command with an optional env prefix, redirects and heredoc. */
const decorated = (base: fc.Arbitrary<Frag>): fc.Arbitrary<Frag> =>
  fc
    .record({
      base,
      env: rarely(envPrefix, 10),
      redirects: fc.oneof(
        SHRINK_TO_FIRST,
        { arbitrary: fc.constant<string[]>([]), weight: 6 },
        { arbitrary: fc.array(redirect, { minLength: 1, maxLength: 2 }), weight: 4 },
      ),
      hd: rarely(heredoc, 12),
    })
    .map(({ base: b, env, redirects, hd }) => {
      const parts = [...(env === null ? [] : [env]), b.t, ...redirects, ...(hd === null ? [] : [hd.t])]
      return frag(parts.join(' '), [...b.h, ...(hd?.h ?? [])])
    })

export const simpleCommand: fc.Arbitrary<Frag> = fc.oneof(
  { arbitrary: decorated(specCommand), weight: 40 },
  { arbitrary: decorated(gitCommand), weight: 18 },
  { arbitrary: decorated(sedCommand), weight: 6 },
  { arbitrary: decorated(awkCommand), weight: 4 },
  { arbitrary: decorated(findCommand), weight: 5 },
  { arbitrary: decorated(wrapperCommand), weight: 8 },
  { arbitrary: heredocCommand, weight: 8 },
  { arbitrary: decorated(expansionCommand), weight: 7 },
  { arbitrary: codeRunner, weight: 2 },
  { arbitrary: trap, weight: 4 },
)

// ---- compound commands -------------------------------------------------------------------------

const SEPARATORS = [' && ', ' || ', '; ', ' | ', ' |& ', ' & ']
const sep: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: pick([' && ', ' | ', '; ']), weight: 8 },
  { arbitrary: pick(SEPARATORS), weight: 2 },
)

function listOf(item: fc.Arbitrary<Frag>): fc.Arbitrary<Frag> {
  return fc
    .tuple(
      item,
      fc.oneof(
        SHRINK_TO_FIRST,
        { arbitrary: fc.constant<[string, Frag][]>([]), weight: 1 },
        { arbitrary: fc.array(fc.tuple(sep, item), { minLength: 1, maxLength: 2 }), weight: 3 },
      ),
    )
    .map(([first, rest]) =>
      frag(first.t + rest.map(([s, f]) => s + f.t).join(''), [first.h, ...rest.map(([, f]) => f.h)].flat()),
    )
}

const COMPOUNDS: readonly ((a: Frag, b: Frag) => Frag)[] = [
  (a, b) => frag(`if ${a.t}; then ${b.t}; fi`, [...a.h, ...b.h]),
  (a, b) => frag(`if ${a.t}; then ${b.t}; else ls; fi`, [...a.h, ...b.h]),
  (a, b) => frag(`for f in *; do ${a.t} "$f"; done; ${b.t}`, [...a.h, ...b.h]),
  (a) => frag(`for f in README.md notes.txt; do ${a.t}; done`, a.h),
  (a) => frag(`for ((i=0; i<2; i++)); do ${a.t}; done`, a.h),
  (a) => frag(`while read -r l; do ${a.t}; done < notes.txt`, a.h),
  (a) => frag(`while false; do ${a.t}; done`, a.h),
  (a) => frag(`until true; do ${a.t}; done`, a.h),
  (a, b) => frag(`case x in x) ${a.t};; *) ${b.t};; esac`, [...a.h, ...b.h]),
  (a) => frag(`( ${a.t} )`, a.h),
  (a) => frag(`{ ${a.t}; }`, a.h),
  (a) => frag(`${a.t} &`, a.h),
  (a) => frag(`! ${a.t}`, a.h),
  (a) => frag(`time ${a.t}`, a.h),
  (a) => frag(`echo "$(${flush(a)}\n)"`),
  (a) => frag(`x=$(${flush(a)}\n)`),
  (a) => frag(`f() { ${a.t}; }; f`, a.h),
  (a) => frag(`[[ -f README.md ]] && ${a.t}`, a.h),
  (a) => frag(`(( 1 )) && ${a.t}`, a.h),
  (a) => frag(`select v in a; do ${a.t}; done`, a.h),
  (a) => frag(`coproc ${a.t}`, a.h),
  (a) => frag(`cd src && ${a.t}`, a.h),
  (a) => frag(`cd .. && ${a.t}`, a.h),
]

/** A compound command, sometimes with a redirect of its own (`{ ls; } > out`, `done < notes.txt > x`). */
const compound: fc.Arbitrary<Frag> = fc
  .tuple(pick(COMPOUNDS), listOf(simpleCommand), listOf(simpleCommand), rarely(redirect, 4))
  .map(([c, a, b, r]) => {
    const f = c(a, b)
    return r === null ? f : frag(`${f.t} ${r}`, f.h)
  })

const line: fc.Arbitrary<Frag> = fc.oneof(
  SHRINK_TO_FIRST,
  { arbitrary: simpleCommand, weight: 10 },
  { arbitrary: listOf(simpleCommand), weight: 6 },
  { arbitrary: compound, weight: 3 },
  { arbitrary: listOf(fc.oneof(simpleCommand, compound)), weight: 1 },
)

/** A script: one or more lines, each followed by the heredoc bodies it opened. */
const structured: fc.Arbitrary<string> = fc
  .oneof(
    SHRINK_TO_FIRST,
    { arbitrary: fc.tuple(line).map((ls): Frag[] => ls), weight: 5 },
    { arbitrary: fc.tuple(line, line).map((ls): Frag[] => ls), weight: 1 },
  )
  .chain((lines) =>
    fc.constantFrom('\n', '\n\n', ' \\\n').map((nl) =>
      lines
        .map((l) => (l.h.length > 0 ? `${flush(l)}\n` : l.t))
        .join(nl)
        .replace(/\n+$/, ''),
    ),
  )

// ---- near misses and noise ---------------------------------------------------------------------

const INSERTIONS = [
  '$',
  '`',
  '\\',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  '~',
  '#',
  '(',
  ')',
  '<',
  '>',
  '&',
  '!',
  ';',
  '|',
  "'",
  '"',
  '\n',
  '\t',
  ' ',
  '$(',
  '>>',
  '|&',
  ';;',
  '<<',
  '<<<',
  '<>',
  '>&',
  '=',
  '-',
  '--',
  '\\\n',
  `$(${PAYLOAD})`,
  `\`${PAYLOAD}\``,
  '${x-',
  'é',
  '\u00a0',
  '\r',
  '\x1b',
]

/** A generated command with one token inserted at one position. */
const nearMiss: fc.Arbitrary<string> = fc
  .tuple(structured, pick(INSERTIONS), fc.nat())
  .map(([s, ins, at]) => {
    const k = s.length === 0 ? 0 : at % (s.length + 1)
    return s.slice(0, k) + ins + s.slice(k)
  })

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')
const randomPrintable: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...`${PRINTABLE}\n\t`), { minLength: 1, maxLength: 40 })
  .map((cs) => cs.join(''))

/** The fuzzer's command arbitrary. */
export const commandArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: structured, weight: 85 },
  { arbitrary: nearMiss, weight: 10 },
  { arbitrary: randomPrintable, weight: 5 },
)
