import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { initShellParser, probeSandbox } from '@toolgate/policy'
import { beforeAll, describe, expect, it } from 'vitest'
import { bashTool, createToolsEnv } from '../src/index.js'
import { harness, text } from './helpers.js'

beforeAll(async () => {
  await initShellParser()
})

/** True when no live process has this pid (a zombie waiting for a reaper counts as gone). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return true
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true
  } catch {
    return true
  }
}

/** Resolves once `file` exists (polls; the command under test creates it). */
async function fileAppears(file: string): Promise<void> {
  while (!existsSync(file) || readFileSync(file, 'utf8').trim() === '')
    await new Promise((r) => setTimeout(r, 10))
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

  it('stdin is closed and there is no terminal: prompts fail at once', async () => {
    const h = harness()
    const started = Date.now()
    const r = await h.call('bash', {
      command: 'read x; echo "read=$?"; (echo > /dev/tty) 2>/dev/null; echo "tty=$?"',
    })
    expect(text(r)).toBe('read=1\ntty=1')
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('timeout kills the whole process group, including a child that ignores SIGTERM', async () => {
    const h = harness({ killGraceMs: 300 })
    const pidFile = join(h.root, 'child.pid')
    const r = await h.call('bash', {
      command: `(trap '' TERM; echo $BASHPID > child.pid; exec sleep 30) & wait`,
      timeout_ms: 700,
    })
    expect(r.isError).toBe(false)
    expect(r.value).toMatchObject({ timedOut: true, exitCode: null })
    expect(text(r)).toBe(
      '(no output)\n[timed out after 700 ms: the command and its child processes were killed. Use a larger timeout_ms (max 600,000) or run_in_background for long-running commands]',
    )
    const pid = Number(readFileSync(pidFile, 'utf8'))
    expect(gone(pid)).toBe(true)
  })

  it("the call's abort kills the group and the call ends as aborted", async () => {
    const h = harness({ killGraceMs: 300 })
    const controller = new AbortController()
    const pidFile = join(h.root, 'p.pid')
    const pending = h.call('bash', { command: 'echo $$ > p.pid; sleep 30' }, { signal: controller.signal })
    await fileAppears(pidFile)
    controller.abort()
    const r = await pending
    expect(r.isError).toBe(true)
    expect(r.error?.kind).toBe('aborted')
    expect(gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true)
  })

  it('stops processes left holding the output after the shell exits', async () => {
    const h = harness({ killGraceMs: 300 })
    const started = Date.now()
    const r = await h.call('bash', { command: 'echo hi; sleep 30 &' })
    expect(Date.now() - started).toBeLessThan(5000)
    expect(text(r)).toBe(
      'hi\n[processes the command left running in the background were stopped; use run_in_background for servers and watchers]',
    )
  })

  it('caps each stream, keeps the tail and spills the full output to a file', async () => {
    const h = harness({ maxCaptureBytes: 1000 })
    const r = await h.call('bash', { command: 'seq 1 1000; echo warn >&2' })
    const value = r.value as {
      stdout: { text: string; bytes: number; spill: { path: string; bytes: number; lines: number } }
    }
    const full = Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join('')
    expect(value.stdout.bytes).toBe(full.length)
    expect(readFileSync(value.stdout.spill.path, 'utf8')).toBe(full)
    expect(value.stdout.spill).toEqual({ path: value.stdout.spill.path, bytes: full.length, lines: 1000 })
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

  it('a 100 MB output never sits in memory: heap growth stays bounded and the spill has every byte', async () => {
    const h = harness()
    const base = process.memoryUsage()
    let peak = 0
    const sample = setInterval(() => {
      const m = process.memoryUsage()
      peak = Math.max(peak, m.heapUsed - base.heapUsed + (m.arrayBuffers - base.arrayBuffers))
    }, 5)
    const r = await h.call('bash', { command: 'yes abcdefghi | head -c 100000000' })
    clearInterval(sample)
    const value = r.value as {
      stdout: { bytes: number; text: string; spill: { path: string; lines: number } }
    }
    expect(value.stdout.bytes).toBe(100_000_000)
    expect(statSync(value.stdout.spill.path).size).toBe(100_000_000)
    expect(value.stdout.spill.lines).toBe(10_000_000)
    expect(Buffer.byteLength(value.stdout.text)).toBe(64 * 1024)
    expect(peak).toBeLessThan(40 * 1024 * 1024)
  }, 60_000)

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

  it('job_kill stops a background job and its process group', async () => {
    const h = harness({ killGraceMs: 300 })
    const pidFile = join(h.root, 'bg.pid')
    await h.call('bash', { command: 'echo $$ > bg.pid; sleep 30', run_in_background: true })
    await fileAppears(pidFile)
    const killed = await h.call('job_kill', { job_id: 'bash-1' })
    expect(killed.isError).toBe(false)
    await h.call('job_output', { job_id: 'bash-1', wait: true, timeout_ms: 10_000 })
    expect(gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true)
  })

  it('only commands the classifier calls read-only run in parallel', () => {
    const h = harness()
    const mode = (command: string) =>
      h.runtime.mode({ callId: 'm', name: 'bash', arguments: { command } }).kind
    expect(mode('ls -la && git status')).toBe('parallel')
    expect(mode('rm -rf build')).toBe('exclusive')
    expect(mode('echo hi > out.txt')).toBe('exclusive')
  })

  it('a non-zero exit does not skip later bash siblings (it is a value, not a failure)', async () => {
    const h = harness()
    const results = await h.runtime.executeBatch([
      { callId: 'b1', name: 'bash', arguments: { command: 'exit 1' } },
      { callId: 'b2', name: 'bash', arguments: { command: 'echo second' } },
    ])
    expect(results.map((r) => [r.isError, text(r)])).toEqual([
      [false, '(no output)\n[exit code: 1]'],
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
  it.skipIf(!probe.available)('timeout still kills everything inside the sandbox', async () => {
    const h = harness({ sandbox: 'workspace-write', killGraceMs: 300 })
    const started = Date.now()
    const r = await h.call('bash', { command: `(trap '' TERM; exec sleep 30) & wait`, timeout_ms: 500 })
    expect(r.value).toMatchObject({ timedOut: true })
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})
