import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs'
import { basename, isAbsolute, join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { initShellParser, probeSandbox, registerSecretEnv } from '@toolgate/policy'
import { beforeAll, describe, expect, it } from 'vitest'
import { runProcess } from '../src/bash/process.js'
import { bashTool, createToolsEnv } from '../src/index.js'
import { harness, text } from './helpers.js'

beforeAll(async () => {
  await initShellParser()
})

/** Host pids whose argv[0] starts with `marker` (zombies waiting for a reaper do not count). */
function hostProcesses(marker: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').startsWith(marker)) continue
      if (readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true) continue
      found.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** Resolves once no process started with `exec -a <marker>` is left (bounded: 5 s, then fails). */
async function allGone(marker: string): Promise<void> {
  const end = Date.now() + 5000
  while (hostProcesses(marker).length > 0) {
    if (Date.now() > end)
      throw new Error(`processes ${hostProcesses(marker).join(', ')} (${marker}) are still running`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

let markers = 0
/** A unique argv[0] for the processes of one test. */
const marker = () => `toolgate-test-${process.pid}-${++markers}`

/** A full garbage collection on demand (the memory test measures what stays alive). */
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Resolves once `file` exists (polls, bounded; the command under test creates it). */
async function fileAppears(file: string, needsContent = true): Promise<void> {
  const end = Date.now() + 10_000
  while (!existsSync(file) || (needsContent && readFileSync(file, 'utf8').trim() === '')) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${file}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('bash', () => {
  it('a non-zero exit is a value, rendered with [exit code: N]', async () => {
    const h = harness()
    const r = await h.call('bash', { command: 'echo out; echo err >&2; exit 3' })
    expect(r.isError).toBe(false)
    expect(text(r)).toBe('out\n[stderr]\nerr\n[exit code: 3]')
    expect(r.value).toMatchObject({
      kind: 'foreground',
      exitCode: 3,
      signal: null,
      timedOut: false,
      sandbox: 'none',
    })
  })

  it('states empty output and runs in the workspace root', async () => {
    const h = harness()
    expect(text(await h.call('bash', { command: 'true' }))).toBe('(no output)')
    expect(text(await h.call('bash', { command: 'pwd' }))).toBe(h.root)
  })

  it('sets NO_COLOR, TERM, PAGER and GIT_PAGER', async () => {
    const h = harness()
    const r = await h.call('bash', { command: 'echo "$NO_COLOR $TERM $PAGER $GIT_PAGER"' })
    expect(text(r)).toBe('1 dumb cat cat')
  })

  it('bash gets the environment allowlist, never a key the process read or a credential-looking name', async () => {
    process.env.TOOLGATE_TEST_BASH_PROVIDER_KEY = 'sk-bash-test-0123456789'
    process.env.TOOLGATE_TEST_SETTING = 'visible'
    process.env.TOOLGATE_TEST_COPY = 'x-sk-bash-test-0123456789'
    process.env.SOME_SERVICE_TOKEN = 'tok'
    try {
      registerSecretEnv('TOOLGATE_TEST_BASH_PROVIDER_KEY')
      const h = harness({ environment: { allow: ['TOOLGATE_TEST_*'] } })
      const r = await h.call('bash', { command: 'env | grep -E "^(TOOLGATE_TEST|SOME_SERVICE)" | sort' })
      expect(text(r)).toBe('TOOLGATE_TEST_SETTING=visible')
      const git = await h.call('bash', {
        command: 'git config --get safe.bareRepository; git config --get core.fsmonitor',
      })
      expect(text(git)).toBe('explicit\nfalse')
    } finally {
      delete process.env.TOOLGATE_TEST_BASH_PROVIDER_KEY
      delete process.env.TOOLGATE_TEST_SETTING
      delete process.env.TOOLGATE_TEST_COPY
      delete process.env.SOME_SERVICE_TOKEN
    }
  })

  it('a spill cap that is not a whole number of bytes is refused', () => {
    for (const bad of [Number.NaN, 0, 1, 2.5, -4]) {
      expect(() => harness({ maxSpillBytes: bad })).toThrow(
        `builtinTools: maxSpillBytes must be a whole number of bytes, at least 2 (got ${String(bad)})`,
      )
    }
  })

  it('a credential-looking name in the configured allowlist is refused with what to do', () => {
    expect(() => harness({ environment: { allow: ['NPM_TOKEN', 'AWS_*', 'OK_NAME'] } })).toThrow(
      'builtinTools: environment.allow: NPM_TOKEN looks like a credential or a way to a host service; bash never gets it (run the command that needs it yourself); AWS_* looks like a credential or a way to a host service; bash never gets it (run the command that needs it yourself)',
    )
  })

  it('stdin is closed and there is no terminal: prompts fail at once', async () => {
    const h = harness()
    const started = Date.now()
    const r = await h.call('bash', {
      command: 'read x; echo "read=$?"; (echo > /dev/tty) 2>/dev/null; echo "tty=$?"',
    })
    expect(text(r)).toBe('read=1\ntty=1')
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('timeout kills the command and its children, including a child that ignores SIGTERM', async () => {
    const h = harness({ killGraceMs: 300 })
    const m = marker()
    const r = await h.call('bash', {
      command: `(trap '' TERM; exec -a ${m} sleep 30) & wait`,
      timeout_ms: 700,
    })
    expect(r.isError).toBe(false)
    expect(r.value).toMatchObject({ timedOut: true, exitCode: null })
    expect(text(r)).toBe(
      '(no output)\n[timed out after 700 ms: the command and its child processes were killed. Use a larger timeout_ms (max 600,000) or run_in_background for long-running commands]',
    )
    await allGone(m)
  })

  it("the call's abort kills the command and the call ends as aborted", async () => {
    const h = harness({ killGraceMs: 300 })
    const controller = new AbortController()
    const m = marker()
    const pending = h.call(
      'bash',
      { command: `touch started; exec -a ${m} sleep 30` },
      { signal: controller.signal },
    )
    await fileAppears(join(h.root, 'started'), false)
    controller.abort()
    const r = await pending
    expect(r.isError).toBe(true)
    expect(r.error?.kind).toBe('aborted')
    await allGone(m)
  })

  it('every process the command started ends with the call: &, output redirected away, setsid', async () => {
    const h = harness({ killGraceMs: 300 })
    const m = marker()
    const started = Date.now()
    const r = await h.call('bash', {
      command: [
        `(exec -a ${m}-a sleep 30) &`,
        `(exec -a ${m}-b sleep 30) >/dev/null 2>&1 &`,
        `setsid bash -c 'exec -a ${m}-c sleep 30' >/dev/null 2>&1 &`,
        // All three are running when the command ends (counted by argv[0] in its own /proc).
        `count() { n=0; for f in /proc/[0-9]*/cmdline; do case "$(tr '\\0' ' ' < "$f" 2>/dev/null)" in ${m}-?' '*) n=$((n+1));; esac; done; echo $n; }`,
        'until [ "$(count)" = 3 ]; do sleep 0.01; done; echo hi',
      ].join('\n'),
    })
    expect(text(r)).toBe('hi')
    expect(Date.now() - started).toBeLessThan(10_000)
    await allGone(`${m}-`)
  })

  it('without a pid namespace the process group is searched: leftovers are stopped and the model told', async () => {
    // The fallback when neither bubblewrap nor `unshare` works (see README, known limits).
    const m = marker()
    const sink = () => ({ write: () => true, onDrain: (resume: () => void) => resume() })
    const outcome = await runProcess({
      argv: ['bash', '-c', `(exec -a ${m} sleep 30) >/dev/null 2>&1 & echo started`],
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      signal: new AbortController().signal,
      killGraceMs: 300,
      stdout: sink(),
      stderr: sink(),
    })
    expect(outcome).toMatchObject({ exitCode: 0, stoppedLeftovers: true, timedOut: false })
    await allGone(m)
  })

  it('caps each stream, keeps the tail and spills the full output to a file', async () => {
    const h = harness({ maxCaptureBytes: 1000 })
    const r = await h.call('bash', { command: 'seq 1 1000; echo warn >&2' })
    const value = r.value as {
      stdout: { text: string; bytes: number; lines: number; spill: { path: string } }
    }
    const full = Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join('')
    expect(value.stdout.bytes).toBe(full.length)
    expect(value.stdout.lines).toBe(1000)
    expect(readFileSync(value.stdout.spill.path, 'utf8')).toBe(full)
    expect(value.stdout.spill).toEqual({
      path: value.stdout.spill.path,
      bytes: full.length,
      lines: 1000,
      omittedBytes: 0,
    })
    expect(full.endsWith(value.stdout.text)).toBe(true)
    expect(Buffer.byteLength(value.stdout.text)).toBeLessThanOrEqual(1000)
    const lines = text(r).split('\n')
    expect(lines[0]).toBe(
      `[stdout was 3,893 bytes (1,000 lines); only the last 1,000 bytes are shown. The full stdout is in ${value.stdout.spill.path}: read it with the read tool, e.g. offset=1 for its last 2,000 lines, or grep it]`,
    )
    expect(lines.slice(-3)).toEqual(['1000', '[stderr]', 'warn'])
    // The spill file is readable with read (the path the model is told).
    const read = await h.call('read', { path: value.stdout.spill.path, offset: 999 })
    expect(text(read)).toBe(
      `${value.stdout.spill.path}: lines 999-1,000 of 1,000\n   999\t999\n  1000\t1000\n[the whole file has 1,000 lines, within one read: read it without offset/limit instead of in pieces]`,
    )
  })

  it('publishSpill moves the spill file into the workspace; it is shown relative to the root', async () => {
    const moved: string[] = []
    const h = harness({
      maxCaptureBytes: 1000,
      publishSpill: async (file) => {
        const to = join(h.root, 'spill-out', basename(file))
        mkdirSync(join(h.root, 'spill-out'), { recursive: true })
        copyFileSync(file, to)
        moved.push(file)
        return to
      },
    })
    const r = await h.call('bash', { command: 'seq 1 1000' })
    const path = (r.value as { stdout: { spill: { path: string } } }).stdout.spill.path
    expect(path).toBe('spill-out/bash-stdout-1.log')
    expect(readFileSync(join(h.root, path), 'utf8')).toBe(
      Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join(''),
    )
    expect(moved.map((f) => existsSync(f))).toEqual([false]) // the private copy is removed
    expect(text(r).split('\n')[0]).toContain('The full stdout is in spill-out/bash-stdout-1.log: read it')
    const read = await h.call('read', { path, offset: 1000 })
    expect(text(read).split('\n')[1]).toBe('  1000\t1000')
  })

  it('a spill file that cannot be published stays in the session directory', async () => {
    const h = harness({
      maxCaptureBytes: 1000,
      publishSpill: async () => {
        throw new Error('EEXIST')
      },
    })
    const r = await h.call('bash', { command: 'seq 1 1000' })
    const path = (r.value as { stdout: { spill: { path: string } } }).stdout.spill.path
    expect(isAbsolute(path)).toBe(true)
    expect(readFileSync(path, 'utf8').split('\n')[999]).toBe('1000')
  })

  it('a spill file keeps the head and the tail: one call cannot fill the disk', async () => {
    const h = harness({ maxCaptureBytes: 100, maxSpillBytes: 1000 })
    const r = await h.call('bash', { command: 'seq 1 100000' })
    const value = r.value as {
      stdout: {
        bytes: number
        lines: number
        spill: { path: string; bytes: number; lines: number; omittedBytes: number }
      }
    }
    const full = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join('')
    const omitted = full.length - 1000
    const marker = `\n[toolgate: ${omitted} bytes of output omitted here; this file keeps the first 500 and the last 500 bytes]\n`
    const expected = full.slice(0, 500) + marker + full.slice(-500)
    expect(readFileSync(value.stdout.spill.path, 'utf8')).toBe(expected)
    expect(value.stdout.spill).toEqual({
      path: value.stdout.spill.path,
      bytes: expected.length,
      lines: expected.split('\n').length - 1,
      omittedBytes: omitted,
    })
    expect(text(r).split('\n')[0]).toBe(
      `[stdout was 588,895 bytes (100,000 lines); only the last 100 bytes are shown. Its first and last 500 bytes are in ${value.stdout.spill.path} (${(expected.split('\n').length - 1).toLocaleString('en-US')} lines; the 587,895 bytes between them were dropped): read it with the read tool, e.g. offset=1 for its last 2,000 lines, or grep it]`,
    )
    // The tail segments are gone; only the spill file is left in the session directory.
    expect(existsSync(`${value.stdout.spill.path}.tail0`)).toBe(false)
    expect(existsSync(`${value.stdout.spill.path}.tail1`)).toBe(false)
  })

  it('a 100 MB output never sits in memory: what stays alive is bounded, the spill keeps head and tail', async () => {
    const h = harness()
    // What is ALIVE, not what the collector has not reclaimed yet: sampled after a full GC. (The
    // heap before GC peaks anywhere from 11 to 73 MB on Node 24 with the same code: garbage.)
    gc()
    const base = process.memoryUsage()
    let peak = 0
    const sample = setInterval(() => {
      gc()
      const m = process.memoryUsage()
      peak = Math.max(peak, m.heapUsed - base.heapUsed + (m.arrayBuffers - base.arrayBuffers))
    }, 200)
    const r = await h.call('bash', { command: 'yes abcdefghi | head -c 100000000' })
    clearInterval(sample)
    const value = r.value as {
      stdout: {
        bytes: number
        lines: number
        text: string
        spill: { path: string; bytes: number; omittedBytes: number }
      }
    }
    expect(value.stdout.bytes).toBe(100_000_000)
    expect(value.stdout.lines).toBe(10_000_000)
    expect(Buffer.byteLength(value.stdout.text)).toBe(64 * 1024)
    expect(peak).toBeLessThan(24 * 1024 * 1024)
    // Default cap 32 MiB: the first and the last 16 MiB, the marker between.
    const half = 16 * 1024 * 1024
    const marker = `\n[toolgate: ${100_000_000 - 2 * half} bytes of output omitted here; this file keeps the first ${half} and the last ${half} bytes]\n`
    expect(value.stdout.spill.omittedBytes).toBe(100_000_000 - 2 * half)
    expect(statSync(value.stdout.spill.path).size).toBe(2 * half + marker.length)
    const at = (offset: number, length: number) => {
      const fd = openSync(value.stdout.spill.path, 'r')
      try {
        const b = Buffer.alloc(length)
        readSync(fd, b, 0, length, offset)
        return b.toString('latin1')
      } finally {
        closeSync(fd)
      }
    }
    expect(at(0, 20)).toBe('abcdefghi\nabcdefghi\n')
    expect(at(half - 6, 6 + marker.length + 6)).toBe(`abcdef${marker}efghi\n`)
    expect(at(2 * half + marker.length - 10, 10)).toBe('abcdefghi\n')
  }, 120_000)

  it('run_in_background returns the typed handle; job_output reads the job', async () => {
    const h = harness()
    const r = await h.call('bash', { command: 'echo started; echo more >&2', run_in_background: true })
    expect(r.value).toEqual({ kind: 'background', jobId: 'bash-1' })
    expect(text(r)).toBe(
      'Started background job bash-1. Read its output with job_output {"job_id": "bash-1"} (add "wait": true to wait for it to end); stop it with job_kill.',
    )
    const out = await h.call('job_output', { job_id: 'bash-1', wait: true, timeout_ms: 10_000 })
    expect(out.value).toMatchObject({ status: 'completed', exit: { exitCode: 0, signal: null } })
    expect((out.value as { output: string }).output.split('\n').sort()).toEqual(['', 'more', 'started'])
  })

  it('job_kill stops a background job and everything it started', async () => {
    const h = harness({ killGraceMs: 300 })
    const m = marker()
    await h.call('bash', {
      command: `touch started; setsid bash -c 'exec -a ${m}-a sleep 30' & exec -a ${m}-b sleep 30`,
      run_in_background: true,
    })
    await fileAppears(join(h.root, 'started'), false)
    const killed = await h.call('job_kill', { job_id: 'bash-1' })
    expect(killed.isError).toBe(false)
    await h.call('job_output', { job_id: 'bash-1', wait: true, timeout_ms: 10_000 })
    await allGone(`${m}-`)
  })

  it('runtime.dispose() ends a background job and everything it started, setsid included', async () => {
    const h = harness({ killGraceMs: 300 })
    const m = marker()
    await h.call('bash', {
      command: [
        `setsid bash -c 'exec -a ${m}-a sleep 30' >/dev/null 2>&1 &`,
        `(exec -a ${m}-b sleep 30) >/dev/null 2>&1 &`,
        `count() { n=0; for f in /proc/[0-9]*/cmdline; do case "$(tr '\\0' ' ' < "$f" 2>/dev/null)" in ${m}-?' '*) n=$((n+1));; esac; done; echo $n; }`,
        'until [ "$(count)" = 2 ]; do sleep 0.01; done; touch started; wait',
      ].join('\n'),
      run_in_background: true,
    })
    await fileAppears(join(h.root, 'started'), false)
    await h.runtime.dispose()
    await allGone(`${m}-`)
  })

  it('only commands the classifier calls read-only run in parallel', () => {
    const h = harness()
    const mode = (command: string) =>
      h.runtime.mode({ callId: 'm', name: 'bash', arguments: { command } }).kind
    expect(mode('ls -la && git status')).toBe('parallel')
    expect(mode('rm -rf build')).toBe('exclusive')
    expect(mode('echo hi > out.txt')).toBe('exclusive')
  })

  it('a failing mkdir skips the bash siblings after it (seed 003 §6.6); its exit stays a value, other tools run', async () => {
    const h = harness()
    const results = await h.runtime.executeBatch([
      { callId: 'b1', name: 'bash', arguments: { command: 'mkdir missing/build' } },
      { callId: 'b2', name: 'bash', arguments: { command: 'cd missing/build && echo made > out.txt' } },
      { callId: 'r1', name: 'ls', arguments: { path: '.' } },
      { callId: 'b3', name: 'bash', arguments: { command: 'ls missing/build' } },
    ])
    expect(results.map((r) => [r.callId, r.isError, r.error?.code])).toEqual([
      ['b1', false, undefined],
      ['b2', true, 'SKIPPED_AFTER_SIBLING_FAILURE'],
      ['r1', false, undefined],
      ['b3', true, 'SKIPPED_AFTER_SIBLING_FAILURE'],
    ])
    // The quotes around the name follow the host's locale.
    expect(text(results[0]!)).toMatch(
      /^\[stderr\]\nmkdir: cannot create directory .missing\/build.: No such file or directory\n\[exit code: 1\]$/,
    )
    expect(text(results[1]!)).toBe(
      'This bash call was skipped because an earlier bash call in the same batch (b1) failed; it had no effect. Check that failure, then re-issue this call if it still makes sense.',
    )
    expect(existsSync(join(h.root, 'missing'))).toBe(false)
  })

  it('exit 0 does not cascade', async () => {
    const h = harness()
    const results = await h.runtime.executeBatch([
      { callId: 'b1', name: 'bash', arguments: { command: 'mkdir made' } },
      { callId: 'b2', name: 'bash', arguments: { command: 'echo second > made/f && cat made/f' } },
    ])
    expect(results.map((r) => [r.isError, text(r)])).toEqual([
      [false, '(no output)'],
      [false, 'second'],
    ])
  })

  it('has terminal cards; malformed args give undefined', async () => {
    const h = harness()
    const def = bashTool(createToolsEnv({ root: h.root, sandbox: false }))
    const args = { command: 'echo a; echo b >&2; exit 2', description: 'Print two lines' }
    expect(def.presentCall?.(args)).toEqual({
      card: 'terminal',
      command: args.command,
      description: 'Print two lines',
    })
    const r = await h.call('bash', args)
    expect(def.presentResult?.(args, r)).toEqual({
      card: 'terminal',
      command: args.command,
      output: 'a\nb\n',
      exitCode: 2,
      signal: null,
    })
    expect(def.presentCall?.({ command: 7 } as never)).toBeUndefined()
  })
})

describe('bash under bubblewrap (workspace-write)', async () => {
  const probe = await probeSandbox()
  const ci = process.env.CI === 'true'
  if (!probe.available && ci) {
    it('bubblewrap is required under CI', () => {
      throw new Error(`bubblewrap is not available: ${probe.diagnostic}`)
    })
  }
  it.skipIf(!probe.available)('confines writes to the workspace and reports the enforcement', async () => {
    const h = harness({ sandbox: 'workspace-write', killGraceMs: 300 })
    const r = await h.call('bash', {
      command: 'echo ok > inside.txt && cat inside.txt; touch /etc/toolgate-escape 2>&1; echo "rc=$?"',
    })
    expect(r.value).toMatchObject({ sandbox: 'bubblewrap', exitCode: 0 })
    expect(text(r)).toMatch(/^ok\ntouch: cannot touch '\/etc\/toolgate-escape': Read-only file system\nrc=1$/)
    expect(readFileSync(join(h.root, 'inside.txt'), 'utf8')).toBe('ok\n')
  })
  it.skipIf(!probe.available)(
    'an auto-run file the command makes is renamed after it, and the model is told',
    async () => {
      const h = harness({ sandbox: 'workspace-write', killGraceMs: 300 })
      const r = await h.call('bash', { command: 'echo "echo evil" > .envrc && echo made' })
      expect(r.value).toMatchObject({
        sandbox: 'bubblewrap',
        exitCode: 0,
        notes: [
          'sandbox: .envrc was created by the command and renamed to .envrc.toolgate-blocked: direnv runs it as code when a shell enters the directory, so a command may not create it. Write it under another name and ask the user to put it in place.',
        ],
      })
      expect(text(r)).toBe(
        'made\n[sandbox: .envrc was created by the command and renamed to .envrc.toolgate-blocked: direnv runs it as code when a shell enters the directory, so a command may not create it. Write it under another name and ask the user to put it in place.]',
      )
      expect(existsSync(join(h.root, '.envrc'))).toBe(false)
      expect(readFileSync(join(h.root, '.envrc.toolgate-blocked'), 'utf8')).toBe('echo evil\n')
    },
  )
  it.skipIf(!probe.available)('timeout still kills everything inside the sandbox', async () => {
    const h = harness({ sandbox: 'workspace-write', killGraceMs: 300 })
    const started = Date.now()
    const r = await h.call('bash', { command: `(trap '' TERM; exec sleep 30) & wait`, timeout_ms: 500 })
    expect(r.value).toMatchObject({ timedOut: true })
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})
