import fc from 'fast-check'
import { beforeAll, describe, expect, test } from 'vitest'
import { classifyUncached, classifyWithTreeSitter, coversWholeInput } from '../src/shell/classify.js'
import { fastParse } from '../src/shell/fast-parse.js'
import { initShellParser } from '../src/shell/parser.js'
import { READ_ONLY, UNSAFE } from './shell-corpus.js'

/**
 * The fast parser (src/shell/fast-parse.ts) must never change a verdict: whenever it accepts a
 * command, the classification must equal the tree-sitter path's exactly (readOnly, reason, unsure,
 * every simple command's text/canonical/argv/program/subcommand/reason/writes, and whether the
 * parts cover the whole input). Commands are generated from the subset grammar, and as near misses
 * with one character inserted anywhere (the parser must then either delegate or still agree).
 */

beforeAll(async () => {
  await initShellParser()
})

function expectSameAsTreeSitter(command: string): boolean {
  const parsed = fastParse(command)
  if (parsed === undefined) return false
  const fast = classifyUncached(command)
  const tree = classifyWithTreeSitter(command)
  expect(fast, JSON.stringify(command)).toStrictEqual(tree)
  expect(coversWholeInput(fast), JSON.stringify(command)).toBe(coversWholeInput(tree))
  return true
}

// FAST_PATH_RUNS=100000 for a longer soak.
const RUNS = Number(process.env.FAST_PATH_RUNS ?? 4000)

// ---- generators -------------------------------------------------------------------------------

const WORD_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+@%^-'
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')
const IN_SINGLE = PRINTABLE.replace("'", '')
const IN_DOUBLE = PRINTABLE.replace(/["$`\\!]/g, '')

const chars = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(''))

// Real vocabulary: programs of every kind in the table, flags that matter, keywords, numbers.
const PROGRAMS = [
  'ls',
  'cat',
  'git',
  'grep',
  'rg',
  'sed',
  'awk',
  'find',
  'sort',
  'uniq',
  'head',
  'tail',
  'wc',
  'echo',
  'jq',
  'tee',
  'date',
  'printf',
  'env',
  'command',
  'xargs',
  'npm',
  'cd',
  'rm',
  'mv',
  'cp',
  'mkdir',
  'test',
  'true',
  'false',
  'node',
  'sh',
  'bash',
  'curl',
  'docker',
  'less',
  'sudo',
  'kill',
  'tree',
  'file',
  'fd',
  'hostname',
  'uname',
  'diff',
  'eval',
  'exec',
  'source',
  '.',
  ':',
  'x',
  'if',
  'then',
  'done',
  'export',
  'local',
  'time',
  'in',
  'declare',
  'unset',
  'let',
  'alias',
  'builtin',
  'type',
]
const ARGS = [
  'status',
  'log',
  'diff',
  'show',
  'branch',
  '-D',
  'push',
  'config',
  '--get',
  'user.name',
  '-c',
  'core.pager=x',
  '--output=x',
  '-o',
  'out.txt',
  '-i',
  '-n',
  '5',
  '10',
  '-la',
  '-rn',
  '--',
  '-',
  '-exec',
  '-delete',
  '-name',
  '.',
  'src',
  'a.txt',
  '/dev/null',
  'if',
  'then',
  'fi',
  'done',
  'do',
  'in',
  'esac',
  '{}',
  'x=1',
  'a==b',
  '--pre=x',
  '-z',
  'p',
  's/a/b/',
  's/a/b/w',
  '1,40p',
  'w',
  'e',
  'system',
  '-v',
  'ls',
  'rm',
  'get',
  'list',
  'run',
  'test',
  '+%s',
  '-s',
  'now',
  '-e',
  '-f',
  '-r',
  'stash',
  'remote',
  '-v',
  'get-url',
  'origin',
  'HEAD~1',
  '@',
  '%',
  '^',
  ',',
  ':',
  '=',
  '+',
]

// `~` is literal inside a word, but not at its start or after `=`/`:` (tilde expansion).
const TILDE_WORDS = ['HEAD~1', 'HEAD~2', 'a~b', 'x~', 'a=~x', 'a:~', '~', '~/x', 'a~~', '-~', '--x=~/y']
const unquoted = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(...ARGS.filter((a) => [...a].every((c) => WORD_CHARS.includes(c)))),
  },
  { weight: 2, arbitrary: chars(WORD_CHARS, 1, 8) },
  fc.constantFrom(...TILDE_WORDS),
  chars(`${WORD_CHARS}~~~`, 1, 6),
  // Globs: accepted in arguments (the word is then dynamic, exactly as in the tree path).
  fc.constantFrom('*', '*.ts', 'src/*', '--include=*.ts', '?', 'a*b?', '**/x', '-*', 'x=*', '*~', '*=~'),
  chars(`${WORD_CHARS}*?~`, 1, 6),
)
const singleQuoted = fc.oneof(
  fc.constantFrom(...ARGS).map((a) => `'${a.replaceAll("'", '')}'`),
  chars(IN_SINGLE, 0, 8).map((s) => `'${s}'`),
)
const doubleQuoted = fc.oneof(
  fc.constantFrom(...ARGS).map((a) => `"${a}"`),
  chars(IN_DOUBLE, 0, 8).map((s) => `"${s}"`),
)
const part = fc.oneof({ weight: 4, arbitrary: unquoted }, singleQuoted, doubleQuoted)
const word = fc.oneof(
  { weight: 4, arbitrary: part },
  fc.array(part, { minLength: 2, maxLength: 3 }).map((p) => p.join('')),
)
const commandName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PROGRAMS) },
  fc.constantFrom(...PROGRAMS).map((p) => `'${p}'`),
  word,
)
const blank = fc.constantFrom(' ', ' ', ' ', '  ', '\t')
const redirect = fc.constantFrom(
  '2>&1',
  '1>&2',
  '>&2',
  '>/dev/null',
  '2>/dev/null',
  '1>/dev/null',
  '&>/dev/null',
  '> /dev/null',
  '2>  /dev/null',
  '&>\t/dev/null',
)
const simpleCommand = fc
  .tuple(
    commandName,
    fc.array(word, { maxLength: 5 }),
    fc.array(redirect, { maxLength: 2 }),
    fc.array(blank, { minLength: 8, maxLength: 8 }),
  )
  .map(([name, args, redirects, blanks]) =>
    [name, ...args, ...redirects].map((t, i) => (i === 0 ? t : `${blanks[i % 8]}${t}`)).join(''),
  )
const operator = fc.constantFrom('|', '&&', '||', ';', ' | ', ' && ', ' || ', '; ', ' ; ')
const subsetCommand = fc
  .tuple(
    simpleCommand,
    fc.array(fc.tuple(operator, simpleCommand), { maxLength: 3 }),
    fc.constantFrom('', '', '', ';', ' ', ' ;'),
    fc.constantFrom('', '', ' ', '\t'),
  )
  .map(([first, rest, tail, lead]) => lead + first + rest.map(([op, c]) => op + c).join('') + tail)

// Characters the subset forbids (or gives a meaning only in some places), plus a few allowed ones.
const INSERTED = [
  ...'$`\\*?[]{}~#()<>&!;|\'"\n\r\t =-2',
  '\u00e9',
  '\u200b',
  '\x01',
  '\x7f',
  '$(',
  '${',
  '>',
  '>>',
  '<',
  '&',
  '|&',
  ';;',
  '2>',
  '>&',
  '=',
  '==',
  '=~',
  '\\\n',
]
const nearMiss = fc.tuple(subsetCommand, fc.constantFrom(...INSERTED), fc.nat()).map(([c, ins, at]) => {
  const i = at % (c.length + 1)
  return c.slice(0, i) + ins + c.slice(i)
})

// ---- tests ------------------------------------------------------------------------------------

describe('fast parser: differential against the tree-sitter path', () => {
  test('property: commands of the subset are accepted and classified exactly like tree-sitter', () => {
    let accepted = 0
    fc.assert(
      fc.property(subsetCommand, (c) => {
        if (expectSameAsTreeSitter(c)) accepted++
      }),
      { numRuns: RUNS },
    )
    // The generator also produces what the parser delegates on purpose (keywords, `=` words and
    // `@ % +` in command position, redirects after `|`/`&&`/`||`), so not every case is accepted.
    console.log(`fast parser accepted ${accepted} of ${RUNS} generated subset commands`)
    expect(accepted).toBeGreaterThan(RUNS / 4)
  })

  test('property: near misses (one character inserted) are delegated or classified identically', () => {
    let accepted = 0
    fc.assert(
      fc.property(nearMiss, (c) => {
        if (expectSameAsTreeSitter(c)) accepted++
      }),
      { numRuns: RUNS },
    )
    console.log(`fast parser accepted ${accepted} of ${RUNS} near misses (the rest delegated)`)
  })

  test('property: random printable strings are delegated or classified identically', () => {
    fc.assert(
      fc.property(chars(`${PRINTABLE}\t\n`, 0, 30), (c) => {
        expectSameAsTreeSitter(c)
      }),
      { numRuns: RUNS },
    )
  })

  test('both corpora: fast-path results equal tree-sitter results', () => {
    let fast = 0
    for (const c of [...READ_ONLY, ...UNSAFE]) if (expectSameAsTreeSitter(c)) fast++
    console.log(
      `corpora: ${fast} of ${READ_ONLY.length + UNSAFE.length} commands took the fast path (read-only corpus: ${READ_ONLY.filter((c) => fastParse(c) !== undefined).length}/${READ_ONLY.length})`,
    )
    expect(UNSAFE.filter((c) => classifyUncached(c).readOnly)).toEqual([])
  })
})

describe('fast parser: exact parses', () => {
  test('words, quotes, concatenation, operators and redirects', () => {
    expect(fastParse(`git log --format='%h %s' -n 5 2>&1 | head;`)).toStrictEqual({
      commands: [
        {
          text: "git log --format='%h %s' -n 5 2>&1",
          canonical: "git log --format='%h %s' -n 5 2>&1",
          words: ['git', 'log', '--format=%h %s', '-n', '5'].map((value) => ({ kind: 'static', value })),
          redirects: [{ kind: 'file', op: '>&', targets: [{ kind: 'static', value: '1' }], text: '2>&1' }],
        },
        {
          text: 'head',
          canonical: 'head',
          words: [{ kind: 'static', value: 'head' }],
          redirects: [],
        },
      ],
      operators: ['|', ';'],
    })
    expect(fastParse('rg  -n\t"a b"x\'c\'  src')?.commands[0]).toStrictEqual({
      text: 'rg  -n\t"a b"x\'c\'  src',
      canonical: 'rg -n "a b"x\'c\' src',
      words: ['rg', '-n', 'a bxc', 'src'].map((value) => ({ kind: 'static', value })),
      redirects: [],
    })
    expect(fastParse('ls&&cat a||wc')?.operators).toEqual(['&&', '||'])
    expect(fastParse(`wc -l "my dir"/*.ts x'y'?`)?.commands[0]?.words).toStrictEqual([
      { kind: 'static', value: 'wc' },
      { kind: 'static', value: '-l' },
      { kind: 'dynamic', why: 'glob /*.ts' },
      { kind: 'dynamic', why: 'glob ?' },
    ])
    expect(fastParse('git diff HEAD~1 2>  /dev/null')?.commands[0]).toStrictEqual({
      text: 'git diff HEAD~1 2>  /dev/null',
      canonical: 'git diff HEAD~1 2>  /dev/null',
      words: ['git', 'diff', 'HEAD~1'].map((value) => ({ kind: 'static', value })),
      redirects: [
        { kind: 'file', op: '>', targets: [{ kind: 'static', value: '/dev/null' }], text: '2>  /dev/null' },
      ],
    })
  })

  test.each([
    ['$HOME', 'expansion'],
    ['echo `id`', 'backquote'],
    ['echo "$x"', '$ in double quotes'],
    ['echo "a\\"b"', 'backslash in double quotes'],
    ['echo "hi!"', '! in double quotes'],
    ['ls \\rm', 'backslash'],
    ['* x', 'glob in command position'],
    ['l? x', 'glob in command position'],
    ['ls [ab]', 'glob ['],
    ['echo {a,b}', 'brace'],
    ['ls ~', 'tilde'],
    ['ls ~/x', 'tilde at the start of a word'],
    ['ls --x=~/y', 'tilde after ='],
    ['ls a:~', 'tilde after :'],
    ['a~b x', 'tilde in command position'],
    ['ls >/dev/null2', 'redirect target not /dev/null'],
    ['ls > /dev/nul', 'redirect target not /dev/null'],
    ['ls # c', 'comment'],
    ['(ls)', 'subshell'],
    ['ls > out', 'writing redirect'],
    ['ls >> /dev/null', 'append redirect'],
    ['ls >out', 'writing redirect, no blank'],
    ['ls 2>/dev/nullx', 'redirect not a whole token'],
    ['ls >/dev/null -la', 'word after a redirect'],
    ['2>&1 ls', 'redirect before the command'],
    ['ls x2>&1', 'redirect glued to a word'],
    ['cat < f', 'input redirect'],
    ['cat <<EOF', 'heredoc'],
    ['ls &', 'background'],
    ['ls & rm x', 'background'],
    ['ls |& cat', '|&'],
    ['ls ;; x', ';;'],
    ['ls\nrm x', 'newline'],
    ['ls\r', 'carriage return'],
    ['ls caf\u00e9', 'non-ASCII'],
    ["echo 'caf\u00e9'", 'non-ASCII in quotes'],
    ['echo "a\tb"', 'tab in quotes'],
    ['ls "unterminated', 'unterminated quote'],
    ['ls |', 'trailing pipe'],
    ['ls &&', 'trailing &&'],
    ['; ls', 'leading ;'],
    ['ls ; ; ls', 'empty command'],
    ['', 'empty input'],
    ['   ', 'blank input'],
    ['A=1 ls', 'assignment prefix'],
    ['LD_PRELOAD=x.so ls', 'assignment prefix'],
    ['if true', 'reserved word'],
    ["'if' x", 'quoted reserved word'],
    ['export A', 'declaration builtin'],
    ['time ls', 'time keyword'],
    ['echo ==x', '== argument form'],
    ['echo =~ x', '=~ argument form'],
  ])('delegates %j (%s)', (command) => {
    expect(fastParse(command)).toBeUndefined()
  })
})
