import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { initShellParser, PermissionSettingsError } from '@toolgate/policy'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { bash, call, engineFor, makeSandbox, type Sandbox } from './permissions-helpers.js'

let sb: Sandbox
beforeAll(() => initShellParser())
beforeEach(() => {
  sb = makeSandbox()
})
afterEach(() => sb.cleanup())

function loadError(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(PermissionSettingsError)
    return (error as Error).message
  }
  throw new Error('expected PermissionSettingsError')
}

describe('settings files', () => {
  test('project and user files both contribute rules, with their file as provenance', () => {
    sb.write('work/.toolgate/settings.json', JSON.stringify({ permissions: { allow: ['bash(make:*)'] } }))
    const user = sb.write(
      'home/.toolgate/settings.json',
      JSON.stringify({ permissions: { deny: ['webfetch'] } }),
    )
    const engine = engineFor(sb, { userSettingsPath: user })
    expect(engine.explain(bash('make all')).summary).toBe(
      `allow by rule "allow bash(make:*)" from ${sb.root}/.toolgate/settings.json: every simple command is allowed (first by the rule "allow bash(make:*)" (${sb.root}/.toolgate/settings.json))`,
    )
    expect(engine.explain(call('webfetch', { url: 'https://x.example' })).summary).toBe(
      `deny by rule "deny webfetch" from ${user}: denied by the rule "deny webfetch" (${user})`,
    )
  })

  test('model text names a user-file rule as "the user settings", never its host path (issue 17)', () => {
    const user = sb.write(
      'home/.toolgate/settings.json',
      JSON.stringify({ permissions: { deny: ['webfetch'], ask: ['bash(make:*)'] } }),
    )
    const engine = engineFor(sb, { userSettingsPath: user, approvalPolicy: 'never' })
    const d = engine.decide(call('webfetch', { url: 'https://x.example' }))
    expect(d.kind === 'deny' && d.reason).toBe(
      'Permission denied: the rule "deny webfetch" (the user settings) forbids this webfetch call. It did not run. Do not retry it; use a different approach or ask the user.',
    )
    const a = engine.decide(bash('make all'))
    expect(a.kind === 'deny' && a.reason).toBe(
      `This bash call needs approval (the rule "ask bash(make:*)" (the user settings) requires approval for "make all"), but no one can approve it in this session (approval policy 'never'), so it did not run. The rule "ask bash(make:*)" (the user settings) requires a person's approval every time; use a different approach, or ask the user to run it in an interactive session.`,
    )
  })

  test('the user file defaults to ~/.toolgate/settings.json under the injected home', () => {
    sb.write('home/.toolgate/settings.json', JSON.stringify({ permissions: { deny: ['bash(make:*)'] } }))
    const engine = engineFor(sb, { userSettingsPath: undefined })
    expect(engine.userSettingsPath).toBe(join(sb.home, '.toolgate', 'settings.json'))
    expect(engine.decide(bash('make'))).toMatchObject({ kind: 'deny', step: 'deny-rule' })
  })

  test('missing files are no rules', () => {
    expect(engineFor(sb).rules.map((r) => `${r.source}: ${r.action} ${r.text}`)).toEqual([
      'defaults: ask bash(git push:*)',
      'defaults: ask bash(npm publish:*)',
    ])
  })

  test('a broken file fails closed, naming the file and every bad field', () => {
    const file = sb.write(
      'work/.toolgate/settings.json',
      JSON.stringify({
        premissions: {},
        permissions: {
          allow: ['bash(git status)', 'Bash(ls)', 42, 'bash(ls && rm -rf /)'],
          deny: 'bash',
          maybe: [],
        },
      }),
    )
    expect(loadError(() => engineFor(sb))).toBe(
      [
        'toolgate could not load its permission settings, so it will not run (fail closed):',
        `- ${file}: unknown field 'premissions' (expected 'permissions')`,
        `- ${file}: unknown field 'permissions.maybe' (expected 'allow', 'ask' or 'deny')`,
        `- ${file}: 'permissions.allow[1]' "Bash(ls)": tool names are lowercase: write 'bash(ls)'`,
        `- ${file}: 'permissions.allow[2]' must be a string like "bash(git status)", got number 42`,
        `- ${file}: 'permissions.allow[3]' "bash(ls && rm -rf /)": '&' is not allowed in a bash pattern: a rule names one simple command (no operators, redirects or substitutions)`,
        `- ${file}: 'permissions.deny' must be an array of rule strings`,
        'Fix these problems and start again.',
      ].join('\n'),
    )
  })

  test('invalid JSON, a non-object and a directory are reported, not skipped', () => {
    const file = sb.write('work/.toolgate/settings.json', '{ "permissions": { "allow": [ }')
    expect(loadError(() => engineFor(sb))).toMatch(
      new RegExp(`^toolgate could not load.*\\n- ${file}: is not valid JSON \\(`),
    )
    sb.write('work/.toolgate/settings.json', '[]')
    expect(loadError(() => engineFor(sb))).toContain(`- ${file}: the top level must be a JSON object\n`)
    const dir = join(sb.home, 'settings-dir')
    mkdirSync(dir)
    expect(loadError(() => engineFor(sb, { userSettingsPath: dir }))).toContain(
      `- ${dir}: is not a regular file\n`,
    )
  })

  test('rules given in code are validated the same way', () => {
    expect(loadError(() => engineFor(sb, { rules: [{ action: 'allow', rule: 'read(../x)' }] }))).toContain(
      `- options: 'rules[0]' "read(../x)": path patterns may not contain '..'; write an absolute path instead\n`,
    )
  })
})

describe('system prompt text (seed 003 §8.8: only the configured, stable part)', () => {
  test('deny rules and disabled tools, sorted and deduplicated; empty when none', () => {
    sb.write(
      'work/.toolgate/settings.json',
      JSON.stringify({
        permissions: { deny: ['webfetch', 'bash(rm:*)', 'read(secrets/**)'], allow: ['bash(ls)'] },
      }),
    )
    const text = engineFor(sb, {
      rules: [
        { action: 'deny', rule: 'mcp__github__*' },
        { action: 'deny', rule: 'webfetch' },
      ],
      protectedPaths: [],
    }).promptText()
    expect(text).toBe(
      [
        'Permission rules for this session (calls that break them are refused; do not attempt them):',
        '- Disabled tools: mcp__github__*, webfetch',
        '- Denied: bash(rm:*), read(secrets/**)',
      ].join('\n'),
    )
    expect(Math.ceil(text.length / 4)).toBeLessThan(50)
    expect(engineFor(sb, { projectSettingsPath: null, protectedPaths: [] }).promptText()).toBe('')
  })

  test('the protected paths in force (issue 17): grouped, brief, no host path outside the workspace', () => {
    const text = engineFor(sb, { projectSettingsPath: null }).promptText()
    expect(text).toBe(
      [
        'Protected paths (enforced in every mode, whatever the rules say; a call that touches one is refused):',
        '- Never read or written (secrets): ~/.ssh/**, ~/.aws/**, ~/.gnupg/**, ~/.git-credentials, ~/.config/git/credentials, ~/.netrc, ~/.config/gh/**, ~/.config/hub and 68 more',
        '- Never written (they run as code or decide permissions): **/.git/hooks/**, **/.git/config, **/.git/**/hooks/**, **/.git/**/{config,config.worktree,commondir,gitdir}, **/.husky/**, **/.pre-commit-config.yaml, **/.envrc, **/.vscode/tasks.json and 4 more',
        "- Only with a person's approval, never by a rule: writing **/.git/**, reading **/.env*",
        // HOST_SECRET_PATHS (/proc/**/{environ,mem}, /etc/shadow, ...): counted, not shown.
        '- 6 more protected locations outside the workspace',
      ].join('\n'),
    )
    const custom = engineFor(sb, {
      projectSettingsPath: null,
      protectedPaths: [
        { pattern: `${sb.root}/deploy/**`, access: 'write', action: 'deny', reason: 'r' },
        { pattern: `${sb.home}/.secrets/**`, access: 'any', action: 'deny', reason: 'r' },
        { pattern: '/srv/keys/**', access: 'any', action: 'deny', reason: 'r' },
        { pattern: '**/.env.example', access: 'read', action: 'exempt', reason: 'r' },
      ],
    }).promptText()
    expect(custom).toBe(
      [
        'Protected paths (enforced in every mode, whatever the rules say; a call that touches one is refused):',
        '- Never read or written (secrets): ~/.secrets/**',
        '- Never written (they run as code or decide permissions): deploy/**',
        '- 1 more protected location outside the workspace',
      ].join('\n'),
    )
    expect(custom).not.toContain(sb.root)
  })
})

describe('engine options', () => {
  test('a preset named like an Object.prototype member is unknown', () => {
    for (const preset of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(loadError(() => engineFor(sb, { preset: preset as never }))).toBe(
        `toolgate could not load its permission settings, so it will not run (fail closed):\n- options: unknown preset ${JSON.stringify(preset)}\nFix this problem and start again.`,
      )
    }
  })
})
