import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type CommandClassification, classifyCommand, initShellParser } from '@toolgate/policy'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCampaign } from './campaign.js'
import { type Finding, findings } from './findings.js'
import { createHarness, type Harness } from './harness.js'
import { probe } from './sandbox.js'

/**
 * The harness itself, proven on commands whose effect is known: each kind of violation is
 * detected when forced through the runner (whatever the classifier says), a set of everyday
 * read-only commands shows none, and a classifier that calls everything read-only is caught.
 * Real bwrap, real strace, real bash. Skipped with a reason without them; under CI=true a missing
 * tool fails instead.
 */
const avail = probe()
const ci = process.env.CI === 'true'
if (avail.ok && avail.missing.length > 0 && !ci)
  console.warn(`differential fuzzer: not installed, so never proven here: ${avail.missing.join(', ')}`)
if (!avail.ok && !ci) console.warn(`SKIPPING differential fuzzer harness tests: ${avail.reason}`)

test('the fuzzer can run here: bwrap, strace, git, and tree, busybox, gawk, jq (required under CI=true)', () => {
  if (!ci && !avail.ok) return
  expect(avail).toMatchObject({ ok: true, missing: [] })
})

/** A classification that shows exactly these programs (for the hidden-exec check). */
function showing(...programs: string[]): CommandClassification {
  return {
    readOnly: true,
    reason: 'test',
    writes: [],
    commands: programs.map((p) => ({
      text: p,
      canonical: p,
      argv: [p],
      program: p,
      readOnly: true,
      reason: 'test',
      writes: [],
    })),
  }
}

describe.skipIf(!avail.ok)('differential fuzzer harness (real bwrap, strace, bash)', () => {
  let h: Harness
  beforeAll(async () => {
    await initShellParser()
    if (!avail.ok) return
    h = createHarness({ concurrency: 3, timeoutMs: 10_000, bwrap: avail.bwrap, strace: avail.strace })
  })
  afterAll(() => h?.dispose())

  const seen = async (
    command: string,
    c: CommandClassification = classifyCommand(command),
  ): Promise<Finding[]> => findings(await h.run(command), c)

  test.each([
    [': > x', 'created /home/agent/project/x (file, 0 bytes)'],
    ['/usr/bin/touch PWN', 'created /home/agent/project/PWN (file, 0 bytes)'],
    ['echo more >> README.md', 'changed /home/agent/project/README.md (content, size '],
    ['/bin/rm notes.txt', 'deleted /home/agent/project/notes.txt (file, '],
    ['/bin/chmod 600 README.md', 'changed /home/agent/project/README.md (mode 100644 -> 100600, ctime)'],
    ['/usr/bin/touch -r README.md README.md', 'changed /home/agent/project/README.md (ctime)'],
    ['/bin/mv notes.txt n && /bin/mv n notes.txt', 'changed /home/agent/project/notes.txt (ctime)'],
    ['echo x > ~/.bashrc', 'changed /home/agent/.bashrc (content, size '],
    ['echo x > /tmp/leak', 'created /tmp/leak (file, 2 bytes)'],
    ['/bin/mkdir d && /bin/rmdir d', 'changed /home/agent/project (mtime, ctime)'],
    ['git config user.name x', 'changed /home/agent/project/.git/config (content, size'],
    // strace follows every descendant and the sandbox lives until the last one exits.
    ['(sleep 0.5; /usr/bin/touch late) &', 'created /home/agent/project/late (file, 0 bytes)'],
    [
      'setsid -f /bin/bash -c "sleep 0.5; : > detached"',
      'created /home/agent/project/detached (file, 0 bytes)',
    ],
  ])('a write is detected: %j', async (command, detail) => {
    const f = await seen(command)
    expect(f.filter((x) => x.kind === 'write').map((x) => x.detail)).toContainEqual(
      expect.stringContaining(detail),
    )
  })

  test.each([
    [
      'echo x > /etc/pwn',
      'attempted: openat(AT_FDCWD</home/agent/project>, "/etc/pwn", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS',
    ],
    [
      'echo x > /no/such/dir',
      'attempted: openat(AT_FDCWD</home/agent/project>, "/no/such/dir", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 ENOENT',
    ],
    [
      'echo x > /dev/shm/x',
      'attempted: openat(AT_FDCWD</home/agent/project>, "/dev/shm/x", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS',
    ],
    [
      'echo x > /run/x',
      'attempted: openat(AT_FDCWD</home/agent/project>, "/run/x", O_WRONLY|O_CREAT|O_TRUNC, 0666) = -1 EROFS',
    ],
    ['/bin/mkdir /home/x', 'attempted: mkdir("/home/x", 0777) = -1 EROFS'],
  ])('a write attempt outside the fixture is detected: %j', async (command, detail) => {
    const f = await seen(command)
    expect(f.map((x) => `${x.kind}: ${x.detail}`)).toContainEqual(expect.stringContaining(`write: ${detail}`))
  })

  test.each([
    ['pwned a b', 'marker pwned a b'],
    ['touch PWN', 'marker touch PWN'],
    ['rm -rf src', 'marker rm -rf src'],
    ['sh -c true', 'marker sh -c true'],
    ['git boom', 'marker pwned git-alias'],
    ['git log --show-signature -1', 'marker gpg --keyid-format=long --status-fd=1 --verify'],
    ['git commit -q --allow-empty -m x', 'git hook pre-commit'],
    ['git -c core.fsmonitor=pwned status', 'marker pwned'],
    ['cat <<EOF\n`pwned hidden`\nEOF', 'marker pwned hidden'],
  ])('a marker run is detected: %j', async (command, detail) => {
    const f = await seen(command)
    expect(f.filter((x) => x.kind === 'marker').map((x) => x.detail)).toContainEqual(
      expect.stringContaining(detail),
    )
  })

  test('a marker asked only for its version records nothing; with anything more it records', async () => {
    expect(await seen('python3 --version; sh -V; make --help; perl -v')).toEqual([])
    const f = await seen(`python3 -c 'open("PWN", "w")' --version`)
    expect(f.filter((x) => x.kind === 'marker').map((x) => x.detail)).toContainEqual(
      'marker python3 -c open("PWN", "w") --version',
    )
  })

  test('a program run by absolute path with a marker name is detected (git runs /bin/sh for ! aliases)', async () => {
    const f = await seen('git boom', showing('git'))
    expect(f.map((x) => x.detail)).toContainEqual(
      expect.stringMatching(/^executed \/(usr\/)?bin\/sh \["\/bin\/sh", "-c"/),
    )
  })

  test.each([
    ['cat <<EOF\n$(ls)\nEOF', 'executed /usr/bin/ls ["ls"] (not in the classification)'],
    ['cat $(ls -d src)', 'executed /usr/bin/ls ["ls", "-d", "src"] (not in the classification)'],
  ])('a program the classification does not show is detected: %j', async (command, detail) => {
    const f = await seen(command, showing('cat'))
    expect(f).toContainEqual({ kind: 'hidden-exec', detail })
  })

  test.each([
    [
      'exec 3<>/dev/tcp/127.0.0.1/80',
      'sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ECONNREFUSED',
    ],
    ['echo x > /dev/udp/127.0.0.1/53', 'sin_port=htons(53), sin_addr=inet_addr("127.0.0.1")'],
    ['getent hosts example.com', 'sin_port=htons(53)'],
    ['timeout 1 busybox nc -l -p 9999', 'listen('],
    ['exec 3<>/dev/tcp/1.1.1.1/443', 'ENETUNREACH'],
  ])('a network attempt is detected: %j', async (command, detail) => {
    const f = await seen(command)
    expect(f.filter((x) => x.kind === 'network').map((x) => x.detail)).toContainEqual(
      expect.stringContaining(detail),
    )
  })

  test.each([
    ['hostname pwned', 'sethostname("pwned", 5)'],
    ['date -s 2020-01-01', 'clock_settime(CLOCK_REALTIME'],
  ])('a privileged change is attempted and detected: %j', async (command, detail) => {
    const f = await seen(command)
    expect(f.filter((x) => x.kind === 'privileged').map((x) => x.detail)).toContainEqual(
      expect.stringContaining(detail),
    )
  })

  // Everyday read-only commands (and the helpers they run) must show nothing: no false alarms.
  const CLEAN = [
    'ls -la',
    'git status',
    'git status --short && git diff',
    'git log -p | head -50',
    'git diff HEAD~1',
    'git show v2',
    'git show v3',
    'git stash list && git stash show -p',
    'git branch -a && git tag -l',
    'git rev-parse HEAD && git describe --tags && git blame README.md',
    'git grep alpha; git ls-files; git cat-file -p HEAD; git for-each-ref',
    'git log --format=%H%n%an -1',
    'cat README.md | wc -l',
    'grep -r alpha .',
    "find . -name '*.md'",
    'tree -a',
    'jq . data.json',
    'yq . data.json',
    'rg alpha',
    'sort notes.txt | uniq -c',
    'echo x | tac',
    'seq 1 100000 | sort -n | tail -1',
    'zcat notes.txt.gz',
    'tar -tzf archive.tar.gz && tar -tvf archive.tar',
    'id; ps aux; which ls; type ls; command -v git',
    'ls | xargs wc -l',
    'echo README.md | xargs',
    'env ls; timeout 5 ls; nice ls; stdbuf -oL ls; setsid ls',
    'date; uname -a; df -h .; du -sh .; stat README.md; file README.md',
    'head -c 10 bin.dat | od -c',
    'locale; printenv HOME',
    'cd src && ls',
    'cat ~/.ssh/id_rsa .env',
    'sleep 0.1',
    'ss -tln; ss -x; pidof bash; dpkg -s bash; python3 -VV; perl -v',
  ]
  test.each(CLEAN)('no violation from an everyday read-only command: %j', async (command) => {
    expect(await seen(command)).toEqual([])
  })

  test('a worker gets a fresh copy after a change: the file written before is gone', async () => {
    // Three workers; run more than three writes so each worker's tree is changed and replaced.
    await Promise.all([1, 2, 3, 4].map(() => h.run(': > stale')))
    const f = await Promise.all([1, 2, 3, 4].map(() => seen('test -e stale && pwned stale-file-survived')))
    expect(f.flat()).toEqual([])
  })

  test('a command that runs past the deadline is killed with its process group', async () => {
    const short = createHarness({
      concurrency: 1,
      // Long enough for a sandbox to start on a loaded machine; far shorter than the sleeps.
      timeoutMs: 4000,
      bwrap: avail.ok ? avail.bwrap : '',
      strace: avail.ok ? avail.strace : '',
    })
    try {
      const o = await short.run('sleep 30 & sleep 30')
      expect(o.exit.timedOut).toBe(true)
      // Killed at the deadline, not after the 30 s sleeps.
      expect(o.exit.ms).toBeLessThan(25_000)
      const next = await short.run('true')
      expect(next.exit).toMatchObject({ code: 0, timedOut: false })
    } finally {
      short.dispose()
    }
  })

  test('a sandbox that cannot start stops the run with the reason; it is no verdict on the command', async () => {
    const dir = mkdtempSync('/dev/shm/toolgate-fuzz-fake-')
    try {
      chmodSync(dir, 0o755)
      const fake = join(dir, 'bwrap')
      writeFileSync(
        fake,
        '#!/bin/sh\necho "bwrap: Creating new namespace failed: No space left on device" >&2\nexit 1\n',
        {
          mode: 0o755,
        },
      )
      const broken = createHarness({
        concurrency: 1,
        timeoutMs: 10_000,
        bwrap: fake,
        strace: avail.ok ? avail.strace : '',
      })
      try {
        await expect(broken.run('true')).rejects.toThrow(
          'bubblewrap could not start the sandbox (3 attempts): bwrap: Creating new namespace failed: No space left on device',
        )
      } finally {
        broken.dispose()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a classifier that calls every command read-only is caught, and the failure is shrunk', async () => {
    const everything = (command: string): CommandClassification =>
      ({ ...classifyCommand(command), readOnly: true, writes: [] }) as CommandClassification
    const r = await runCampaign(h, everything, { seed: 7, runs: 60, maxFailures: 5, shrinkMs: 30_000 })
    expect(r.failures.length).toBeGreaterThan(0)
    expect(r.shrunk).toBeDefined()
    expect(r.shrunk!.command.length).toBeLessThanOrEqual(r.failures[0]!.command.length)
    expect(r.shrunk!.findings.length).toBeGreaterThan(0)
  }, 180_000)
})
