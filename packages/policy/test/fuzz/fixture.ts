import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { GIT_HOOKS, MARKER_PROGRAMS, PAYLOAD, shimScript } from './markers.js'

/**
 * The fixture: what every command sees, prepared once per process and copied per worker.
 *
 *   template/home/            -> /home/agent (HOME): .ssh/id_rsa, .aws/credentials, .gitconfig
 *                                (aliases, one of them a `!` shell alias), .bashrc, .profile
 *   template/home/project/    -> /home/agent/project (the working directory): a git repository
 *                                with commits, branches, tags (one signed), a stash, an untracked and
 *                                a modified file, `.env`, `.toolgate/`, nested directories, a
 *                                directory `dashes/` of files named like options, archives, symlinks
 *                                and every git hook installed as a marker
 *   template/tmp/             -> /tmp
 *   bin/                      -> /run/tgfuzz/bin (first on PATH): marker shims
 */

export const SANDBOX_HOME = '/home/agent'
export const SANDBOX_CWD = '/home/agent/project'
/** Inside a worker's tree: the repositories with a working tree (their indexes are refreshed). */
export const REPOSITORIES = ['home/project', 'home/project/vendor/evil'] as const
/** Inside a worker's tree: the directories whose times may change transiently (see snapshot.ts). */
export const TRANSIENT_DIRS = ['tmp', ...REPOSITORIES.map((r) => `${r}/.git`)]

/** Files the generator names; all exist in the fixture (paths relative to the project). */
export const FIXTURE_FILES = [
  'README.md',
  'notes.txt',
  'data.json',
  'data.csv',
  'src/main.c',
  'src/util.js',
  'src/lib/helper.py',
  'docs/guide.md',
  'nested/a/b/c/deep.txt',
  'file with spaces.txt',
  'untracked.txt',
  'bin.dat',
  'archive.tar',
  'archive.tar.gz',
  'notes.txt.gz',
  'package.json',
  'script.sh',
  'Makefile',
  '.env',
  '.env.example',
  '.gitignore',
  '.toolgate/settings.json',
  'link-to-readme',
  'edit.sed',
  'prog.awk',
  'vendor/evil/lib.txt',
  'tools/ls',
  '.git/config',
  '.git/HEAD',
] as const

// A fixed old time for every file, so git's stat data is never racy.
const OLD = new Date('2020-01-02T03:04:05Z')

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.invalid',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
}

function write(path: string, content: string | Buffer, mode = 0o644): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, content, { mode })
  chmodSync(path, mode)
}

function git(cwd: string, args: string[], input?: string, date = '2020-01-02T03:04:05Z'): string {
  return execFileSync('git', args, {
    cwd,
    input,
    encoding: 'utf8',
    env: {
      ...process.env,
      ...GIT_ENV,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
      HOME: '/nonexistent',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
}

const FAKE_SIGNATURE = [
  '-----BEGIN PGP SIGNATURE-----',
  '',
  'iQEzBAABCAAdFiEEfixturefixturefixturefixturefixtureFAmAAAAAACgkQfixture',
  'fixturefixturefixturefixturefixturefixturefixturefixturefixture=',
  '=AAAA',
  '-----END PGP SIGNATURE-----',
]

/** Build the template tree under `dir` (`dir/home`, `dir/tmp`). */
export function buildTemplate(dir: string): void {
  const home = join(dir, 'home')
  const project = join(home, 'project')
  mkdirSync(join(dir, 'tmp'), { recursive: true })
  chmodSync(join(dir, 'tmp'), 0o1777)
  write(
    join(home, '.ssh/id_rsa'),
    '-----BEGIN OPENSSH PRIVATE KEY-----\nfixture-not-a-key\n-----END OPENSSH PRIVATE KEY-----\n',
    0o600,
  )
  write(join(home, '.ssh/config'), 'Host example\n  HostName example.invalid\n')
  write(join(home, '.aws/credentials'), '[default]\naws_access_key_id = FIXTUREKEY\n', 0o600)
  write(join(home, '.bashrc'), '# fixture bashrc\nalias ll="ls -l"\n')
  write(join(home, '.profile'), '# fixture profile\n')
  write(
    join(home, '.gitconfig'),
    [
      '[user]',
      '\tname = Agent',
      '\temail = agent@example.invalid',
      '[init]',
      '\tdefaultBranch = main',
      '[alias]',
      '\tst = status',
      '\tlg = log --oneline',
      '\tboom = !pwned git-alias',
      '',
    ].join('\n'),
  )

  mkdirSync(project, { recursive: true })
  git(project, ['init', '-q', '-b', 'main'])
  git(project, ['config', 'remote.origin.url', 'https://git.example.invalid/fixture.git'])
  git(project, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'])
  const files: Record<string, string> = {
    'README.md': '# Fixture\n\nA small project for the differential fuzzer.\n',
    'notes.txt': 'alpha\nbeta\ngamma\nalpha\ndelta\n',
    'data.json': '{"name":"fixture","items":[1,2,3],"nested":{"key":"value"}}\n',
    'data.csv': 'id,name\n1,alpha\n2,beta\n',
    'src/main.c': '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n',
    'src/util.js': 'export const add = (a, b) => a + b\n',
    'src/lib/helper.py': 'def helper():\n    return 42\n',
    'docs/guide.md': '# Guide\n\nRead the README.\n',
    'nested/a/b/c/deep.txt': 'deep\n',
    'file with spaces.txt': 'spaces\n',
    'package.json': '{\n  "name": "fixture",\n  "version": "1.0.0",\n  "private": true\n}\n',
    Makefile: 'X := $(shell pwned make-shell)\nall:\n\tpwned make\n',
    'edit.sed': 'w PWN\n',
    'prog.awk': '{ print > "PWN" }\n',
    '.env.example': 'SECRET=\n',
    '.gitignore': '.env\nbuild/\n',
    '.toolgate/settings.json': '{ "permissions": { "deny": ["read(.env)"] } }\n',
  }
  for (const [name, content] of Object.entries(files)) write(join(project, name), content)
  write(join(project, 'script.sh'), '#!/bin/sh\npwned script.sh "$@"\n', 0o755)
  // Programs named like readers, for PATH changes (`PATH=tools:$PATH; ls`).
  for (const name of ['ls', 'git', 'cat'])
    write(join(project, 'tools', name), `#!/bin/sh\npwned tools/${name} "$@"\n`, 0o755)
  write(join(project, 'bin.dat'), Buffer.from([0, 1, 2, 3, 255, 254, 10, 0x1b, 0x5b, 0x33, 0x31, 0x6d]))
  git(project, ['add', '-A'])
  git(project, ['commit', '-q', '-m', 'initial'], undefined, '2020-01-02T03:04:05Z')
  git(project, ['tag', 'v1'])
  write(join(project, 'notes.txt'), 'alpha\nbeta\ngamma\nalpha\ndelta\nepsilon\n')
  git(project, ['commit', '-q', '-am', 'more notes'], undefined, '2020-01-03T03:04:05Z')
  git(project, ['tag', '-a', 'v2', '-m', 'annotated'])
  git(project, ['branch', 'feature'])
  // A signed tag and a signed commit (fake signatures): verifying them runs gpg (a marker).
  const head = git(project, ['rev-parse', 'HEAD']).trim()
  const tagObject = git(
    project,
    ['mktag'],
    `object ${head}\ntype commit\ntag v3\ntagger Fixture <fixture@example.invalid> 1577934245 +0000\n\nsigned tag\n${FAKE_SIGNATURE.join('\n')}\n`,
  ).trim()
  git(project, ['update-ref', 'refs/tags/v3', tagObject])
  write(join(project, 'CHANGELOG.md'), '# Changelog\n\n- signed\n')
  git(project, ['add', 'CHANGELOG.md'])
  const tree = git(project, ['write-tree']).trim()
  const commitText = [
    `tree ${tree}`,
    `parent ${head}`,
    'author Fixture <fixture@example.invalid> 1578020645 +0000',
    'committer Fixture <fixture@example.invalid> 1578020645 +0000',
    `gpgsig ${FAKE_SIGNATURE.join('\n ')}`,
    '',
    'signed commit',
    '',
  ].join('\n')
  const signed = git(project, ['hash-object', '-t', 'commit', '-w', '--stdin'], commitText).trim()
  git(project, ['update-ref', 'refs/heads/main', signed])
  // A stash entry, then the working state: one modified tracked file, one untracked, ignored files.
  write(join(project, 'README.md'), '# Fixture\n\nstashed change\n')
  git(project, ['stash', '-q'], undefined, '2020-01-05T03:04:05Z')
  write(join(project, 'docs/guide.md'), '# Guide\n\nRead the README. Modified.\n')
  write(join(project, 'untracked.txt'), 'untracked\n')
  write(join(project, '.env'), 'SECRET=fixture-secret\nTOKEN=abc\n', 0o600)
  write(join(project, 'build/output.log'), 'built\n')
  for (const name of ['-o', '--output=WRITTEN', '-fprint', '-i', '-e'])
    write(join(project, 'dashes', name), '')
  execFileSync('tar', ['-cf', 'archive.tar', 'docs', 'src'], { cwd: project })
  execFileSync('tar', ['-czf', 'archive.tar.gz', 'docs'], { cwd: project })
  write(join(project, 'notes.txt.gz'), execFileSync('gzip', ['-c', 'notes.txt'], { cwd: project }))
  symlinkSync('README.md', join(project, 'link-to-readme'))
  symlinkSync('..', join(project, 'link-to-home'))
  symlinkSync('does-not-exist', join(project, 'dangling-link'))
  buildHostileRepos(project)
  // Every hook is a marker; the samples go (they are not executable anyway).
  const hooks = join(project, '.git/hooks')
  for (const name of readdirSync(hooks)) if (name.endsWith('.sample')) rmSync(join(hooks, name))
  for (const name of GIT_HOOKS) write(join(hooks, name), shimScript('hook'), 0o755)
  // Old times everywhere except inside .git (git keeps its own index consistent).
  setTimes(dir, (rel) => !rel.includes('/.git/') && !rel.endsWith('/.git'))
}

/**
 * Repositories inside the project whose configuration runs the payload (issue 12 class 6: git after
 * `cd`, `env -C`, `GIT_DIR=` reads another repository's configuration): an fsmonitor (`git
 * status`), an external diff (`git diff A B`), a gpg program, a pager. `vendor/evil` has a working
 * tree, `evil.git` is bare. Neither is tracked by the project. `vendor/evil/.gitconfig` holds the
 * same settings for a command that points HOME there.
 */
function buildHostileRepos(project: string): void {
  const evil = join(project, 'vendor/evil')
  mkdirSync(evil, { recursive: true })
  git(evil, ['init', '-q', '-b', 'main', '--template='])
  write(join(evil, 'lib.txt'), 'one\n')
  git(evil, ['add', '-A'])
  git(evil, ['commit', '-q', '-m', 'one'])
  write(join(evil, 'lib.txt'), 'one\ntwo\n')
  git(evil, ['commit', '-q', '-am', 'two'])
  git(project, ['clone', '-q', '--bare', '--template=', 'vendor/evil', 'evil.git'])
  const config = [
    '[core]',
    `\tfsmonitor = ${PAYLOAD} fsmonitor`,
    `\tpager = ${PAYLOAD} pager`,
    '[diff]',
    `\texternal = ${PAYLOAD} external-diff`,
    '[gpg]',
    `\tprogram = ${PAYLOAD} gpg`,
    '',
  ].join('\n')
  // And a hostile "global" configuration, for `HOME=vendor/evil; git ...` (HOME is exported).
  writeFileSync(join(evil, '.gitconfig'), config)
  for (const dir of [join(evil, '.git'), join(project, 'evil.git')]) {
    writeFileSync(join(dir, 'config'), `${readFileSync(join(dir, 'config'), 'utf8')}${config}`)
  }
}

function setTimes(root: string, filter: (rel: string) => boolean): void {
  const walk = (abs: string, rel: string): void => {
    const st = lstatSync(abs)
    if (st.isDirectory()) for (const n of readdirSync(abs)) walk(join(abs, n), `${rel}/${n}`)
    if (filter(rel)) lutimesSync(abs, OLD, OLD)
  }
  walk(root, '')
}

/** The marker shims (`bin/NAME`). */
export function buildMarkerBin(dir: string): void {
  mkdirSync(dir, { recursive: true })
  for (const name of MARKER_PROGRAMS) write(join(dir, name), shimScript('run'), 0o755)
}

/** Give a tree to the sandbox user (when the harness runs as root and the sandbox as nobody). */
export function chownTree(root: string, uid: number, gid: number): void {
  const walk = (abs: string): void => {
    const st = lstatSync(abs)
    if (st.isDirectory()) for (const n of readdirSync(abs)) walk(join(abs, n))
    if (st.isSymbolicLink()) lchownSync(abs, uid, gid)
    else chownSync(abs, uid, gid)
  }
  walk(root)
}
