import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { initShellParser } from '@toolgate/policy'
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { bash, call, engineFor, makeSandbox, type Sandbox } from './permissions-helpers.js'

// The model is the attacker: it spells a protected path another way and hopes the glob misses it
// (issue 14 §4). Every spelling below names a file git reads as code or configuration, in a real
// repository (`git init`), and each must be denied in the most permissive setup: danger-full-access
// with rules that allow every edit and every bash call.

let sb: Sandbox
beforeAll(() => initShellParser())
beforeEach(() => {
  sb = makeSandbox()
  execFileSync('git', ['init', '-q', sb.root])
  mkdirSync(join(sb.root, 'src'))
})
afterEach(() => sb.cleanup())

const permissive = () =>
  engineFor(sb, {
    preset: 'danger-full-access',
    rules: [
      { action: 'allow', rule: 'edit(**)' },
      { action: 'allow', rule: 'bash' },
    ],
  })

describe('protected paths under other spellings', () => {
  // `git init` made a real repository, so this workspace's table starts with its configuration
  // file by absolute path (protectedPathsFor): that entry is the one that matches first.
  test.each<[string, string]>([
    ['.git/config', 'WORKSPACE/.git/config'],
    ['./.git/config', 'WORKSPACE/.git/config'],
    ['././.git/config', 'WORKSPACE/.git/config'],
    ['src/../.git/config', 'WORKSPACE/.git/config'],
    ['.git//config', 'WORKSPACE/.git/config'],
    ['.git/./config', 'WORKSPACE/.git/config'],
    ['.git/hooks/../config', 'WORKSPACE/.git/config'],
    ['.git/hooks/pre-commit', '**/.git/hooks/**'],
    ['.git/hooks', '**/.git/hooks/**'],
    ['.git/hooks/', '**/.git/hooks/**'],
    ['src/../.git/hooks/x/../post-merge', '**/.git/hooks/**'],
    ['WORKSPACE/.git/config', 'WORKSPACE/.git/config'],
    ['.git/modules/m/config', '**/.git/**/{config,config.worktree,commondir,gitdir}'],
  ])('write %j is denied (%s)', (written, pattern) => {
    const path = written.replace('WORKSPACE', sb.root)
    expect(permissive().decide(call('write', { path, content: '' }))).toMatchObject({
      kind: 'deny',
      step: 'protected-path',
      protectedPattern: pattern.replace('WORKSPACE', sb.root),
    })
  })

  // Decision: protected patterns fold case. On Linux `.GIT` is another directory (shown below with
  // real files), but on a case-insensitive file system (macOS by default, ext4 `casefold`
  // directories, vfat mounts) it is the same one, and the engine cannot tell which it is on. Folding
  // only ever asks or denies more.
  test.each<[string, string]>([
    ['.GIT/config', 'WORKSPACE/.git/config'],
    ['.Git/Hooks/pre-commit', '**/.git/hooks/**'],
    ['.TOOLGATE/settings.json', '**/.toolgate/**'],
    ['sub/.BASHRC', '**/{.bashrc,'],
  ])('write %j is denied too: protected patterns fold case (%s)', (path, pattern) => {
    const d = permissive().decide(call('write', { path, content: '' }))
    expect(d).toMatchObject({ kind: 'deny', step: 'protected-path' })
    expect(d.kind === 'deny' && d.protectedPattern?.startsWith(pattern.replace('WORKSPACE', sb.root))).toBe(
      true,
    )
  })

  test('on this Linux file system .GIT really is another directory: git does not read it', () => {
    mkdirSync(join(sb.root, '.GIT'))
    execFileSync('sh', ['-c', 'printf "[core]\\n\\tfsmonitor = evil\\n" > .GIT/config'], { cwd: sb.root })
    expect(readFileSync(join(sb.root, '.git', 'config'), 'utf8')).not.toContain('evil')
    const got = spawnSync('git', ['config', '--get', 'core.fsmonitor'], { cwd: sb.root, encoding: 'utf8' })
    expect([got.status, got.stdout]).toEqual([1, '']) // 1: the key is not set
  }, 20_000)

  test.each<string>([
    'echo x > ./.git/config',
    'echo x > src/../.git/config',
    'cp /dev/null .git//hooks/pre-commit',
    'echo x >> .GIT/config',
    'cd src && echo x > ../.git/hooks/post-checkout',
  ])('bash %j is denied', (command) => {
    expect(permissive().decide(bash(command))).toMatchObject({ kind: 'deny', step: 'protected-path' })
  })

  test('the permissive setup does allow an ordinary write (the denials above are about the path)', () => {
    expect(permissive().decide(call('write', { path: 'src/a.ts', content: '' }))).toMatchObject({
      kind: 'allow',
    })
    expect(existsSync(join(sb.root, '.git', 'config'))).toBe(true)
  })
})
