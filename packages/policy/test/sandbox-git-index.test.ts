import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { indexGitlinks } from '../src/sandbox/git-index.js'
import { base, hostGitEnv } from './sandbox-helpers.js'

// The index reader behind "repositories the command creates" (sandbox-escape "1b"): its gitlinks
// must be exactly the ones git itself lists, in every index version and object format.

const dir = base('gitindex')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const git = (cwd: string, args: string[]) => {
  const r = spawnSync('git', args, { cwd, env: hostGitEnv(dir), encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

describe.each(['sha1', 'sha256'] as const)('%s', (format) => {
  const repo = join(dir, format)
  mkdirSync(repo)
  git(repo, ['init', '-q', `--object-format=${format}`])
  for (const sub of ['a/b/sub', 'lib', `deep/${'x'.repeat(200)}/${'y'.repeat(200)}/s`]) {
    const path = join(repo, ...sub.split('/'))
    mkdirSync(path, { recursive: true })
    git(path, ['init', '-q', `--object-format=${format}`])
    writeFileSync(join(path, 'f'), 'f\n')
    git(path, ['add', 'f'])
    git(path, ['commit', '-qm', 'f'])
    git(repo, ['add', sub])
  }
  writeFileSync(join(repo, 'z'), 'z\n')
  writeFileSync(join(repo, 'intent'), 'w\n')
  git(repo, ['add', 'z'])
  git(repo, ['add', '-N', 'intent']) // an extended-flags entry (version 3)

  test.each([2, 3, 4])('index version %i: the gitlinks git lists', (version) => {
    if (version === 2) git(repo, ['rm', '-q', '--cached', 'intent'])
    git(repo, ['update-index', '--index-version', String(version)])
    const expected = git(repo, ['ls-files', '-s'])
      .split('\n')
      .filter((line) => line.startsWith('160000 '))
      .map((line) => line.split('\t')[1])
    expect(expected).toHaveLength(3)
    const hash = format === 'sha256' ? 32 : 20
    expect(indexGitlinks(join(repo, '.git', 'index'), hash)).toEqual(expected)
    // Read with the wrong object id size, the path lengths disagree: unknown, not a wrong list.
    expect(indexGitlinks(join(repo, '.git', 'index'), hash === 20 ? 32 : 20)).toBeUndefined()
  })
})

test('no index: no gitlinks; not an index: unknown', () => {
  expect(indexGitlinks(join(dir, 'missing'), 20)).toEqual([])
  writeFileSync(join(dir, 'junk'), 'DIRC\0\0\0\x05\0\0\0\x01')
  expect(indexGitlinks(join(dir, 'junk'), 20)).toBeUndefined()
})
