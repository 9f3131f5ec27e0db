import { describe, expect, test } from 'vitest'
import { type CommandSpec, helpText, parseArgs } from '../src/args.js'

const spec: CommandSpec = {
  name: 'run',
  summary: 'run a task',
  positionals: [{ name: 'task', description: 'what to do', required: true }],
  options: [
    {
      name: 'provider',
      short: 'p',
      kind: 'string',
      value: '<name>',
      choices: ['openai', 'anthropic'],
      description: 'Wire format.',
    },
    { name: 'max-turns', kind: 'int', value: '<n>', min: 1, description: 'Turn limit.' },
    { name: 'yes', short: 'y', kind: 'flag', description: 'Approve.' },
    { name: 'log', kind: 'string', value: '<path>', description: 'Log file.' },
  ],
}

describe('parseArgs', () => {
  test('long, short, inline values, flags and positionals', () => {
    expect(
      parseArgs(spec, ['--provider', 'openai', '--max-turns=3', '-y', 'fix the bug', '--log', 'a.jsonl']),
    ).toEqual({
      ok: true,
      options: { provider: 'openai', 'max-turns': 3, yes: true, log: 'a.jsonl' },
      positionals: ['fix the bug'],
      help: false,
    })
    // Switches group as in any POSIX tool; the last letter of a group may take the next word.
    expect(parseArgs(spec, ['-yp', 'openai', 't'])).toEqual({
      ok: true,
      options: { yes: true, provider: 'openai' },
      positionals: ['t'],
      help: false,
    })
    expect(parseArgs(spec, ['--max-turns', '-1', 't'])).toEqual({
      ok: false,
      error: 'toolgate run: --max-turns must be at least 1 (got -1)',
    })
    expect(parseArgs(spec, ['-p', 'anthropic', '--', '--not-an-option'])).toEqual({
      ok: true,
      options: { provider: 'anthropic' },
      positionals: ['--not-an-option'],
      help: false,
    })
  })

  test('--help wins over missing arguments', () => {
    expect(parseArgs(spec, ['--help'])).toEqual({ ok: true, options: {}, positionals: [], help: true })
    expect(parseArgs(spec, ['-h', '--provider', 'openai'])).toMatchObject({ ok: true, help: true })
  })

  test('errors say what is wrong and what to do', () => {
    expect(parseArgs(spec, ['--provder', 'openai', 't'])).toEqual({
      ok: false,
      error: 'toolgate run: unknown option --provder (did you mean --provider?). See `toolgate run --help`.',
    })
    expect(parseArgs(spec, ['t', '--provider'])).toEqual({
      ok: false,
      error: 'toolgate run: --provider needs a value <name>',
    })
    expect(parseArgs(spec, ['t', '--provider', '--yes'])).toEqual({
      ok: false,
      error: 'toolgate run: --provider needs a value <name>',
    })
    expect(parseArgs(spec, ['t', '--provider', 'gemini'])).toEqual({
      ok: false,
      error: 'toolgate run: --provider must be one of openai, anthropic (got "gemini")',
    })
    expect(parseArgs(spec, ['t', '--max-turns', 'ten'])).toEqual({
      ok: false,
      error: 'toolgate run: --max-turns needs a whole number (got "ten")',
    })
    expect(parseArgs(spec, ['t', '--max-turns', '0'])).toEqual({
      ok: false,
      error: 'toolgate run: --max-turns must be at least 1 (got 0)',
    })
    expect(parseArgs(spec, ['t', '--yes=1'])).toEqual({
      ok: false,
      error: 'toolgate run: --yes is a switch and takes no value (got "1")',
    })
    expect(parseArgs(spec, [])).toEqual({
      ok: false,
      error: 'toolgate run: missing argument <task> (what to do). See `toolgate run --help`.',
    })
    expect(parseArgs(spec, ['fix', 'the', 'bug'])).toEqual({
      ok: false,
      error: 'toolgate run: unexpected extra argument "the" (quote the task if it has spaces)',
    })
    // A short option glued to its value reads as a misspelt long option; it is named as such.
    expect(parseArgs(spec, ['-pvalue', 't'])).toEqual({
      ok: false,
      error:
        'toolgate run: unknown option -pvalue (a short option takes one letter and its value as the next word: -p <name>; long options start with --)',
    })
    expect(parseArgs(spec, ['-yx', 't'])).toEqual({
      ok: false,
      error: 'toolgate run: unknown option -x in -yx. See `toolgate run --help`.',
    })
    expect(parseArgs(spec, ['-provider', 'openai', 't'])).toEqual({
      ok: false,
      error:
        'toolgate run: unknown option -provider (a short option takes one letter and its value as the next word: -p <name>; long options start with --)',
    })
    expect(parseArgs({ ...spec, positionals: [] }, ['x'])).toEqual({
      ok: false,
      error: 'toolgate run: unexpected argument "x" (this command takes none)',
    })
  })

  test('help text is generated from the same table', () => {
    expect(helpText(spec)).toBe(
      [
        'toolgate run — run a task',
        '',
        'Usage: toolgate run [options] <task>',
        '',
        'Arguments:',
        '  task                    what to do',
        '',
        'Options:',
        '  -p, --provider <name>       Wire format. (openai | anthropic)',
        '      --max-turns <n>         Turn limit.',
        '  -y, --yes                   Approve.',
        '      --log <path>            Log file.',
        '  -h, --help                  Show this help and exit.',
        '',
      ].join('\n'),
    )
  })
})
