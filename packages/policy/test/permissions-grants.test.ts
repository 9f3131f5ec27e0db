import { initShellParser } from '@toolgate/policy'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { bash, call, engineFor, makeSandbox, type Sandbox } from './permissions-helpers.js'

let sb: Sandbox
beforeAll(() => initShellParser())
beforeEach(() => {
  sb = makeSandbox()
})
afterEach(() => sb.cleanup())

describe('allow for this session', () => {
  test('is remembered per exact simple command and never widens', () => {
    const engine = engineFor(sb)
    expect(engine.decide(bash('npm install', 'c1'))).toMatchObject({ kind: 'ask', offerSessionGrant: true })
    expect(engine.describeAsk('c1')).toEqual({
      callId: 'c1',
      toolName: 'bash',
      subject: 'npm install',
      displayReason:
        'The command is not read-only (npm install can run package scripts or change files) and no sandbox confines it.',
      offerSessionGrant: true,
      looping: false,
      grantKeys: ['bash:npm install'],
      decidedBy: { step: 'mode-default' },
    })
    expect(engine.grantSession('c1')).toEqual({ granted: true, keys: ['bash:npm install'] })
    expect(engine.decide(bash('npm install'))).toMatchObject({ kind: 'allow', step: 'session-grant' })
    expect(engine.decide(bash('npm  install'))).toMatchObject({ kind: 'allow', step: 'session-grant' })
    expect(engine.decide(bash('npm install left-pad'))).toMatchObject({ kind: 'ask' })
    expect(engine.decide(bash('npm install && npm run build'))).toMatchObject({ kind: 'ask' })
  })

  test('is remembered per subcommand of a compound command', () => {
    const engine = engineFor(sb)
    engine.decide(bash('npm install && npm run build', 'c1'))
    expect(engine.grantSession('c1')).toEqual({
      granted: true,
      keys: ['bash:npm install', 'bash:npm run build'],
    })
    expect(engine.decide(bash('npm run build'))).toMatchObject({ kind: 'allow', step: 'session-grant' })
    expect(engine.decide(bash('npm run build && git status'))).toMatchObject({
      kind: 'allow',
      step: 'session-grant',
    })
    expect(engine.decide(bash('npm run build && npm publish'))).toMatchObject({
      kind: 'ask',
      step: 'ask-rule',
    })
    expect(engine.grants()).toEqual(['bash:npm install', 'bash:npm run build'])
  })

  test('is refused for destructive commands, ask rules and protected paths', () => {
    const engine = engineFor(sb, { rules: [{ action: 'ask', rule: 'bash(make deploy)' }] })
    engine.decide(bash('rm -rf dist', 'd1'))
    expect(engine.grantSession('d1')).toEqual({
      granted: false,
      reason:
        'this call cannot be allowed for the whole session ("rm -rf dist" is destructive (rm is destructive)); allow it once instead',
    })
    engine.decide(bash('git push --force', 'd2'))
    expect(engine.describeAsk('d2')).toMatchObject({ offerSessionGrant: false })
    engine.decide(bash('make deploy', 'd3'))
    expect(engine.grantSession('d3')).toMatchObject({ granted: false })
    engine.decide(call('read', { path: '.env' }, 'd4'))
    expect(engine.grantSession('d4')).toMatchObject({ granted: false })
    expect(engine.grantSession('nope')).toEqual({
      granted: false,
      reason: 'no approval is pending for call nope',
    })
    expect(engine.grants()).toEqual([])
  })

  test('non-bash tools are granted for their exact canonical arguments', () => {
    const engine = engineFor(sb)
    engine.decide(call('read', { path: '/etc/hosts' }, 'r1'))
    expect(engine.grantSession('r1')).toEqual({ granted: true, keys: ['read:{"path":"/etc/hosts"}'] })
    expect(engine.decide(call('read', { path: '/etc/hosts' }))).toMatchObject({
      kind: 'allow',
      step: 'session-grant',
    })
    expect(engine.decide(call('read', { path: '/etc/passwd' }))).toMatchObject({ kind: 'ask' })
  })

  test('a settled call can no longer be granted', () => {
    const engine = engineFor(sb)
    engine.decide(bash('npm ci', 'c1'))
    engine.settle('c1')
    expect(engine.describeAsk('c1')).toBeUndefined()
    expect(engine.grantSession('c1')).toMatchObject({ granted: false })
  })
})

describe('denial tracking', () => {
  test('the same call refused 3 times becomes a confirmation that tells the person the model is looping', () => {
    const engine = engineFor(sb)
    const c = bash('npm install')
    for (let i = 1; i <= 3; i++) {
      expect(engine.decide(c)).toMatchObject({ kind: 'ask', looping: false })
      expect(engine.recordRefusal(c)).toBe(i)
    }
    expect(engine.decide({ ...c, callId: 'c4' })).toMatchObject({
      kind: 'ask',
      looping: true,
      offerSessionGrant: false,
      displayReason:
        'The model has requested this exact call 3 times and it was refused each time; it may be looping. The command is not read-only (npm install can run package scripts or change files) and no sandbox confines it.',
    })
    // another call is counted apart
    expect(engine.decide(bash('npm ci'))).toMatchObject({ looping: false })
  })

  test('a refused boundary write turns into a confirmation after 3 refusals; rule and protected denials never do', () => {
    const engine = engineFor(sb, { rules: [{ action: 'deny', rule: 'bash(make:*)' }] })
    const outside = call('write', { path: `${sb.base}/x.txt`, content: 'x' })
    const denied = bash('make')
    const hook = call('write', { path: '.git/hooks/pre-commit', content: '' })
    for (let i = 0; i < 3; i++) for (const c of [outside, denied, hook]) engine.recordRefusal(c)
    expect(engine.decide(outside)).toMatchObject({
      kind: 'ask',
      step: 'workspace-boundary',
      looping: true,
      offerSessionGrant: false,
    })
    expect(engine.decide(denied)).toMatchObject({ kind: 'deny', step: 'deny-rule' })
    expect(engine.decide(hook)).toMatchObject({ kind: 'deny', step: 'protected-path' })
  })
})

describe("approval policy 'never' (headless)", () => {
  test('an ask becomes a denial that says the session is non-interactive and which rule to add where', () => {
    const engine = engineFor(sb, {
      approvalPolicy: 'never',
      userSettingsPath: `${sb.home}/.toolgate/settings.json`,
    })
    const d = engine.decide(bash('npm install && npm run build'))
    expect(d).toMatchObject({ kind: 'deny', step: 'mode-default' })
    expect(d.kind === 'deny' && d.reason).toBe(
      `This bash call needs approval (the command is not read-only (npm install can run package scripts or change files; npm run can run package scripts or change files) and no sandbox confines it), but no one can approve it in this session (approval policy 'never'), so it did not run. To allow it, the user can add "bash(npm install)" and "bash(npm run build)" to "permissions.allow" in .toolgate/settings.json; until then, use a different approach.`,
    )
  })

  test('a destructive command says only a rule can allow it, and that rule does allow it', () => {
    const engine = engineFor(sb, { approvalPolicy: 'never' })
    const d = engine.decide(bash('rm -rf build'))
    expect(d.kind === 'deny' && d.reason).toBe(
      `This bash call needs approval ("rm -rf build" is destructive (rm is destructive)), but no one can approve it in this session (approval policy 'never'), so it did not run. To allow it (it is destructive, so only a rule can), the user can add "bash(rm -rf build)" to "permissions.allow" in .toolgate/settings.json; until then, use a different approach.`,
    )
    const withRule = engineFor(sb, {
      approvalPolicy: 'never',
      rules: [{ action: 'allow', rule: 'bash(rm -rf build)' }],
    })
    expect(withRule.decide(bash('rm -rf build')).kind).toBe('allow')
  })

  test('a settings file outside the workspace is not named: no host path reaches the model', () => {
    const engine = engineFor(sb, {
      approvalPolicy: 'never',
      projectSettingsPath: `${sb.home}/elsewhere/settings.json`,
    })
    const d = engine.decide(bash('make'))
    expect(d.kind === 'deny' && d.reason).toBe(
      `This bash call needs approval (the command is not read-only (make: runs the recipes of a Makefile) and no sandbox confines it), but no one can approve it in this session (approval policy 'never'), so it did not run. To allow it, the user can add "bash(make)" to "permissions.allow" in their toolgate settings; until then, use a different approach.`,
    )
  })

  test('path and unknown-tool suggestions', () => {
    const engine = engineFor(sb, { approvalPolicy: 'never', preset: 'read-only' })
    const w = engine.decide(call('write', { path: 'docs/a.md', content: '' }))
    expect(w.kind === 'deny' && w.reason).toContain(
      'the user can add "edit(docs/a.md)" to "permissions.allow"',
    )
    const u = engine.decide(call('mcp__db__query', { sql: 'select 1' }))
    expect(u.kind === 'deny' && u.reason).toContain(
      'the user can add "mcp__db__query" to "permissions.allow"',
    )
  })

  test('an ask rule or a protected path cannot be fixed by an allow rule, and the message says so', () => {
    const engine = engineFor(sb, { approvalPolicy: 'never', preset: 'danger-full-access' })
    const push = engine.decide(bash('git push origin main'))
    expect(push.kind === 'deny' && push.reason).toBe(
      `This bash call needs approval (the rule "ask bash(git push:*)" (toolgate's default rules) requires approval for "git push origin main"), but no one can approve it in this session (approval policy 'never'), so it did not run. The rule "ask bash(git push:*)" (toolgate's default rules) requires a person's approval every time; use a different approach, or ask the user to run it in an interactive session.`,
    )
    const env = engine.decide(call('read', { path: '.env' }))
    expect(env.kind === 'deny' && env.reason).toBe(
      `This read call needs approval (the path .env is protected (environment files usually hold secrets (API keys, passwords))), but no one can approve it in this session (approval policy 'never'), so it did not run. No allow rule can cover it; use a different approach, or ask the user to run it in an interactive session.`,
    )
  })

  test('a looping headless call says to stop retrying', () => {
    const engine = engineFor(sb, { approvalPolicy: 'never' })
    const c = bash('npm install')
    for (let i = 0; i < 3; i++) engine.recordRefusal(c)
    const d = engine.decide(c)
    expect(d.kind === 'deny' && d.reason).toMatch(
      / This exact call has been refused 3 or more times in this session; stop retrying it\.$/,
    )
  })
})
