import { classifyCommand, clearClassifyCache, initShellParser, splitCompound } from '@toolgate/policy'
import { beforeAll, describe, expect, test } from 'vitest'

beforeAll(async () => {
  await initShellParser()
})

describe('classifyCommand: exact results', () => {
  test('a read-only simple command', () => {
    expect(classifyCommand('ls -la')).toEqual({
      readOnly: true,
      reason: 'ls only reads',
      commands: [
        {
          text: 'ls -la',
          canonical: 'ls -la',
          argv: ['ls', '-la'],
          program: 'ls',
          readOnly: true,
          reason: 'ls only reads',
          writes: [],
        },
      ],
      writes: [],
    })
  })

  test('a redirect writes its target; 2>&1 and 2>/dev/null do not', () => {
    expect(classifyCommand('git diff 2>/dev/null > patch.diff 2>&1')).toEqual({
      readOnly: false,
      reason: 'redirect writes to patch.diff',
      reasons: ['redirect writes to patch.diff'],
      commands: [
        {
          text: 'git diff 2>/dev/null > patch.diff 2>&1',
          canonical: 'git diff 2>/dev/null > patch.diff 2>&1',
          argv: ['git', 'diff'],
          program: 'git',
          subcommand: 'diff',
          readOnly: false,
          reason: 'redirect writes to patch.diff',
          writes: ['patch.diff'],
        },
      ],
      writes: ['patch.diff'],
    })
    expect(classifyCommand('git diff 2>/dev/null | head 2>&1').readOnly).toBe(true)
  })

  test('a compound command is read-only only when every part is', () => {
    const c = classifyCommand('git status && rm -rf build')
    expect(c.readOnly).toBe(false)
    expect(c.reason).toBe('rm changes files')
    expect(c.writes).toEqual(['build'])
    expect(c.commands.map((p) => [p.canonical, p.readOnly])).toEqual([
      ['git status', true],
      ['rm -rf build', false],
    ])
    expect('unsure' in c).toBe(false)
  })

  test('write flags are reported as writes', () => {
    expect(classifyCommand('sort -o out.txt in.txt').writes).toEqual(['out.txt'])
    expect(classifyCommand('cat a | tee b c').writes).toEqual(['b', 'c'])
    expect(classifyCommand('uniq in out').writes).toEqual(['out'])
    expect(classifyCommand('git diff --output=d.patch').writes).toEqual(['d.patch'])
  })

  test('syntax it does not analyse fails closed, says so and is marked unsure', () => {
    expect(classifyCommand('for ((i=0; i<3; i++)); do cat $i; done')).toEqual({
      readOnly: false,
      reason: "shell syntax 'c_style_for_statement' is not analysed",
      reasons: ["shell syntax 'c_style_for_statement' is not analysed"],
      // The commands inside are still recorded (deny rules and protected paths see them).
      commands: [
        {
          text: 'cat $i',
          canonical: 'cat $i',
          program: 'cat',
          readOnly: true,
          reason: 'cat only reads',
          writes: [],
        },
      ],
      writes: [],
      unsure: true,
    })
    expect(classifyCommand('ls "unterminated')).toMatchObject({ readOnly: false, unsure: true })
  })

  test('quote removal resolves static command names; expansions in command position do not', () => {
    expect(classifyCommand('"l"s -la').readOnly).toBe(true)
    expect(classifyCommand('\\ls').commands[0]?.argv).toEqual(['ls'])
    expect(classifyCommand('$CMD')).toMatchObject({
      readOnly: false,
      reason: 'the command name is only known at run time (variable $CMD)',
      unsure: true,
    })
  })

  test('substitutions are classified as part of the command (in evaluation order)', () => {
    const c = classifyCommand('cat $(git ls-files)')
    expect(c.readOnly).toBe(true)
    expect(c.commands.map((p) => p.canonical)).toEqual(['git ls-files', 'cat $(git ls-files)'])
    expect(c.commands[1]?.argv).toBeUndefined()
    expect(classifyCommand('cat $(rm x)').readOnly).toBe(false)
  })

  test('git: reading subcommands yes, writing ones and config-loading options no', () => {
    expect(classifyCommand('git log --oneline -n 5').commands[0]).toMatchObject({
      subcommand: 'log',
      readOnly: true,
      reason: 'git log only reads the repository',
    })
    expect(classifyCommand('git branch -D x').reason).toBe('git branch -D is not a listing option')
    expect(classifyCommand("git -c core.pager='sh -c id' log").reason).toBe(
      'git -c can load other configuration or another repository (which can run code)',
    )
  })

  test('wrappers are judged by the command they run', () => {
    expect(classifyCommand('env ls').readOnly).toBe(true)
    expect(classifyCommand('env rm x').reason).toBe('via env: rm changes files')
    expect(classifyCommand('git ls-files | xargs wc -l').readOnly).toBe(true)
    expect(classifyCommand('xargs sort -o out').readOnly).toBe(false)
  })

  test('results are frozen and cached results are the same object', () => {
    clearClassifyCache()
    const a = classifyCommand('git status')
    expect(Object.isFrozen(a)).toBe(true)
    expect(Object.isFrozen(a.commands[0])).toBe(true)
    expect(classifyCommand('git status')).toBe(a)
  })
})

describe('splitCompound', () => {
  test('returns the parts with canonical text (whitespace and continuations normalised)', () => {
    expect(splitCompound('git status  &&  npm   test \\\n  --silent; ls')).toEqual([
      {
        text: 'git status',
        canonical: 'git status',
        argv: ['git', 'status'],
        program: 'git',
        subcommand: 'status',
        readOnly: true,
      },
      {
        text: 'npm   test \\\n  --silent',
        canonical: 'npm test --silent',
        argv: ['npm', 'test', '--silent'],
        program: 'npm',
        subcommand: 'test',
        readOnly: false,
      },
      { text: 'ls', canonical: 'ls', argv: ['ls'], program: 'ls', readOnly: true },
    ])
  })

  test('env prefixes and redirects stay in the canonical text (a grant never covers them)', () => {
    expect(splitCompound('LD_PRELOAD=x git status > out')?.map((p) => p.canonical)).toEqual([
      'LD_PRELOAD=x git status > out',
    ])
  })

  test('refuses to split what it cannot represent part by part', () => {
    expect(splitCompound('for ((;;)); do ls; done')).toBeUndefined()
    expect(splitCompound('(ls) > out')).toBeUndefined()
    expect(splitCompound('f() { ls; }')).toBeUndefined()
    expect(splitCompound('')).toBeUndefined()
  })
})

describe('classifyCommand: where bash and the parser read the text differently', () => {
  test('a carriage return, vertical tab or form feed: not analysed, with what to write instead', () => {
    expect(classifyCommand('find . {-fprint,\rPWN}')).toEqual({
      readOnly: false,
      unsure: true,
      reason:
        "the command contains a carriage return (CR), which bash reads as part of a word and the parser as a blank (write $'\\r' if you mean the character)",
      reasons: [
        "the command contains a carriage return (CR), which bash reads as part of a word and the parser as a blank (write $'\\r' if you mean the character)",
      ],
      commands: [],
      writes: [],
    })
    expect(classifyCommand('ls\v-la').reason).toContain(
      "a vertical tab, which bash reads as part of a word and the parser as a blank (write $'\\v'",
    )
    expect(classifyCommand('ls\f').reason).toContain('a form feed, which bash reads')
    // A tab is a blank to both.
    expect(classifyCommand('ls\t-la').readOnly).toBe(true)
  })

  test('a here-string after a compound statement is analysed like any redirect', () => {
    for (const command of ['until true; do ls; done <<< `rm x`', 'if true; then ls; fi <<< $(rm x)']) {
      const c = classifyCommand(command)
      expect(c.readOnly).toBe(false)
      expect(c.reason).toBe('rm changes files')
    }
    expect(classifyCommand('while read -r l; do echo "$l"; done <<< "a b"').readOnly).toBe(true)
  })
})
