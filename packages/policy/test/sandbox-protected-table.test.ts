import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AUTO_RUN_PATHS,
  CREDENTIAL_STORES,
  initShellParser,
  PROTECTED_PATHS,
  planProfile,
  protectedPathsFor,
} from '@toolgate/policy'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { bash, call, engineFor, makeSandbox, type Sandbox } from './permissions-helpers.js'
import { until } from './sandbox-helpers.js'

// One list of credential stores and auto-run files serves the sandbox's mounts and the permission
// engine's protected table (issue 11 §3, §6): these tests hold the two together.

beforeAll(async () => {
  await initShellParser()
})

let sb: Sandbox
afterEach(() => sb?.cleanup())

describe('credential stores: one list for the table and the sandbox', () => {
  test('every store has a deny-any entry in PROTECTED_PATHS, with its reason', () => {
    for (const store of CREDENTIAL_STORES) {
      const pattern = `~/${store.path}${store.kind === 'dir' ? '/**' : ''}`
      expect(PROTECTED_PATHS).toContainEqual({ pattern, access: 'any', action: 'deny', reason: store.reason })
    }
  })

  test('the engine refuses to read or write any of them; the sandbox hides every one that exists', () => {
    // Not under /tmp: the sandbox's /tmp is private, so a home there is not visible to hide.
    sb = makeSandbox(existsSync('/var/tmp') ? '/var/tmp' : tmpdir())
    for (const store of CREDENTIAL_STORES) {
      const file = store.kind === 'dir' ? join(store.path, 'secret') : store.path
      sb.write(join('home', file), 'secret')
      const engine = engineFor(sb)
      expect(engine.decide(call('read', { path: `~/${file}` }))).toMatchObject({
        kind: 'deny',
        step: 'protected-path',
      })
      expect(engine.decide(call('write', { path: `~/${file}`, content: '' }))).toMatchObject({ kind: 'deny' })
    }
    const plan = planProfile({ mode: 'read-only', root: sb.root, home: sb.home })
    for (const store of CREDENTIAL_STORES) {
      const target = join(sb.home, store.path)
      expect(plan.mounts).toContainEqual(
        store.kind === 'dir'
          ? { kind: 'empty-dir', target }
          : expect.objectContaining({ kind: 'empty-file', target }),
      )
    }
  })

  test('a configured store is hidden by the sandbox and protected by the table', () => {
    sb = makeSandbox()
    sb.write('work/vault/key.pem', 'k')
    const table = protectedPathsFor(sb.root, { home: sb.home, credentialStores: ['vault'] })
    const engine = engineFor(sb, { protectedPaths: table })
    expect(engine.decide(call('read', { path: 'vault/key.pem' }))).toMatchObject({
      kind: 'deny',
      reason: expect.stringContaining('a credential store (configured)'),
    })
    const plan = planProfile({
      mode: 'workspace-write',
      root: sb.root,
      home: sb.home,
      credentialStores: ['vault'],
    })
    expect(plan.mounts).toContainEqual({ kind: 'empty-dir', target: join(sb.root, 'vault') })
    for (const stage of plan.stages) stage.sync()
  })
})

describe("the host's secrets outside the home directory", () => {
  // bash sees its own /proc, an empty /run and empty files over these; the file tools run in the
  // agent's own process, so the table must refuse them (found by the red team: in
  // danger-full-access `read /proc/self/environ` returned the CLI's API key).
  test("another process's environment really holds its key, and no preset lets a file tool read it", async () => {
    sb = makeSandbox()
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      env: { PATH: process.env.PATH, FAKE_PROVIDER_API_KEY: 'sk-red-team-0123456789' },
      stdio: 'ignore',
    })
    try {
      await until(
        () => readFileSync(`/proc/${child.pid}/environ`, 'latin1').includes('sk-red-team'),
        'the child process to start',
      )
      const paths = [
        `/proc/${child.pid}/environ`,
        `/proc/${child.pid}/task/${child.pid}/environ`,
        '/proc/self/environ',
        `/proc/${process.pid}/mem`,
        '/etc/shadow',
        '/etc/gshadow',
        '/etc/ssh/ssh_host_ed25519_key',
        '/run/secrets/db_password',
        '/var/run/secrets/kubernetes.io/serviceaccount/token',
      ]
      for (const preset of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
        const engine = engineFor(sb, { preset })
        for (const path of paths) {
          for (const [tool, args] of [
            ['read', { path }],
            ['write', { path, content: '' }],
          ] as const) {
            expect(engine.decide(call(tool, args)), `${preset} ${tool} ${path}`).toMatchObject({
              kind: 'deny',
              step: 'protected-path',
            })
          }
        }
        // bash names them too (unconfined bash would read the agent's environment).
        expect(engine.decide(bash(`cat /proc/${process.pid}/environ`))).toMatchObject({ kind: 'deny' })
      }
    } finally {
      child.kill('SIGKILL')
    }
  })
})

describe('hooks elsewhere and auto-run files', () => {
  test('the table denies writes to every auto-run file, anywhere', () => {
    sb = makeSandbox()
    const engine = engineFor(sb)
    for (const auto of AUTO_RUN_PATHS) {
      const path = auto.kind === 'dir' ? join('pkg', auto.path, 'pre-commit') : join('pkg', auto.path)
      expect(engine.decide(call('write', { path, content: '' }))).toMatchObject({
        kind: 'deny',
        protectedPattern: `**/${auto.path}${auto.kind === 'dir' ? '/**' : ''}`,
      })
    }
  })

  test("the repository's core.hooksPath and its include files are protected by default", () => {
    sb = makeSandbox()
    execFileSync('git', ['init', '-q', sb.root])
    execFileSync('git', ['-C', sb.root, 'config', 'core.hooksPath', 'tools/hooks'])
    execFileSync('git', ['-C', sb.root, 'config', 'include.path', '../.gitconfig.shared'])
    const engine = engineFor(sb)
    expect(engine.decide(call('write', { path: 'tools/hooks/pre-commit', content: '' }))).toMatchObject({
      kind: 'deny',
      reason: expect.stringContaining('git runs the hooks in this directory (core.hooksPath)'),
    })
    expect(engine.decide(call('write', { path: '.gitconfig.shared', content: '' }))).toMatchObject({
      kind: 'deny',
      reason: expect.stringContaining('git reads this file as configuration'),
    })
  })

  test('git files that redirect configuration are denied in gitdirs of every form', () => {
    sb = makeSandbox()
    const engine = engineFor(sb)
    for (const path of [
      '.git/commondir',
      '.git/config.worktree',
      '.git/modules/sub/config',
      '.git/modules/sub/hooks/post-checkout',
      '.git/worktrees/w/commondir',
      '.git/worktrees/w/gitdir',
    ]) {
      expect(engine.decide(call('write', { path, content: '' }))).toMatchObject({ kind: 'deny' })
    }
  })

  test('~/.gitconfig and ~/.config/git are write-protected', () => {
    sb = makeSandbox()
    mkdirSync(join(sb.home, '.config', 'git'), { recursive: true })
    writeFileSync(join(sb.home, '.gitconfig'), '')
    const engine = engineFor(sb)
    expect(engine.decide(call('write', { path: '~/.gitconfig', content: '' }))).toMatchObject({
      kind: 'deny',
    })
    expect(engine.decide(call('write', { path: '~/.config/git/config', content: '' }))).toMatchObject({
      kind: 'deny',
    })
  })
})
