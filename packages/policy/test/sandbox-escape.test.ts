import { execFile, execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createNetServer, type Server as NetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { registerSecretEnv, type SandboxPolicy } from '@toolgate/policy'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import {
  envWithHome,
  type Fixture,
  fixture,
  list,
  read,
  requireSandbox,
  run,
  until,
  usable,
} from './sandbox-helpers.js'

// The escape suite of issue 11: each test is an attack a model could try through the bash tool,
// run for real (bubblewrap, bash, git), and each checks the HOST afterwards: the file that must not
// exist, the hook that must not run when the host's own git runs outside the sandbox. CI runs it
// as root and as an unprivileged user (.ci/run).

requireSandbox('the sandbox escape suite')

const fixtures: Fixture[] = []
const make = (prefix: string, options: { repo?: boolean } = {}) => {
  const f = fixture(prefix, options)
  fixtures.push(f)
  if (options.repo !== false) {
    f.git(['config', 'user.name', 'model'])
    f.git(['config', 'user.email', 'model@example.com'])
  }
  return f
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup()
})

const ws = (f: Fixture, extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  mode: 'workspace-write',
  root: f.ws,
  home: f.home,
  ...extra,
})
const inSandbox = (f: Fixture, command: string, extra: Partial<SandboxPolicy> = {}) =>
  run(command, ws(f, extra), { env: envWithHome(f.home) })

/** A command that, run by git as a hook or fsmonitor on the host, creates the fixture's marker. */
const payload = (f: Fixture) => `touch ${f.pwned}; false`

describe.skipIf(!usable)("1. .git in every form stays the host's", () => {
  test('renaming .git away and putting a copy with an fsmonitor in its place fails; the host git runs nothing', async () => {
    const f = make('rename')
    const r = await inSandbox(
      f,
      `mv .gi? .old; cp -a .old "$(printf .gi)t" 2>/dev/null; git config core.fsmonitor '${payload(f)}'; echo done`,
    )
    expect(r.stdout).toBe('done\n')
    expect(r.stderr).toContain("mv: cannot move '.git' to '.old': Device or resource busy")
    expect(r.stderr).toMatch(/could not lock config file|Read-only file system|Device or resource busy/)
    expect(existsSync(join(f.ws, '.old'))).toBe(false)
    expect(read(join(f.ws, '.git', 'config'))).not.toContain('fsmonitor')
    expect(f.git(['status', '--short']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('removing .git, its hooks or its config fails; removing its state files inside stays inside', async () => {
    const f = make('remove')
    const r = await inSandbox(
      f,
      'rm -rf .git 2>/dev/null; echo "#!/bin/sh" > .git/hooks/post-checkout; echo "[core] fsmonitor = x" >> .git/config; git config core.hooksPath hooks; ls .git',
    )
    // Inside, the staged state files and reflogs are gone; config, hooks and the bound directories
    // are not. (The contents of objects/ and refs/ are writable, as git needs: rm empties them like
    // any workspace file; the permission engine asks before `rm`, a destructive command.)
    expect(r.stdout).toBe('branches\nconfig\nhooks\ninfo\nobjects\nrefs\n')
    expect(r.notes).toEqual([
      'git: the removal of .git/COMMIT_EDITMSG, .git/HEAD, .git/description, .git/index, .git/logs/HEAD was not kept (git itself never removes them)',
    ])
    expect(existsSync(join(f.ws, '.git', 'hooks', 'post-checkout'))).toBe(false)
    expect(read(join(f.ws, '.git', 'config'))).not.toMatch(/fsmonitor|hooksPath/)
    expect(read(join(f.ws, '.git', 'HEAD'))).toBe('ref: refs/heads/main\n')
    expect(f.git(['ls-files']).out).toBe('a.txt\n') // the index is the host's
  })

  test('.git/commondir pointing at a configuration the command wrote is not kept; the host git runs nothing', async () => {
    const f = make('commondir')
    const r = await inSandbox(
      f,
      [
        'mkdir -p evil/objects evil/refs',
        `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "${payload(f)}"\\n' > evil/config`,
        'echo ../evil > .git/commondir',
        'cat .git/commondir',
      ].join(' && '),
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('../evil\n') // it existed inside, for that command only
    expect(r.notes).toEqual([
      "git: .git/commondir was created by the command but not kept: in the sandbox only git's own state files and reflogs in .git are written back, as regular files (configuration, hooks, links and pointers to other directories stay as they were; an operation such as a rebase must finish within one command)",
    ])
    expect(existsSync(join(f.ws, '.git', 'commondir'))).toBe(false)
    expect(f.git(['status', '--short']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a reflog replaced by a link to a hook: the host checkout appends nothing to the hook', async () => {
    const f = make('reflog')
    const hook = join(f.ws, '.git', 'hooks', 'post-checkout')
    writeFileSync(hook, `#!/bin/sh\ntouch ${join(f.dir, 'hook-ran')}\n`)
    chmodSync(hook, 0o755)
    // A branch name is free text for the shell: the reflog line "checkout: moving from <name> ..."
    // appended to the hook would run it.
    const branch = `x$(touch\${IFS}${f.pwned})`
    const r = await inSandbox(
      f,
      [
        `git branch '${branch}'`,
        'rm .git/logs/HEAD && ln -s ../hooks/post-checkout .git/logs/HEAD',
        'mkdir -p .git/refs/heads/sub && ln -s ../../../hooks/post-checkout .git/refs/heads/sub/link',
      ].join(' && '),
    )
    expect(r.code).toBe(0)
    expect(r.notes).toEqual([
      "git: .git/logs/HEAD was created by the command but not kept: in the sandbox only git's own state files and reflogs in .git are written back, as regular files (configuration, hooks, links and pointers to other directories stay as they were; an operation such as a rebase must finish within one command)",
      'git: the removal of .git/logs/HEAD was not kept (git itself never removes it)',
      'git: removed a link the command made under .git/refs (.git/refs/heads/sub/link): git never makes them',
    ])
    expect(lstatSync(join(f.ws, '.git', 'logs', 'HEAD')).isFile()).toBe(true)
    expect(f.git(['checkout', '-q', branch]).status).toBe(0)
    expect(f.git(['checkout', '-q', 'main']).status).toBe(0)
    expect(existsSync(join(f.dir, 'hook-ran'))).toBe(true) // the hook runs: the check is real
    expect(read(hook)).toBe(`#!/bin/sh\ntouch ${join(f.dir, 'hook-ran')}\n`)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('git add, commit and checkout -b work inside and reach the host repository', async () => {
    const f = make('gitwork')
    const r = await inSandbox(
      f,
      'echo b >> a.txt && echo new > b.txt && git add a.txt b.txt && git commit -qm second && git checkout -qb feature && git branch --show-current',
    )
    expect(r).toMatchObject({ code: 0, stdout: 'feature\n', notes: [] })
    expect(f.git(['log', '--format=%s']).out).toBe('second\nfirst\n')
    expect(f.git(['branch', '--show-current']).out).toBe('feature\n')
    expect(f.git(['status', '--porcelain']).out).toBe('')
    // The reflog came back too.
    expect(f.git(['reflog', '--format=%gs']).out).toBe(
      'checkout: moving from main to feature\ncommit: second\ncommit (initial): first\n',
    )
  })

  test('the index is not overwritten when the host changed it while the command ran', async () => {
    const f = make('race')
    writeFileSync(join(f.ws, 'host.txt'), 'host\n')
    // The command stages a file, then waits for the test to change the host index (a file gate).
    const pending = inSandbox(
      f,
      'echo c >> a.txt && git add a.txt && touch ready && while [ ! -e go ]; do sleep 0.01; done',
    )
    await until(() => existsSync(join(f.ws, 'ready')), 'the command to stage its change')
    expect(f.git(['add', 'host.txt']).status).toBe(0)
    writeFileSync(join(f.ws, 'go'), '')
    const r = await pending
    expect(r.notes).toEqual([
      'git: .git/index was not kept: it changed outside the sandbox while the command ran; run the command again',
    ])
    expect(f.git(['diff', '--cached', '--name-only']).out).toBe('host.txt\n')
  })

  test('two commands refreshing the same index at once: both kept, no note', async () => {
    const f = make('refresh')
    writeFileSync(join(f.ws, 'a.txt'), 'a\n') // same content, new stat data: status rewrites the index
    const command = (n: number) =>
      `git status --short; touch ready-${n}; while [ ! -e go ]; do sleep 0.01; done`
    const both = [inSandbox(f, command(1)), inSandbox(f, command(2))]
    await until(() => existsSync(join(f.ws, 'ready-1')) && existsSync(join(f.ws, 'ready-2')), 'both commands')
    writeFileSync(join(f.ws, 'go'), '')
    const [one, two] = await Promise.all(both)
    expect([one!.notes, two!.notes]).toEqual([[], []])
    expect(f.git(['status', '--porcelain']).out).toBe('?? go\n?? ready-1\n?? ready-2\n')
  })

  test('a .git file (linked worktree) cannot be pointed at a gitdir the command wrote', async () => {
    const f = make('worktree')
    const main = join(f.dir, 'main')
    mkdirSync(main)
    expect(f.git(['init', '-q', '-b', 'main'], main).status).toBe(0)
    writeFileSync(join(main, 'm.txt'), 'm\n')
    f.git(['add', 'm.txt'], main)
    f.git(['-c', 'user.name=h', '-c', 'user.email=h@x', 'commit', '-qm', 'm'], main)
    const linked = join(f.dir, 'linked')
    expect(f.git(['worktree', 'add', '-q', linked], main).status).toBe(0)
    const gitfile = read(join(linked, '.git'))
    const r = await run(
      [
        'mkdir -p evil/objects evil/refs && echo "ref: refs/heads/main" > evil/HEAD',
        `printf '[core]\\n\\tfsmonitor = "${payload(f)}"\\n' > evil/config`,
        'printf "gitdir: evil\\n" > .git; echo "$?"',
        `echo x >> "$(sed 's/^gitdir: //' .git)/HEAD"; echo "$?"`,
      ].join('; '),
      { mode: 'workspace-write', root: linked, home: f.home },
      { env: envWithHome(f.home) },
    )
    expect(r.stdout).toBe('1\n1\n')
    expect(read(join(linked, '.git'))).toBe(gitfile)
    expect(f.git(['status', '--short'], linked).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test("a submodule's config and hooks under .git/modules stay read-only", async () => {
    const f = make('submodule')
    const lib = join(f.dir, 'lib')
    mkdirSync(lib)
    f.git(['init', '-q', '-b', 'main'], lib)
    writeFileSync(join(lib, 'l.txt'), 'l\n')
    f.git(['add', 'l.txt'], lib)
    f.git(['-c', 'user.name=h', '-c', 'user.email=h@x', 'commit', '-qm', 'l'], lib)
    expect(f.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'sub']).status).toBe(0)
    f.git(['commit', '-qm', 'add sub'])
    f.git(['config', 'user.name', 'model'], join(f.ws, 'sub'))
    f.git(['config', 'user.email', 'model@example.com'], join(f.ws, 'sub'))
    const config = read(join(f.ws, '.git', 'modules', 'sub', 'config'))
    const r = await inSandbox(
      f,
      [
        `git config -f .git/modules/sub/config core.fsmonitor '${payload(f)}'; echo "config=$?"`,
        `printf '#!/bin/sh\\n${payload(f)}\\n' > .git/modules/sub/hooks/post-checkout; echo "hook=$?"`,
        'cd sub && echo z >> l.txt && git add l.txt && git commit -qm inner && git log --format=%s -1',
      ].join('; '),
    )
    expect(r.stdout).toBe('config=4\nhook=1\ninner\n')
    expect(read(join(f.ws, '.git', 'modules', 'sub', 'config'))).toBe(config)
    expect(existsSync(join(f.ws, '.git', 'modules', 'sub', 'hooks', 'post-checkout'))).toBe(false)
    // The submodule's own commit reached the host (its gitdir is staged like the main one).
    expect(f.git(['log', '--format=%s', '-1'], join(f.ws, 'sub')).out).toBe('inner\n')
    expect(f.git(['status', '--short']).status).toBe(0)
    expect(f.git(['checkout', '-q', '-b', 'x'], join(f.ws, 'sub')).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('without a .git, `git init` cannot make a repository the host git would trust', async () => {
    const f = make('norepo', { repo: false })
    const r = await inSandbox(f, `git init -q . ; git config core.fsmonitor '${payload(f)}'; echo "$?"`)
    expect(r.stdout).toBe('128\n')
    expect(r.stderr).toContain('Read-only file system')
    // The name is covered by an empty directory (harmless to git: not a repository).
    expect(list(join(f.ws, '.git'))).toEqual([])
    expect(f.git(['status']).status).not.toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })
})

describe.skipIf(!usable)('1b. repositories the command creates in the workspace do not outlive it', () => {
  /** A submodule registered in the host repository but not checked out (a clone without --recurse). */
  const unpopulatedSubmodule = (f: Fixture) => {
    const lib = join(f.dir, 'lib')
    mkdirSync(lib)
    f.git(['init', '-q', '-b', 'main'], lib)
    writeFileSync(join(lib, 'l.txt'), 'l\n')
    f.git(['add', 'l.txt'], lib)
    f.git(['commit', '-qm', 'l'], lib)
    expect(f.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'sub']).status).toBe(0)
    f.git(['commit', '-qm', 'add sub'])
    expect(f.git(['submodule', 'deinit', '-q', '-f', 'sub']).status).toBe(0)
    rmSync(join(f.ws, '.git', 'modules'), { recursive: true })
    expect(list(join(f.ws, 'sub'))).toEqual([])
  }

  test('a repository made in an unpopulated submodule: the host git status (which enters submodules) runs nothing', async () => {
    const f = make('nested-sub')
    unpopulatedSubmodule(f)
    const r = await inSandbox(
      f,
      `git init -q sub && git -C sub config core.fsmonitor '${payload(f)}' && echo made`,
    )
    expect(r.stdout).toBe('made\n')
    expect(r.notes).toEqual([
      "sandbox: sub/.git was created by the command and renamed to sub/.git.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters sub). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
    ])
    expect(list(join(f.ws, 'sub'))).toEqual(['.git.toolgate-blocked'])
    expect(f.git(['status', '--short']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a repository made in a subdirectory and added as a gitlink: the host git status runs nothing', async () => {
    const f = make('nested-add')
    const r = await inSandbox(
      f,
      `mkdir -p src/app && cd src/app && git init -q && git config core.fsmonitor '${payload(f)}' && touch x && git add x && git -c user.name=m -c user.email=m@x commit -qm x && cd ../.. && git add src/app 2>/dev/null && git ls-files -s src/app | cut -c1-6`,
    )
    expect(r.stdout).toBe('160000\n')
    expect(r.notes).toEqual([
      "sandbox: src/app/.git was created by the command and renamed to src/app/.git.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters src/app). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
    ])
    expect(f.git(['status', '--short']).status).toBe(0)
    // A shell entering the directory (a prompt running git status) runs nothing either.
    f.git(['status', '--short'], join(f.ws, 'src', 'app'))
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a .git file pointing at a gitdir the command wrote, at any depth, is renamed too', async () => {
    const f = make('nested-gitfile')
    const r = await inSandbox(
      f,
      `git init -q --bare /tmp/g && mkdir -p a/b d && cp -a /tmp/g d/g && git --git-dir=d/g config core.bare false && git --git-dir=d/g config core.worktree "$PWD/a/b" && git --git-dir=d/g config core.fsmonitor '${payload(f)}' && echo "gitdir: $PWD/d/g" > a/b/.git && echo made`,
    )
    expect(r.stdout).toBe('made\n')
    expect(r.notes).toEqual([
      "sandbox: a/b/.git was created by the command and renamed to a/b/.git.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters a/b). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
      "sandbox: d/g/HEAD was created by the command and renamed to d/g/HEAD.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters d/g). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
    ])
    f.git(['status', '--short'], join(f.ws, 'a', 'b'))
    f.git(['log'], join(f.ws, 'd', 'g'))
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a bare layout made at the top of a workspace without .git: the host git there runs nothing', async () => {
    const f = make('nested-bare-top', { repo: false })
    const r = await inSandbox(
      f,
      `git init -q --bare /tmp/b && cp -a /tmp/b/. . && git --git-dir=. config core.bare false && git --git-dir=. config core.worktree "$PWD" && git --git-dir=. config core.fsmonitor '${payload(f)}' && echo made`,
    )
    expect(r.stdout).toBe('made\n')
    expect(r.notes).toEqual([
      "sandbox: HEAD was created by the command and renamed to HEAD.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters the workspace). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
    ])
    f.git(['status', '--short'])
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a gitlink under a directory the walk skips, in a version 4 index: found through the index', async () => {
    const f = make('nested-skipped')
    expect(f.git(['update-index', '--index-version', '4']).status).toBe(0)
    const r = await inSandbox(
      f,
      `mkdir -p node_modules/x && cd node_modules/x && git init -q && git config core.fsmonitor '${payload(f)}' && touch x && git add x && git -c user.name=m -c user.email=m@x commit -qm x && cd ../.. && git add -f node_modules/x 2>/dev/null && git ls-files -s node_modules/x | cut -c1-6`,
    )
    expect(r.stdout).toBe('160000\n')
    expect(r.notes).toEqual([
      "sandbox: node_modules/x/.git was created by the command and renamed to node_modules/x/.git.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters node_modules/x). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
    ])
    expect(f.git(['status', '--short']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a read-only git command writes no index (GIT_OPTIONAL_LOCKS=0): the host index stays as it was', async () => {
    const f = make('optional-locks')
    const index = join(f.ws, '.git', 'index')
    const before = lstatSync(index, { bigint: true })
    // A changed timestamp makes the cached stat data stale: git status would refresh and rewrite it.
    const r = await inSandbox(f, 'touch a.txt && git status --short && echo "$GIT_OPTIONAL_LOCKS"')
    expect(r.stdout).toBe('0\n')
    expect(r.notes).toEqual([])
    const after = lstatSync(index, { bigint: true })
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs])
  })

  test('nested repositories that existed before the command are left alone (and stay read-only)', async () => {
    const f = make('nested-old')
    mkdirSync(join(f.ws, 'vendor', 'x'), { recursive: true })
    f.git(['init', '-q', '-b', 'main'], join(f.ws, 'vendor', 'x'))
    const r = await inSandbox(f, 'git -C vendor/x config user.name m 2>/dev/null; echo "$?"; ls -A vendor/x')
    expect(r.stdout).toBe('255\n.git\n')
    expect(r.notes).toEqual([])
  })

  test('a .git symlink replaced by a directory is put back after the command; the host git runs nothing', async () => {
    const f = make('gitlink-symlink')
    renameSync(join(f.ws, '.git'), join(f.ws, '.repo'))
    symlinkSync('.repo', join(f.ws, '.git'))
    const r = await inSandbox(
      f,
      `rm .git && cp -a .repo .git && git config core.fsmonitor '${payload(f)}' && echo replaced`,
    )
    expect(r.stdout).toBe('replaced\n')
    expect(r.notes).toEqual([
      "sandbox: .git was created by the command and renamed to .git.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters the workspace). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
      'sandbox: .git was a symbolic link to .repo before the command; it is again',
    ])
    expect(readlinkSync(join(f.ws, '.git'))).toBe('.repo')
    expect(f.git(['status', '--short']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })
})

describe.skipIf(!usable)('2. no capabilities, as root and as a normal user', () => {
  test('CapEff is zero; umount, remount and a nested user namespace all fail; the hook never lands', async () => {
    const f = make('caps')
    const r = await inSandbox(
      f,
      [
        'grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status',
        'umount .git 2>/dev/null; echo "umount=$?"',
        'umount -l .git/hooks 2>/dev/null; echo "umount-hooks=$?"',
        'mount -o remount,rw / 2>/dev/null; echo "remount=$?"',
        'unshare -Ur true 2>/dev/null; echo "unshare=$?"',
        `printf '#!/bin/sh\\n${payload(f)}\\n' > .git/hooks/post-checkout 2>/dev/null; echo "hook=$?"`,
      ].join('; '),
    )
    expect(r.stdout).toBe(
      'CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\numount=32\numount-hooks=32\nremount=32\nunshare=1\nhook=1\n',
    )
    expect(existsSync(join(f.ws, '.git', 'hooks', 'post-checkout'))).toBe(false)
    expect(f.git(['checkout', '-q', '-b', 'y']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })
})

describe.skipIf(!usable)('3. secrets: the environment, credential stores, .env', () => {
  test('bash gets the allowlist: no key the process read, no credential-looking name, no copy of a secret', async () => {
    const f = make('env')
    const secret = 'sk-test-0123456789abcdef'
    const env = envWithHome(f.home, {
      TOOLGATE_TEST_PROVIDER_CREDENTIAL_VALUE: secret,
      MY_SERVICE_TOKEN: 'tok-1',
      AWS_ACCESS_KEY_ID: 'AKIA0000',
      DATABASE_URL: 'postgres://u:p@h/db',
      SSH_AUTH_SOCK: '/run/user/0/agent',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/0/bus',
      UNRELATED_SETTING: 'x',
      LC_ALL: 'C.UTF-8',
    })
    registerSecretEnv('TOOLGATE_TEST_PROVIDER_CREDENTIAL_VALUE', env)
    const r = await run(
      'env | cut -d= -f1 | sort | tr "\\n" " "; echo; cat /proc/self/environ | tr "\\0" "\\n" | grep -c sk-test',
      ws(f),
      { env: { ...env, COPIED: `x${secret}` } },
    )
    const names = r.stdout.split('\n')[0]!.trim().split(' ')
    for (const hidden of [
      'TOOLGATE_TEST_PROVIDER_CREDENTIAL_VALUE',
      'COPIED',
      'MY_SERVICE_TOKEN',
      'AWS_ACCESS_KEY_ID',
      'DATABASE_URL',
      'SSH_AUTH_SOCK',
      'DBUS_SESSION_BUS_ADDRESS',
      'UNRELATED_SETTING',
    ]) {
      expect(names).not.toContain(hidden)
    }
    expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'LC_ALL', 'TMPDIR', 'GIT_CONFIG_COUNT']))
    expect(r.stdout.split('\n')[1]).toBe('0')
  })

  test('credential stores under the home directory are empty inside, whatever the command', async () => {
    const f = make('creds')
    const stores = [
      '.ssh/id_ed25519',
      '.aws/credentials',
      '.gnupg/private-keys-v1.d/k.key',
      '.git-credentials',
      '.netrc',
      '.config/gh/hosts.yml',
      '.docker/config.json',
      '.kube/config',
      '.npmrc',
      '.pypirc',
      '.config/gcloud/credentials.db',
      '.azure/accessTokens.json',
      '.pgpass',
      '.my.cnf',
      '.s3cfg',
      '.boto',
      '.config/rclone/rclone.conf',
      '.config/github-copilot/hosts.json',
      '.claude/.credentials.json',
      '.codex/auth.json',
    ]
    const files = Object.fromEntries(stores.map((p, i) => [p, `SECRET-${i}-${p}`]))
    for (const [path, content] of Object.entries(files) as [string, string][]) {
      mkdirSync(join(f.home, path, '..'), { recursive: true })
      writeFileSync(join(f.home, path), content)
    }
    mkdirSync(join(f.ws, 'vault'))
    writeFileSync(join(f.ws, 'vault', 'key.pem'), 'configured secret')
    const paths = Object.keys(files).map((p) => `"$HOME/${p}"`)
    const r = await inSandbox(
      f,
      `cat ${paths.join(' ')} vault/key.pem 2>&1 | sort; ls -A ~/.ssh ~/.aws ~/.config/gh ~/.docker ~/.kube; echo key > ~/.ssh/authorized_keys 2>/dev/null; echo "write=$?"`,
      { credentialStores: ['vault'] },
    )
    for (const content of [...Object.values(files), 'configured secret'])
      expect(r.stdout).not.toContain(content)
    expect(r.stdout).toContain('write=1')
    expect(existsSync(join(f.home, '.ssh', 'authorized_keys'))).toBe(false)
    // The stores are still there on the host.
    expect(read(join(f.home, '.ssh', 'id_ed25519'))).toBe('SECRET-0-.ssh/id_ed25519')
  })

  test("the workspace's .env files are hidden from bash; templates are not", async () => {
    const f = make('dotenv')
    writeFileSync(join(f.ws, '.env'), 'API_KEY=secret-1')
    mkdirSync(join(f.ws, 'packages', 'app'), { recursive: true })
    writeFileSync(join(f.ws, 'packages', 'app', '.env.local'), 'API_KEY=secret-2')
    writeFileSync(join(f.ws, '.env.example'), 'API_KEY=')
    const r = await inSandbox(
      f,
      'cat .env packages/app/.env.local; echo "[$(cat .env.example)]"; grep -r secret . | wc -l',
    )
    expect(r.stdout).toBe('[API_KEY=]\n0\n')
    const exposed = await inSandbox(f, 'cat .env', { exposeEnvFiles: true })
    expect(exposed.stdout).toBe('API_KEY=secret-1')
  })

  test('the kernel keyrings are out of reach (keyctl fails)', async () => {
    const f = make('keyring')
    const keyctl = { x64: 250, arm64: 219 }[process.arch as 'x64' | 'arm64']
    // KEYCTL_GET_KEYRING_ID of the session keyring, through perl's syscall() (perl-base).
    const call = `perl -e '$r = syscall(${keyctl}, 0, -3, 0, 0, 0); print $r < 0 ? "$!\\n" : "id\\n"'`
    expect(execFileSync('sh', ['-c', call], { encoding: 'utf8' })).toBe('id\n') // control: on the host
    expect((await inSandbox(f, call)).stdout).toBe('Operation not permitted\n')
  })

  test('/etc/shadow is not readable inside, also for root', async () => {
    const f = make('shadow')
    const r = await inSandbox(f, 'wc -c < /etc/shadow')
    expect(r.stdout).toBe('0\n')
  })
})

describe.skipIf(!usable)('4. unix sockets of host services', () => {
  let servers: NetServer[] = []
  afterEach(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
    servers = []
  })
  const listen = (path: string) =>
    new Promise<void>((resolve) => {
      const server = createNetServer((socket) => socket.end('answered\n'))
      servers.push(server)
      server.listen(path, resolve)
    })
  const connect = (path: string) =>
    `${JSON.stringify(process.execPath)} -e 'require("net").connect(process.argv[1]).on("data", (d) => { process.stdout.write(d); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(3) })' ${JSON.stringify(path)}`

  test('a service listening under the home directory or in the workspace does not answer', async () => {
    const f = make('sockets')
    mkdirSync(join(f.home, '.local', 'run'), { recursive: true })
    const inHome = join(f.home, '.local', 'run', 'svc.sock')
    const inWs = join(f.ws, 'svc.sock')
    await listen(inHome)
    await listen(inWs)
    // Control: the services answer on the host (asynchronously: the servers live in this process).
    const host = await promisify(execFile)('sh', ['-c', connect(inHome)], {
      encoding: 'utf8',
      timeout: 10_000,
    })
    expect(host.stdout).toBe('answered\n')
    const r = await inSandbox(f, `${connect(inHome)}; ${connect(inWs)}`)
    expect(r.stdout).toBe('EACCES\nEACCES\n')
  })

  test('socketpair still works (a child process with an IPC channel)', async () => {
    const f = make('socketpair')
    writeFileSync(
      join(f.ws, 'ipc.js'),
      [
        "const { fork } = require('node:child_process')",
        "if (process.argv[2] === 'child') process.on('message', (m) => process.send(m + 1, () => process.exit(0)))",
        "else fork(__filename, ['child']).on('message', (m) => { console.log(m) }).send(41)",
      ].join('\n'),
    )
    const r = await inSandbox(f, `${JSON.stringify(process.execPath)} ipc.js`)
    expect(r).toMatchObject({ code: 0, stdout: '42\n' })
  })

  test('/run, /var/run and XDG_RUNTIME_DIR are empty inside', async () => {
    const f = make('run')
    const r = await inSandbox(f, 'ls -A /run /var/run')
    expect(r.stdout).toBe('/run:\n\n/var/run:\n')
  })
})

describe.skipIf(!usable)('5. the profile follows the preset', () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('reached'))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as { port: number }).port
  })
  afterAll(async () => {
    await new Promise((r) => server.close(r))
  })
  const curl = () =>
    `${JSON.stringify(process.execPath)} -e 'require("http").get("http://127.0.0.1:${port}/", (r) => r.on("data", (d) => console.log(String(d)))).on("error", (e) => console.log(e.code))'`

  test('read-only: the workspace is read-only', async () => {
    const f = make('readonly')
    const r = await inSandbox(
      f,
      'echo x > x.txt; echo "$?"; git commit -qm x --allow-empty 2>/dev/null; echo "$?"',
      {
        mode: 'read-only',
      },
    )
    expect(r.stdout).toBe('1\n128\n')
    expect(existsSync(join(f.ws, 'x.txt'))).toBe(false)
    expect(f.git(['log', '--format=%s']).out).toBe('first\n')
  })

  test('workspace-write: no network', async () => {
    const f = make('nonet')
    expect((await inSandbox(f, curl())).stdout).toBe('ECONNREFUSED\n')
  })

  test('danger-full-access: writes outside the workspace and the network work, protected paths and credential stores do not', async () => {
    const f = make('danger')
    mkdirSync(join(f.dir, 'outside'))
    mkdirSync(join(f.home, '.ssh'))
    writeFileSync(join(f.home, '.ssh', 'id_rsa'), 'PRIVATE KEY')
    mkdirSync(join(f.home, 'projects'))
    const r = await inSandbox(
      f,
      [
        `echo out > ${join(f.dir, 'outside', 'f')}; echo "outside=$?"`,
        `echo p > ~/projects/p; echo "home-subdir=$?"`,
        `sh -c 'echo "${payload(f)}" > .git/hooks/pre-commit' 2>/dev/null; echo "hook=$?"`,
        'mkdir -p .toolgate 2>/dev/null && echo {} > .toolgate/settings.json 2>/dev/null; echo "toolgate=$?"',
        `git config --global core.fsmonitor '${payload(f)}' 2>/dev/null; echo "global=$?"`,
        'echo x >> ~/.bash_profile 2>/dev/null; echo "rc=$?"',
        'cat ~/.ssh/id_rsa; echo "[ssh]"',
        curl(),
      ].join('; '),
      { mode: 'danger-full-access' },
    )
    expect(r.stdout).toBe('outside=0\nhome-subdir=0\nhook=2\ntoolgate=1\nglobal=255\nrc=1\n[ssh]\nreached\n')
    expect(read(join(f.dir, 'outside', 'f'))).toBe('out\n')
    expect(existsSync(join(f.ws, '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(existsSync(join(f.home, '.gitconfig'))).toBe(false)
    expect(existsSync(join(f.home, '.bash_profile'))).toBe(false)
    writeFileSync(join(f.ws, 'c.txt'), 'c')
    f.git(['add', 'c.txt'])
    expect(f.git(['commit', '-qm', 'c']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })
})

describe.skipIf(!usable)('6. hooks elsewhere: core.hooksPath, .husky, .envrc, included config', () => {
  test("the hooksPath directory (.husky) stays the user's: the host commit runs the original hook only", async () => {
    const f = make('husky')
    mkdirSync(join(f.ws, '.husky'))
    const hook = join(f.ws, '.husky', 'pre-commit')
    writeFileSync(hook, `#!/bin/sh\ntouch ${join(f.dir, 'hook-ran')}\n`)
    chmodSync(hook, 0o755)
    f.git(['config', 'core.hooksPath', '.husky'])
    const r = await inSandbox(
      f,
      [
        `echo '${payload(f)}' >> .husky/pre-commit; echo "append=$?"`,
        `printf '#!/bin/sh\\n${payload(f)}\\n' > .husky/post-commit; echo "new=$?"`,
        'mv .husky .husky-old 2>/dev/null; echo "mv=$?"',
      ].join('; '),
    )
    expect(r.stdout).toBe('append=1\nnew=1\nmv=1\n')
    writeFileSync(join(f.ws, 'h.txt'), 'h')
    f.git(['add', 'h.txt'])
    expect(f.git(['commit', '-qm', 'h']).status).toBe(0)
    expect(existsSync(join(f.dir, 'hook-ran'))).toBe(true) // the hook runs: the check above is real
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a hooksPath that does not exist yet cannot be created', async () => {
    const f = make('hookspath-missing')
    f.git(['config', 'core.hooksPath', 'tools/hooks'])
    const r = await inSandbox(
      f,
      `mkdir -p tools/hooks; printf '#!/bin/sh\\n${payload(f)}\\n' > tools/hooks/pre-commit; echo "$?"; chmod +x tools/hooks/pre-commit`,
    )
    expect(r.stdout).toBe('1\n')
    writeFileSync(join(f.ws, 'h.txt'), 'h')
    f.git(['add', 'h.txt'])
    expect(f.git(['commit', '-qm', 'h']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('a configuration file the repository includes from the workspace cannot be created or changed', async () => {
    const f = make('include')
    f.git(['config', 'include.path', '../.gitconfig.local'])
    const r = await inSandbox(
      f,
      `printf '[core]\\n\\tfsmonitor = "${payload(f)}"\\n' > .gitconfig.local; echo "$?"`,
    )
    expect(r.stdout).toBe('1\n')
    expect(f.git(['status', '--short']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })

  test('.envrc, .pre-commit-config.yaml and .vscode/tasks.json are read-only', async () => {
    const f = make('autorun')
    writeFileSync(join(f.ws, '.envrc'), 'export A=1\n')
    writeFileSync(join(f.ws, '.pre-commit-config.yaml'), 'repos: []\n')
    mkdirSync(join(f.ws, '.vscode'))
    writeFileSync(join(f.ws, '.vscode', 'tasks.json'), '{}')
    const r = await inSandbox(
      f,
      'for p in .envrc .pre-commit-config.yaml .vscode/tasks.json; do echo evil >> "$p" 2>/dev/null; echo "$p=$?"; done',
    )
    expect(r.stdout).toBe('.envrc=1\n.pre-commit-config.yaml=1\n.vscode/tasks.json=1\n')
    expect(read(join(f.ws, '.envrc'))).toBe('export A=1\n')
  })

  /** The note for an auto-run path the command made (`new-auto-run.ts`). */
  const madeNote = (path: string, renamed: string, reason: string) =>
    `sandbox: ${path} was created by the command and renamed to ${renamed}: ${reason}, so a command may not create it. Write it under another name and ask the user to put it in place.`
  const reasons = {
    husky: 'husky git hooks run as code on the next git command',
    preCommit: 'the pre-commit hook runs the commands it names on the next git commit',
    envrc: 'direnv runs it as code when a shell enters the directory',
    tasks: 'editor tasks can run as code when the folder is opened',
  }

  test('missing auto-run files a command creates (file, directory, symlink) are renamed after it; the host commit runs nothing', async () => {
    const f = make('autorun-new')
    // The user's pre-commit hook, as `pre-commit install` leaves it: it runs what the config names.
    const hook = join(f.ws, '.git', 'hooks', 'pre-commit')
    writeFileSync(
      hook,
      `#!/bin/sh\n[ -f .pre-commit-config.yaml ] || exit 0\nsed -n 's/^ *entry: //p' .pre-commit-config.yaml | sh\n`,
    )
    chmodSync(hook, 0o755)
    writeFileSync(join(f.ws, '.envrc.toolgate-blocked'), 'old\n') // the blocked name is taken: a counter
    const r = await inSandbox(
      f,
      [
        `printf 'repos:\\n- repo: local\\n  hooks:\\n  - id: x\\n    entry: ${payload(f)}\\n' > .pre-commit-config.yaml`,
        'echo evil > .envrc',
        'mkdir -p .husky/_ && echo evil > .husky/_/pre-commit',
        'mkdir .vscode && echo "{}" > .vscode/tasks.json',
        'mkdir sub && ln -s /etc/passwd sub/.envrc',
        'echo made',
      ].join(' && '),
    )
    expect(r.stdout).toBe('made\n')
    expect(r.notes).toEqual([
      madeNote('.envrc', '.envrc.toolgate-blocked-2', reasons.envrc),
      madeNote('.husky', '.husky.toolgate-blocked', reasons.husky),
      madeNote('.pre-commit-config.yaml', '.pre-commit-config.yaml.toolgate-blocked', reasons.preCommit),
      madeNote('.vscode/tasks.json', '.vscode/tasks.json.toolgate-blocked', reasons.tasks),
      madeNote('sub/.envrc', 'sub/.envrc.toolgate-blocked', reasons.envrc),
    ])
    expect(list(f.ws).filter((n) => n.startsWith('.') && n !== '.git')).toEqual([
      '.envrc.toolgate-blocked',
      '.envrc.toolgate-blocked-2',
      '.husky.toolgate-blocked',
      '.pre-commit-config.yaml.toolgate-blocked',
      '.toolgate', // the profile's own cover of a missing .toolgate
      '.vscode',
    ])
    expect(read(join(f.ws, '.envrc.toolgate-blocked'))).toBe('old\n')
    expect(list(join(f.ws, '.vscode'))).toEqual(['tasks.json.toolgate-blocked'])
    expect(list(join(f.ws, 'sub'))).toEqual(['.envrc.toolgate-blocked'])
    expect(lstatSync(join(f.ws, 'sub', '.envrc.toolgate-blocked')).isSymbolicLink()).toBe(true)
    writeFileSync(join(f.ws, 'h.txt'), 'h')
    f.git(['add', 'h.txt'])
    expect(f.git(['commit', '-qm', 'h']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
    // The check is real: the same file put in place on the host runs the payload at the commit.
    renameSync(join(f.ws, '.pre-commit-config.yaml.toolgate-blocked'), join(f.ws, '.pre-commit-config.yaml'))
    writeFileSync(join(f.ws, 'h.txt'), 'h2')
    f.git(['add', 'h.txt'])
    f.git(['commit', '-qm', 'h2'])
    expect(existsSync(f.pwned)).toBe(true)
  })

  test("an existing auto-run file's directory cannot be moved away and replaced; nested existing ones are read-only", async () => {
    const f = make('autorun-swap')
    mkdirSync(join(f.ws, '.vscode'))
    writeFileSync(join(f.ws, '.vscode', 'tasks.json'), '{}')
    mkdirSync(join(f.ws, 'sub'))
    writeFileSync(join(f.ws, 'sub', '.pre-commit-config.yaml'), 'repos: []\n')
    const r = await inSandbox(
      f,
      [
        'echo evil >> sub/.pre-commit-config.yaml 2>/dev/null; echo "nested=$?"',
        // The directories holding them are mount points (pinned): they cannot be renamed.
        'mv .vscode .vscode-old 2>/dev/null; echo "mv=$?"',
        'mv sub sub-old 2>/dev/null; echo "mv-sub=$?"',
        'echo evil > .vscode/tasks.json 2>/dev/null; echo "write=$?"',
        'echo fine > .vscode/settings.json; echo "beside=$?"',
      ].join('; '),
    )
    expect(r.stdout).toBe('nested=1\nmv=1\nmv-sub=1\nwrite=1\nbeside=0\n')
    expect(r.notes).toEqual([])
    expect(list(join(f.ws, '.vscode'))).toEqual(['settings.json', 'tasks.json'])
    expect(read(join(f.ws, '.vscode', 'tasks.json'))).toBe('{}')
    expect(read(join(f.ws, 'sub', '.pre-commit-config.yaml'))).toBe('repos: []\n')
  })

  test('auto-run files that existed are left where they are, in danger-full-access too', async () => {
    const f = make('autorun-kept')
    writeFileSync(join(f.ws, '.pre-commit-config.yaml'), 'repos: []\n')
    mkdirSync(join(f.ws, '.husky'))
    const r = await inSandbox(f, 'cat .pre-commit-config.yaml; ls -A .husky; echo ok', {
      mode: 'danger-full-access',
    })
    expect(r.stdout).toBe('repos: []\nok\n')
    expect(r.notes).toEqual([])
    expect(list(f.ws)).toEqual(['.git', '.husky', '.pre-commit-config.yaml', '.toolgate', 'a.txt'])
  })

  test("husky's missing hooksPath (.husky/_) in a missing .husky: .husky itself is covered", async () => {
    const f = make('autorun-husky-cover')
    f.git(['config', 'core.hooksPath', '.husky/_'])
    // A cover on .husky/_ alone would leave .husky a plain directory (bubblewrap makes it), which a
    // command could rename and replace; the first missing directory is covered instead.
    const r = await inSandbox(
      f,
      `printf '#!/bin/sh\\n${payload(f)}\\n' > .husky/pre-commit 2>/dev/null; echo "hook=$?"; mkdir -p .husky/_ 2>/dev/null; echo "mkdir=$?"; mv .husky .h 2>/dev/null; echo "mv=$?"`,
    )
    expect(r.stdout).toBe('hook=1\nmkdir=1\nmv=1\n')
    expect(r.notes).toEqual([])
    // The profile's own mount point stays (empty), and is an existing, read-only .husky next time.
    expect(list(join(f.ws, '.husky'))).toEqual([])
    const next = await inSandbox(f, 'echo x > .husky/pre-commit 2>/dev/null; echo "$?"; ls -A .husky')
    expect(next.stdout).toBe('1\n_\n') // now the cover of .husky/_ inside the read-only .husky
    expect(next.notes).toEqual([])
  })

  test('danger-full-access: a created .envrc is renamed too', async () => {
    const f = make('autorun-full')
    const r = await inSandbox(f, 'echo evil > .envrc && echo made', { mode: 'danger-full-access' })
    expect(r.stdout).toBe('made\n')
    expect(r.notes).toEqual([madeNote('.envrc', '.envrc.toolgate-blocked', reasons.envrc)])
    expect(existsSync(join(f.ws, '.envrc'))).toBe(false)
  })
})

describe.skipIf(!usable)('8. git inside the sandbox gets configuration the workspace cannot override', () => {
  test('a bare repository laid out in the workspace is refused (safe.bareRepository=explicit)', async () => {
    // A workspace that is not itself a repository, so git has nothing else to fall back to.
    const f = make('bare', { repo: false })
    const marker = join(f.ws, 'ran-bare')
    // Any way of writing files will do; git itself is the quickest here. The payload is a plain
    // append to the bare repository's config: an external diff program.
    const layout = [
      'git init -q src && cd src && echo 1 > f && git add f && git -c user.name=m -c user.email=m@x commit -qm 1',
      'echo 2 > f && git -c user.name=m -c user.email=m@x commit -qam 2 && cd ..',
      'git clone -q --bare src trap',
      `printf '[diff]\\n\\texternal = "touch ${marker}; false"\\n' >> trap/config`,
    ].join(' && ')
    const r = await inSandbox(
      f,
      `${layout} && cd trap && git rev-parse --git-dir; echo "rc=$?"; git diff HEAD~1 HEAD >/dev/null 2>&1; [ -e ../ran-bare ] && echo ran || echo clean`,
    )
    expect(r.stdout).toBe('rc=128\nclean\n')
    expect(r.stderr).toContain("fatal: cannot use bare repository '")
    // Control: without toolgate's git configuration the same layout runs its payload ("external
    // diff died": the payload ran and returned false).
    const control = await inSandbox(
      f,
      `${layout.replace('git init -q src', 'rm -rf src trap && git init -q src')} && cd trap && env -u GIT_CONFIG_COUNT git diff HEAD~1 HEAD >/dev/null 2>&1; echo "rc=$?"`,
    )
    expect(control.stdout).toBe('rc=128\n')
    // Neither layout outlives its command on the host (see "1b").
    expect(control.notes).toEqual([
      "sandbox: src/.git was created by the command and renamed to src/.git.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters src). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
      "sandbox: trap/HEAD was created by the command and renamed to trap/HEAD.toolgate-blocked: the host's git would read its configuration and hooks (as a submodule, or in a shell that enters trap). Make repositories outside the workspace (under /tmp), or run `git init` yourself.",
    ])
    expect(existsSync(marker)).toBe(true)
  })

  test("an fsmonitor in the repository's configuration does not run inside", async () => {
    const f = make('fsmonitor')
    const marker = join(f.ws, 'ran-fsmonitor')
    f.git(['config', 'core.fsmonitor', `touch ${marker}; false`])
    const r = await inSandbox(f, 'git status --short >/dev/null; echo "$?"')
    expect(r.stdout).toBe('0\n')
    expect(existsSync(marker)).toBe(false)
    const control = await inSandbox(
      f,
      'env -u GIT_CONFIG_COUNT git status --short >/dev/null 2>&1; echo "$?"',
    )
    expect(control.stdout).toBe('0\n')
    expect(existsSync(marker)).toBe(true)
  })
})

describe.skipIf(!usable)('whatever else', () => {
  test('a hard link to .git/config from the workspace cannot be made (another mount)', async () => {
    const f = make('hardlink')
    const r = await inSandbox(f, 'ln .git/config cfg 2>/dev/null; echo "$?"; ls cfg 2>/dev/null | wc -l')
    expect(r.stdout).toBe('1\n0\n')
  })

  test('a workspace inside a repository: the cover of its missing .git leaves the parent repository usable', async () => {
    const f = make('parent')
    const sub = join(f.ws, 'packages', 'app')
    mkdirSync(sub, { recursive: true })
    const r = await run(
      'git init -q . 2>/dev/null; git rev-parse --show-toplevel',
      { mode: 'workspace-write', root: sub, home: f.home },
      { env: envWithHome(f.home) },
    )
    expect(r.stdout).toBe(`${f.ws}\n`)
    expect(list(join(sub, '.git'))).toEqual([])
    expect(f.git(['rev-parse', '--show-toplevel'], sub).out).toBe(`${f.ws}\n`)
  })

  test('renaming the workspace itself fails (a mount point)', async () => {
    const f = make('renamews')
    const r = await inSandbox(f, `cd .. && mv ${f.ws} ${f.ws}-moved 2>/dev/null; echo "$?"`)
    expect(r.stdout).toBe('1\n')
    expect(lstatSync(f.ws).isDirectory()).toBe(true)
  })

  test("the host's /tmp (where git state is staged) is not visible inside", async () => {
    const f = make('staging')
    const r = await inSandbox(f, 'ls -A /tmp | wc -l')
    expect(r.stdout).toBe('0\n')
    expect(readFileSync(join(f.ws, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n')
  })
})

describe.skipIf(!usable)('red team: links and renamed directories around protected paths', () => {
  // The CLI's bash tool keeps /tmp between commands: a host directory under the host's /tmp (its
  // session directory), whose host path the command can read in /proc/self/mountinfo.
  const sessionTmp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-session-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    return dir
  }
  const cleanups: (() => void)[] = []
  afterEach(() => {
    for (const c of cleanups.splice(0)) c()
  })

  test('a protected name made a link (through the session /tmp, or to the host /tmp) binds nothing hidden into the sandbox', async () => {
    const f = make('link-tmp')
    mkdirSync(join(f.home, '.ssh'))
    writeFileSync(join(f.home, '.ssh', 'id_rsa'), 'PRIVATE KEY')
    const hostSecret = sessionTmp() // any directory in the host's /tmp (a Kerberos cache, another tool's files)
    writeFileSync(join(hostSecret, 'secret'), 'HOST TMP SECRET')
    const hostOther = sessionTmp() // exists on the host, not inside: a mount there would fail every command
    const tmp = sessionTmp()
    const up = relative(f.ws, '/')
    // Inside, /tmp is `tmp`. `/tmp/s` is `tmp/s` on the host: a link to the credential store. The
    // protected names are links to it (through the host path of /tmp) and to the host's /tmp; the
    // directories made inside exist at the path the links name inside the sandbox.
    const setup = await inSandbox(
      f,
      [
        `ln -s ${f.home}/.ssh /tmp/s`,
        `mkdir -p ${tmp}/s /tmp/${basename(hostSecret)}`,
        `ln -s ${up}${tmp}/s .bashrc`,
        `ln -s ${up}${hostSecret} .profile`,
        `ln -s ${up}${hostOther} .zshrc`,
        'echo made',
      ].join(' && '),
      { tmpDir: tmp },
    )
    expect(setup.stdout).toBe('made\n')
    const r = await inSandbox(
      f,
      `cat ${tmp}/s/id_rsa /tmp/${basename(hostSecret)}/secret .bashrc/id_rsa .profile/secret 2>/dev/null; echo "[$?]"`,
      { tmpDir: tmp },
    )
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('[1]\n')
  })

  for (const mode of ['workspace-write', 'danger-full-access'] as const) {
    test(`${mode}: renaming the directory that holds a hooksPath or an included config, then making a new one, fails; the host git runs nothing`, async () => {
      const f = make(`rename-parent-${mode}`)
      mkdirSync(join(f.ws, 'tools', 'hooks'), { recursive: true })
      const hook = join(f.ws, 'tools', 'hooks', 'post-commit')
      writeFileSync(hook, `#!/bin/sh\ntouch ${join(f.dir, 'hook-ran')}\n`)
      chmodSync(hook, 0o755)
      mkdirSync(join(f.ws, 'conf'))
      writeFileSync(join(f.ws, 'conf', 'git.inc'), '[user]\n\tname = host\n')
      mkdirSync(join(f.dir, 'shared', 'inner'), { recursive: true })
      writeFileSync(join(f.dir, 'shared', 'inner', 'git.inc'), '[user]\n\temail = host@example.com\n')
      f.git(['config', 'core.hooksPath', 'tools/hooks'])
      f.git(['config', '--add', 'include.path', '../conf/git.inc'])
      f.git(['config', '--add', 'include.path', join(f.dir, 'shared', 'inner', 'git.inc')])
      const fsmonitor = `[core]\\n\\tfsmonitor = "${payload(f)}"\\n`
      const r = await inSandbox(
        f,
        [
          `mv tools tools.old 2>/dev/null; mkdir -p tools/hooks; printf '#!/bin/sh\\n${payload(f)}\\n' > tools/hooks/post-commit 2>/dev/null; chmod +x tools/hooks/post-commit 2>/dev/null; echo "hooks=$?"`,
          `mv conf conf.old 2>/dev/null; mkdir -p conf; printf '${fsmonitor}' > conf/git.inc 2>/dev/null; echo "include=$?"`,
          `mv ${f.dir}/shared/inner ${f.dir}/shared/old 2>/dev/null; mkdir -p ${f.dir}/shared/inner; printf '${fsmonitor}' > ${f.dir}/shared/inner/git.inc 2>/dev/null; echo "outside=$?"`,
        ].join('; '),
        { mode },
      )
      expect(r.stdout).toBe('hooks=1\ninclude=1\noutside=1\n')
      expect(f.git(['status', '--short']).status).toBe(0)
      writeFileSync(join(f.ws, 'h.txt'), 'h')
      f.git(['add', 'h.txt'])
      expect(f.git(['commit', '-qm', 'h']).status).toBe(0)
      expect(existsSync(join(f.dir, 'hook-ran'))).toBe(true) // the user's hook runs: the check is real
      expect(existsSync(f.pwned)).toBe(false)
    })
  }

  test('a missing hooksPath in a missing directory: the directory made for its cover cannot be swapped either', async () => {
    const f = make('rename-cover')
    f.git(['config', 'core.hooksPath', 'tools/hooks'])
    f.git(['config', '--add', 'include.path', '../conf/missing.inc'])
    const r = await inSandbox(
      f,
      [
        `mv tools tools.old 2>/dev/null; mkdir -p tools/hooks; printf '#!/bin/sh\\n${payload(f)}\\n' > tools/hooks/post-commit 2>/dev/null; chmod +x tools/hooks/post-commit 2>/dev/null; echo "hooks=$?"`,
        `mv conf conf.old 2>/dev/null; mkdir -p conf; printf '[core]\\n\\tfsmonitor = "${payload(f)}"\\n' > conf/missing.inc 2>/dev/null; echo "include=$?"`,
      ].join('; '),
    )
    expect(r.stdout).toBe('hooks=1\ninclude=1\n')
    expect(f.git(['status', '--short']).status).toBe(0)
    writeFileSync(join(f.ws, 'h.txt'), 'h')
    f.git(['add', 'h.txt'])
    expect(f.git(['commit', '-qm', 'h']).status).toBe(0)
    expect(existsSync(f.pwned)).toBe(false)
  })
})

describe.skipIf(!usable)('red team: a workspace that holds the home directory', () => {
  // Started in ~ (or above it), the workspace bind made the whole home writable: missing
  // credential stores and startup files could be created (`~/.ssh/authorized_keys`,
  // `~/.ssh/config` with a ProxyCommand, `~/.bash_profile`), and run or grant access later.
  for (const [mode, where] of [
    ['workspace-write', 'the home directory itself'],
    ['workspace-write', 'a parent of the home directory'],
    ['danger-full-access', 'the home directory itself'],
  ] as const) {
    test(`${mode} in ${where}: no new dotfile or credential store at the top of the home`, async () => {
      const f = make(`home-ws-${mode.length}-${where.length}`, { repo: false })
      mkdirSync(join(f.home, 'project'))
      const root = where === 'the home directory itself' ? f.home : f.dir
      const r = await run(
        [
          'cd ~',
          'mkdir -p .ssh 2>/dev/null && echo "ssh-ed25519 AAAA model" > .ssh/authorized_keys 2>/dev/null; echo "ssh=$?"',
          `echo "${payload(f)}" > .bash_profile 2>/dev/null; echo "rc=$?"`,
          'echo "[core] fsmonitor = x" > .gitconfig 2>/dev/null; echo "gitconfig=$?"',
          'echo made > project/file; echo "subdir=$?"',
        ].join('; '),
        { mode, root, home: f.home },
        { env: envWithHome(f.home) },
      )
      expect(r.stdout).toBe('ssh=1\nrc=1\ngitconfig=1\nsubdir=0\n')
      for (const name of ['.ssh', '.bash_profile']) expect(existsSync(join(f.home, name))).toBe(false)
      expect(read(join(f.home, 'project', 'file'))).toBe('made\n')
    })
  }
})

describe.skipIf(!usable)('red team: the bubblewrap the agent starts is the one it probed', () => {
  // `bwrap` was looked up on PATH at every spawn: in danger-full-access the home directory's
  // subdirectories are writable, and `~/.local/bin`, `~/bin` usually come first on PATH. A `bwrap`
  // the command put there ran the next command with no sandbox at all.
  test('danger-full-access: a bwrap planted in a PATH directory under the home is not used', async () => {
    const f = make('fake-bwrap')
    mkdirSync(join(f.home, 'bin'))
    mkdirSync(join(f.home, '.ssh'))
    writeFileSync(join(f.home, '.ssh', 'id_rsa'), 'PRIVATE KEY')
    const env = envWithHome(f.home, { PATH: `${join(f.home, 'bin')}:${process.env.PATH}` })
    const policy: SandboxPolicy = { mode: 'danger-full-access', root: f.ws, home: f.home }
    const plant = await run(
      `printf '#!/bin/sh\\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"\\n' > ~/bin/bwrap && chmod +x ~/bin/bwrap && echo planted`,
      policy,
      { env },
    )
    expect(plant.stdout).toBe('planted\n')
    const r = await run(
      `cat ~/.ssh/id_rsa; echo "[ssh]"; echo "${payload(f)}" > .git/hooks/pre-commit 2>/dev/null; echo "hook=$?"`,
      policy,
      { env },
    )
    expect(r.stdout).toBe('[ssh]\nhook=1\n')
    expect(existsSync(join(f.ws, '.git', 'hooks', 'pre-commit'))).toBe(false)
  })
})
