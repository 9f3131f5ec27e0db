import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseGitConfig, readGitConfig } from '@toolgate/policy'
import fc from 'fast-check'
import { afterAll, describe, expect, test } from 'vitest'

// The host-side git config reader (issue 11 §6: read core.hooksPath "safely — parse the file, do not
// run git with the workspace config"), proven against real git: whatever git reads from a file, the
// reader reads the same.

const dir = mkdtempSync(join(tmpdir(), 'toolgate-gitconfig-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const pairs = (text: string) => parseGitConfig(text, 'f').map((e) => [e.key, e.value])

/** What real git reads from the file (`git config -f --list -z`), or undefined when git refuses it. */
function gitReads(text: string): string[][] | undefined {
  const file = join(dir, 'config')
  writeFileSync(file, text)
  const r = spawnSync('git', ['config', '-f', file, '--list', '-z'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  })
  if (r.status !== 0) return undefined
  return r.stdout
    .split('\0')
    .filter((e) => e !== '')
    .map((e) => {
      const nl = e.indexOf('\n')
      return nl === -1 ? [e, 'true'] : [e.slice(0, nl), e.slice(nl + 1)]
    })
}

describe('parseGitConfig', () => {
  test('sections, subsections, quoting, escapes, comments, continuations, bare keys', () => {
    const text = [
      '# comment',
      '[core]',
      '\thooksPath = .husky ; trailing comment',
      '\tFsMonitor = "touch x; false"',
      '[remote "origin \\"o\\""]',
      '\turl = a\\',
      'b',
      '\tflag',
      '[Section.Sub]',
      '\tkey = " spaced "  # c',
      '\tesc = tab\\there\\nnl\\\\',
    ].join('\n')
    expect(pairs(text)).toEqual([
      ['core.hookspath', '.husky'],
      ['core.fsmonitor', 'touch x; false'],
      ['remote.origin "o".url', 'ab'],
      ['remote.origin "o".flag', 'true'],
      ['section.sub.key', ' spaced '],
      ['section.sub.esc', 'tab\there\nnl\\'],
    ])
    expect(gitReads(text)).toEqual(pairs(text))
  })

  test('includes are followed (relative to the including file), missing targets still listed', () => {
    writeFileSync(join(dir, 'main'), '[include]\n\tpath = inc\n[includeIf "gitdir:/x/"]\n\tpath = missing\n')
    writeFileSync(join(dir, 'inc'), '[core]\n\thooksPath = hooks\n')
    const read = readGitConfig(join(dir, 'main'), dir)
    expect(read.files).toEqual([join(dir, 'main'), join(dir, 'inc'), join(dir, 'missing')])
    expect(read.entries.map((e) => [e.key, e.value])).toEqual([
      ['include.path', 'inc'],
      ['core.hookspath', 'hooks'],
      ['includeif.gitdir:/x/.path', 'missing'],
    ])
  })

  test('an include loop ends', () => {
    writeFileSync(join(dir, 'loop'), '[include]\n\tpath = loop\n')
    expect(readGitConfig(join(dir, 'loop'), dir).files).toEqual([join(dir, 'loop')])
  })

  test('differential against git: random files read the same (when git accepts them)', () => {
    const name = fc.constantFrom('hooksPath', 'path', 'fsmonitor', 'k-1', 'URL')
    const valueChar = fc.constantFrom('a', 'Z', '0', ' ', '\t', '"', '\\', '#', ';', '=', '.', '/', '~', 'é')
    const value = fc.array(valueChar, { maxLength: 12 }).map((cs) => cs.join(''))
    const line = fc.oneof(
      fc.tuple(name, value).map(([n, v]) => `\t${n} = ${v}`),
      fc.tuple(name, value).map(([n, v]) => `${n}=${JSON.stringify(v)}`),
      name.map((n) => `\t${n}`),
      fc.constantFrom('# c', '; c', '', '   '),
      fc.constantFrom('[core]', '[include]', '[a "b c"]', '[x.Y]', '[includeIf "gitdir:~/"]'),
      fc.tuple(name, value, value).map(([n, a, b]) => `\t${n} = ${a}\\\n${b}`),
    )
    let compared = 0
    const runs = Number(process.env.GIT_CONFIG_RUNS ?? 200)
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), (lines) => {
        const text = `[core]\n${lines.join('\n')}\n`
        const git = gitReads(text)
        if (git === undefined) return
        compared++
        expect(pairs(text)).toEqual(git)
      }),
      { numRuns: runs },
    )
    // Not vacuous: most generated files are ones git accepts.
    expect(compared).toBeGreaterThan(runs / 4)
  }, 120_000)
})
