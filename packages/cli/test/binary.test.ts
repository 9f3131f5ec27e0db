// Drives the REAL built binary: non-TTY runs (exit codes, cards, summary, log + replay, --json,
// `run` against a local OpenAI-compatible server, SIGINT, closed pipes, every I/O failure a user can
// cause) and a real pty under tmux (the approval prompt answered with a key). One build for the
// whole test run; tests spawn their processes concurrently, each with its own server.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { sandboxLine } from '../src/wiring.js'
import {
  BIN,
  buildBinary,
  call,
  collect,
  ENV,
  finish,
  localRun,
  type Ran,
  REPO,
  run,
  scriptServer,
  text,
  until,
  usage,
} from './binary-helpers.js'

beforeAll(async () => {
  expect(await buildBinary()).toEqual([])
}, 600_000)

describe.concurrent('toolgate binary, not a TTY', () => {
  test('demo: exit 0, the cards, the auto-decision, the summary; no ANSI; the log replays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bin-'))
    const r = await run(['demo', '--dir', dir])
    expect(r.stderr.replace(/^toolgate: note: .*\n/gm, '')).toBe('')
    expect(r.code).toBe(0)
    const out = r.stdout
    expect(out).not.toContain('\x1b')
    const { probeSandbox } = await import('@toolgate/policy')
    const probe = await probeSandbox()
    if (probe.status === 'enforced') {
      expect(out).toContain(
        "sandbox   bubblewrap, workspace-write profile: workspace writable except .git, hooks and toolgate's settings; credential stores, .env files and host sockets hidden; no network\n",
      )
    } else {
      expect(out).toContain(`sandbox   ${sandboxLine('workspace-write', probe)}\n`)
      expect(r.stderr).toContain(`toolgate: note: ${probe.diagnostic}`)
    }
    for (const line of [
      '▸ read Read package.json',
      '✓ read package.json · lines 1-9 of 9',
      '▸ edit README.md',
      '  │ +## Development',
      '▸ bash $ node scripts/lint.mjs src',
      '  ✓ approval bash $ node scripts/lint.mjs src: auto-approved (not a TTY; demo policy: the scripted lint command runs in the throwaway workspace)',
      '  │ src/util.js:2  error  Unexpected var, use let or const instead  no-var',
      '✗ write .git/hooks/pre-commit · PERMISSION_DENIED',
      '- I did not install the pre-commit hook: policy refused to write .git/hooks/pre-commit (git hooks are protected). Add it yourself if you want it.',
      'Summary',
      '  approvals 1 asked: 1 allowed-once',
    ]) {
      expect(out).toContain(line)
    }
    expect(out).toMatch(/^✓ bash \$ node scripts\/lint\.mjs src · exit 1 {2}\d/m)
    // The review batch of turn 4 (whether two bodies overlapped in time depends on the machine's
    // load; overlapProbe's own test gates it).
    for (const path of ['src/index.js', 'src/util.js', 'src/config.js']) {
      expect(out).toMatch(new RegExp(`^✓ read ${path.replace('.', '\\.')} · .* {2}\\d+(\\.\\d+)?m?s$`, 'm'))
    }
    expect(out).toMatch(/^✓ grep "\\bvar\\s" · 1 file, 1 match/m)
    expect(out).toMatch(/^ {2}calls {5}10: 9 ok, 1 permission_denied$/m)
    expect(out).toMatch(/^ {2}parallel {2}at most \d+ tool (body|bodies) ran at once$/m)
    const log = /^ {2}log {7}(.+)$/m.exec(out)?.[1]
    expect(log).toBe(join(dir, readdir(dir), 'session.jsonl'))
    const events = readFileSync(log!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; callId?: string })
    expect(events.filter((e) => e.type === 'tool/call').length).toBe(
      events.filter((e) => e.type === 'tool/result').length,
    )
    const replayed = await run(['replay', log!])
    expect(replayed.code).toBe(0)
    expect(replayed.stdout).toContain('✗ write .git/hooks/pre-commit · PERMISSION_DENIED')
    expect(replayed.stdout).toContain('  ✓ approval allowed-once by demo policy (demo_lint)')
  }, 300_000)

  test('--json: one JSON event per line on stdout, ending with the summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bin-json-'))
    const r = await run(['demo', '--json', '--no-code', '--dir', dir])
    expect(r.code).toBe(0)
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown })
    expect(events[0]).toEqual({ type: 'turn-start', turn: 1 })
    expect(events.filter((e) => e.type === 'tool-result').length).toBe(9)
    expect(events.at(-2)).toMatchObject({ type: 'done', reason: 'completed' })
    expect(events.at(-1)).toMatchObject({
      type: 'summary',
      exitCode: 0,
      calls: 9,
      outcomes: { ok: 8, permission_denied: 1 },
    })
    // The auto-decision line goes to stderr so stdout stays machine-readable.
    expect(r.stderr).toContain('auto-approved (not a TTY; demo policy')
  }, 300_000)

  test('--version, --help for every command, usage and config errors', async () => {
    const version = JSON.parse(readFileSync(join(REPO, 'packages/cli/package.json'), 'utf8'))
      .version as string
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `toolgate ${version}\n` })
    const top = await run(['--help'])
    expect(top.code).toBe(0)
    expect(top.stdout).toContain(
      'Exit codes: 0 ok, 1 task failed, 2 usage error, 3 config error, 130 interrupted.',
    )
    for (const cmd of ['demo', 'run', 'replay']) {
      const help = await run([cmd, '--help'])
      expect(help.code).toBe(0)
      expect(help.stdout).toContain(`Usage: toolgate ${cmd} [options]`)
    }
    expect(await run([])).toMatchObject({ code: 2 })
    expect(await run(['frobnicate'])).toMatchObject({
      code: 2,
      stderr:
        'toolgate: unknown command "frobnicate". Commands: demo, run, chat, replay, mcp. See `toolgate --help`.\n',
    })
    expect(await run(['demo', '--jsno'])).toMatchObject({
      code: 2,
      stderr: 'toolgate demo: unknown option --jsno (did you mean --json?). See `toolgate demo --help`.\n',
    })
    const noEndpoint = await run(['run', 'list the files'])
    expect(noEndpoint.code).toBe(3)
    expect(noEndpoint.stderr).toContain(
      'toolgate run: no model endpoint is configured. Set:\n  --provider anthropic|openai-chat|openai-responses',
    )
    const noKey = await run(['run', '--provider', 'anthropic', '--model', 'claude-x', 'hi'])
    expect(noKey).toMatchObject({
      code: 3,
      stderr:
        'toolgate run: the anthropic API needs a key: set ANTHROPIC_API_KEY (or TOOLGATE_API_KEY), or point --base-url at a server that needs none.\n',
    })
  }, 300_000)

  test('a closed pipe (toolgate demo | head): drawing stops, the run finishes, the log is complete', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bin-pipe-'))
    const child = spawn(process.execPath, [BIN, 'demo', '--dir', dir], {
      cwd: REPO,
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8')
    })
    // Like `head -1`: read the first chunk, then close the reading end.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
    child.stdout.destroy()
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
    expect(stderr.replace(/^toolgate: note: .*\n/gm, '')).toBe('')
    expect(code).toBe(0)
    const events = readFileSync(join(dir, readdir(dir), 'session.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string })
    const count = (type: string) => events.filter((e) => e.type === type).length
    // Every call of the scripted demo ran and was answered (13: 9 model calls, 1 run_code, 3 sub-calls).
    expect(count('tool/call')).toBe(count('tool/result'))
    expect(count('tool/result')).toBeGreaterThanOrEqual(10)
  }, 300_000)

  test.for([
    {
      what: 'a directory as --log',
      args: (root: string) => [...localRun('http://127.0.0.1:9/v1', root), '--log', root, 'hi'],
      stderr: (root: string) =>
        `toolgate: the log path ${root} is a directory; give a file name, e.g. ${join(root, 'session.jsonl')}\n`,
    },
    {
      what: 'a missing --root',
      args: (root: string) => [...localRun('http://127.0.0.1:9/v1', join(root, 'nope')), 'hi'],
      stderr: (root: string) =>
        `toolgate run: the workspace root ${join(root, 'nope')} does not exist; pass an existing directory to --root\n`,
    },
    {
      what: 'a base URL without a scheme',
      args: (root: string) => [...localRun('127.0.0.1:8080/v1', root), 'hi'],
      stderr: () =>
        'toolgate run: the base URL "127.0.0.1:8080/v1" is not a URL; write it with its scheme, e.g. http://127.0.0.1:8080/v1\n',
    },
    {
      what: 'a host:port base URL (parses as a scheme)',
      args: (root: string) => [...localRun('localhost:8080/v1', root), 'hi'],
      stderr: () =>
        'toolgate run: the base URL "localhost:8080/v1" has no http:// or https:// scheme; write it e.g. as http://localhost:8080/v1\n',
    },
    {
      what: 'a replayed file that is not a session log',
      args: (root: string) => {
        writeFileSync(join(root, 'bad.jsonl'), 'hello\n{"not":"an event"}\n')
        return ['replay', join(root, 'bad.jsonl')]
      },
      stderr: (root: string) =>
        `toolgate replay: ${join(root, 'bad.jsonl')} has no session event (2 lines are not session events); it is not a session log.\n`,
    },
    {
      what: 'a replayed log cut inside its first line',
      args: (root: string) => {
        writeFileSync(join(root, 'cut.jsonl'), '{"seq":1,"type":"tool/call","callId":"c')
        return ['replay', join(root, 'cut.jsonl')]
      },
      stderr: (root: string) =>
        `toolgate replay: ${join(root, 'cut.jsonl')} has no session event (1 line is not session events); it is not a session log.\n`,
    },
    {
      what: 'a missing replay log',
      args: (root: string) => ['replay', join(root, 'missing.jsonl')],
      stderr: (root: string) =>
        `toolgate replay: session log ${join(root, 'missing.jsonl')} does not exist\n`,
    },
  ])('$what: one line on stderr, exit 3, no stack trace', { timeout: 120_000 }, async ({ args, stderr }) => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-bin-io-'))
    const r = await run(args(root))
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 3, stderr: stderr(root) })
    expect(r.stdout).toBe('')
  })

  test('--approval never with --yes is a usage error', { timeout: 120_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-bin-never-'))
    const r = await run([...localRun('http://127.0.0.1:9/v1', root), '--approval', 'never', '--yes', 'hi'])
    expect(r).toMatchObject({
      code: 2,
      stderr:
        'toolgate run: --approval never denies every ask and --yes approves every ask: choose one (--yes alone approves asks; --approval never alone denies them).\n',
    })
  })

  test('a server that answers the streaming request with JSON: one line saying so, exit 3', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-bin-json-'))
    const server = await scriptServer([
      () => ({ json: { id: 'x', choices: [{ message: { content: 'hi' } }] } }),
    ])
    try {
      const r = await run([...localRun(server.baseUrl, root), 'hi'])
      expect(r.code).toBe(3)
      expect(r.stderr).not.toMatch(/^\s+at /m)
      const ended = r.stdout.split('\n').filter((l) => l.startsWith('■'))
      expect(ended).toEqual([
        `■ run ended: error — the model request failed: openai-chat answered the streaming request at ${server.baseUrl}/chat/completions with JSON, not an event stream (${JSON.stringify({ id: 'x', choices: [{ message: { content: 'hi' } }] })}). The server does not stream, or the base URL points at something else: check the base URL.`,
      ])
    } finally {
      await server.close()
    }
  }, 300_000)

  test('OPENAI_BASE_URL and ANTHROPIC_BASE_URL are honoured; an Anthropic base URL is the host root', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-bin-env-'))
    const openai = await scriptServer([() => [text('hello'), finish('stop')]])
    const anthropic = await scriptServer([() => [text('not anthropic')]])
    try {
      const viaOpenAI = await run(['run', '--model', 'm', '--root', root, 'hi'], {
        OPENAI_BASE_URL: openai.baseUrl,
      })
      expect(viaOpenAI.code).toBe(0)
      expect(viaOpenAI.stdout).toContain(`toolgate run — openai-chat m @ ${openai.baseUrl}`)
      expect(openai.requests.map((r) => r.url)).toEqual(['/v1/chat/completions'])
      const viaAnthropic = await run(['run', '--model', 'm', '--root', root, 'hi'], {
        ANTHROPIC_BASE_URL: anthropic.origin,
        ANTHROPIC_API_KEY: 'k',
      })
      expect(viaAnthropic.stdout).toContain(`toolgate run — anthropic m @ ${anthropic.origin}`)
      expect(anthropic.requests.map((r) => r.url)).toEqual(['/v1/messages'])
    } finally {
      await openai.close()
      await anthropic.close()
    }
  }, 300_000)
})

describe.concurrent('toolgate run against a local OpenAI-compatible server (127.0.0.1)', () => {
  test('a read, then the answer: exit 0, the tool result went back to the model', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-run-'))
    writeFileSync(join(root, 'notes.txt'), 'remember the milk\n')
    const server = await scriptServer([
      () => [call('call_1', 'read', { path: 'notes.txt' }), finish('tool_calls')],
      () => [text('It says: remember the milk.'), finish('stop')],
    ])
    try {
      const log = join(root, '..', `${root.split('/').pop()}.jsonl`)
      const r = await run([...localRun(server.baseUrl, root), '--log', log, 'What do my notes say?'])
      expect(r.stderr.replace(/^toolgate: note: .*\n/gm, '')).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('✓ read notes.txt · line 1 of 1')
      expect(r.stdout).toContain('It says: remember the milk.')
      expect(r.stdout).toContain(`  log       ${log}`)
      const toolMessage = server.requests[1]!.body.messages.find((m) => m.role === 'tool')
      expect(toolMessage?.tool_call_id).toBe('call_1')
      expect(JSON.stringify(toolMessage?.content)).toContain('remember the milk')
    } finally {
      await server.close()
    }
  }, 300_000)

  test.for([false, true])(
    'a command that needs approval: denied off a TTY without --yes, approved with it (--yes %s)',
    { timeout: 300_000 },
    async (yes) => {
      // A destructive command asks in every preset, sandbox or not (rm: see the policy README).
      const root = mkdtempSync(join(tmpdir(), 'toolgate-run-ask-'))
      writeFileSync(join(root, 'made.txt'), 'x')
      const server = await scriptServer([
        () => [call('call_t', 'bash', { command: 'rm made.txt' }), finish('tool_calls')],
        () => [text('ok'), finish('stop')],
      ])
      try {
        const r = await run([...localRun(server.baseUrl, root), ...(yes ? ['--yes'] : []), 'make a file'])
        expect(r.code).toBe(0)
        if (yes) {
          expect(r.stdout).toContain('auto-approved (--yes)')
          expect(existsSync(join(root, 'made.txt'))).toBe(false)
        } else {
          expect(r.stdout).toContain(
            'denied: it needs approval and there is no terminal to ask (pass --yes to approve asks)',
          )
          expect(r.stdout).toContain('· APPROVAL_UNAVAILABLE')
          expect(existsSync(join(root, 'made.txt'))).toBe(true)
        }
      } finally {
        await server.close()
      }
    },
  )

  test('with a working sandbox, run lets a command that only writes inside the workspace run unasked', async () => {
    const { probeSandbox } = await import('@toolgate/policy')
    const sandbox = await probeSandbox()
    if (sandbox.status !== 'enforced' && process.env.CI === 'true')
      throw new Error(`CI needs a fully enforced bubblewrap sandbox: ${sandbox.diagnostic}`)
    const root = mkdtempSync(join(tmpdir(), 'toolgate-run-sandboxed-'))
    const server = await scriptServer([
      () => [call('call_s', 'bash', { command: 'touch made.txt' }), finish('tool_calls')],
      () => [text('ok'), finish('stop')],
    ])
    try {
      const r = await run([...localRun(server.baseUrl, root), 'make a file'])
      expect(r.code).toBe(0)
      // Confined by bubblewrap: no prompt needed. Without a sandbox that holds, the engine asks (fail closed).
      expect(existsSync(join(root, 'made.txt'))).toBe(sandbox.status === 'enforced')
      // The banner says which sandbox is in force.
      expect(r.stdout).toContain(`sandbox   ${sandboxLine('workspace-write', sandbox)}\n`)
      // run_code is offered, so the system prompt carries the SDK declaration of the callable tools.
      const system = server.requests[0]!.body.messages.find((m) => m.role === 'system')?.content
      expect(String(system)).toContain('declare const tools')
      expect(String(system)).toContain('ToolArgsMap')
    } finally {
      await server.close()
    }
  }, 300_000)

  test('SIGINT: the running call is aborted and gets its result, the log is flushed, exit 130', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-run-int-'))
    const log = join(root, '..', `${root.split('/').pop()}.jsonl`)
    const server = await scriptServer([
      () => [
        call('call_s', 'bash', { command: 'echo started > started.txt && sleep 30' }),
        finish('tool_calls'),
      ],
      () => 'hang',
    ])
    try {
      const child = spawn(
        process.execPath,
        [BIN, ...localRun(server.baseUrl, root), '--yes', '--log', log, 'wait'],
        { cwd: REPO, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      const ran = new Promise<Ran>((done) => collect(child, done))
      // Wait (bounded) until the command is really running: it wrote its marker file.
      await until(() => existsSync(join(root, 'started.txt')), 180_000, 'the command to start')
      child.kill('SIGINT')
      const r = await ran
      expect(r.code).toBe(130)
      expect(r.stderr).toContain('toolgate: interrupted — stopping the run')
      const events = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; callId?: string; error?: { kind: string } })
      const result = events.find((e) => e.type === 'tool/result' && e.callId === 'call_s')
      expect(result?.error?.kind).toBe('aborted')
      expect(r.stdout).toContain('✗ bash $ echo started > started.txt && sleep 30 · ABORTED')
    } finally {
      await server.close()
    }
  }, 300_000)
})

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0
const CI = process.env.CI === 'true'
if (!HAS_TMUX && !CI)
  console.warn('SKIPPED: the pty tests need tmux (apt-get install -y tmux); under CI=true they fail instead')

describe.skipIf(!HAS_TMUX && !CI).concurrent('toolgate demo under a real pty (tmux)', () => {
  const socket = `toolgate-test-${process.pid}`
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
  afterAll(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server'])
  })

  /** Start the demo in a detached 160x50 pane; the shell prints the exit code and keeps the pane. */
  const start = (name: string, env = '') => {
    const dir = mkdtempSync(join(tmpdir(), `toolgate-pty-${name}-`))
    const command = `cd ${REPO} && env ${env} node ${BIN} demo --no-code --dir ${dir}; echo "[exit $?]"; read _`
    tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '50', command)
    return dir
  }
  const screen = (name: string, escapes = false) =>
    tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-400', '-t', name)
  const waitFor = async (name: string, text: string) => {
    await until(() => screen(name).includes(text), 90_000, `"${text}" on the screen`).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n--- screen ---\n${screen(name)}`)
      },
    )
  }

  test('y at the prompt allows the lint command once; colours on a TTY', async () => {
    start('allow')
    await waitFor('allow', 'Approve bash $ node scripts/lint.mjs src')
    // The whole command is shown; no session grant for an interpreter (policy issue 12 §7).
    expect(screen('allow')).toContain('│ node scripts/lint.mjs src')
    expect(screen('allow')).toContain('y allow once  n reject')
    tmux('send-keys', '-t', 'allow', 'y')
    await waitFor('allow', '[exit 0]')
    const text = screen('allow')
    expect(text).toContain('allowed once')
    expect(text).toMatch(/✓ bash \$ node scripts\/lint\.mjs src · exit 1 {2}\d/)
    expect(text).toContain('approvals 1 asked: 1 allowed-once')
    // On a TTY the diff card is coloured: green additions.
    expect(screen('allow', true)).toContain('\x1b[32m+## Development')
  }, 300_000)

  test('n at the prompt rejects: the call fails as APPROVAL_REJECTED and the answer says so', async () => {
    start('reject')
    await waitFor('reject', 'Approve bash $ node scripts/lint.mjs src')
    tmux('send-keys', '-t', 'reject', 'n')
    await waitFor('reject', '[exit 0]')
    const text = screen('reject')
    expect(text).toContain('rejected')
    expect(text).toContain('✗ bash $ node scripts/lint.mjs src · APPROVAL_REJECTED')
    expect(text).toContain('- The linter did not run (it was not approved).')
    expect(text).toMatch(/approvals 1 asked: 1 rejected/)
  }, 300_000)

  test('a is not offered for an interpreter (node runs a script the model can edit): the key does nothing', async () => {
    start('session')
    await waitFor('session', 'Approve bash $ node scripts/lint.mjs src')
    tmux('send-keys', '-t', 'session', 'a')
    tmux('send-keys', '-t', 'session', 'y')
    await waitFor('session', '[exit 0]')
    expect(screen('session')).toContain('allowed once')
    expect(screen('session')).not.toContain('allowed for this session')
  }, 300_000)

  test('NO_COLOR on a TTY: no colour escapes at all', async () => {
    start('nocolor', 'NO_COLOR=1')
    await waitFor('nocolor', 'Approve bash')
    tmux('send-keys', '-t', 'nocolor', 'y')
    await waitFor('nocolor', '[exit 0]')
    expect(screen('nocolor', true)).not.toContain('\x1b[3')
  }, 300_000)
})

describe.skipIf(!HAS_TMUX && !CI).concurrent('toolgate chat under a real pty (tmux)', () => {
  const socket = `toolgate-chat-test-${process.pid}`
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
  afterAll(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server'])
  })
  const screen = (name: string) => tmux('capture-pane', '-p', '-J', '-S', '-400', '-t', name)
  const waitFor = async (name: string, text: string | RegExp) => {
    const seen = () => (typeof text === 'string' ? screen(name).includes(text) : text.test(screen(name)))
    await until(seen, 180_000, `${String(text)} on the screen`).catch((error: Error) => {
      throw new Error(`${error.message}\n--- screen ---\n${screen(name)}`)
    })
  }
  /** `toolgate` with no command, configured by the environment, in a 120x50 pane. */
  const start = (name: string, baseUrl: string, root: string, env = '') =>
    tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      '120',
      '-y',
      '50',
      `cd ${root} && env ${env} TOOLGATE_PROVIDER=openai-chat TOOLGATE_BASE_URL=${baseUrl} TOOLGATE_MODEL=gpt-4.1-mini node ${BIN}; echo "[exit $?]"; read _`,
    )

  test('a session: streamed reply and status line; Ctrl-C cancels a turn and the session goes on; ask_user; an approval; /preset; Ctrl-C twice leaves', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-chat-pty-'))
    writeFileSync(join(root, 'scratch.txt'), 'x')
    const server = await scriptServer([
      () => [text('Hello! '), text('What shall we do?'), finish('stop'), usage(5200, 12)],
      () => 'hang',
      () => [
        call('q1', 'ask_user', { question: 'Tabs or spaces?', choices: ['tabs', 'spaces'] }),
        finish('tool_calls'),
      ],
      (_n, body) => [text(`Noted: ${String(body.messages.at(-1)?.content)}`), finish('stop')],
      () => [call('b1', 'bash', { command: 'rm -f scratch.txt' }), finish('tool_calls')],
      () => [text('Removed.'), finish('stop')],
      () => [call('b2', 'bash', { command: 'touch made.txt' }), finish('tool_calls')],
      (_n, body) => [text(`Result: ${String(body.messages.at(-1)?.content).slice(0, 60)}`), finish('stop')],
    ])
    try {
      start('s', server.baseUrl, root)
      await waitFor('s', 'Type a message and press Enter.')
      tmux('send-keys', '-t', 's', 'hello there', 'Enter')
      await waitFor(
        's',
        // The status line: model, the context used (the last request's prompt + reply) of the
        // window, the cost at gpt-4.1-mini's list price, the preset.
        'Hello! What shall we do?\n── gpt-4.1-mini · 5.2k/1.0M tokens · $0.0021 · workspace-write',
      )
      // A turn that hangs: the spinner waits for the model, Ctrl-C cancels, the prompt comes back.
      tmux('send-keys', '-t', 's', 'wait for me', 'Enter')
      await waitFor('s', 'waiting for gpt-4.1-mini')
      tmux('send-keys', '-t', 's', 'C-c')
      await waitFor('s', '(cancelling the turn — every running call gets its result; Ctrl-C again to leave)')
      await waitFor('s', /· workspace-write · aborted\n\n›/)
      // ask_user at the terminal: a number picks a choice.
      tmux('send-keys', '-t', 's', 'format the code', 'Enter')
      await waitFor('s', '? The agent asks: Tabs or spaces?')
      tmux('send-keys', '-t', 's', '2', 'Enter')
      await waitFor('s', 'Noted: The user answered: spaces')
      // An approval prompt inside the session.
      tmux('send-keys', '-t', 's', 'clean up', 'Enter')
      await waitFor('s', 'Approve bash $ rm -f scratch.txt')
      tmux('send-keys', '-t', 's', 'y')
      await waitFor('s', 'Removed.')
      expect(existsSync(join(root, 'scratch.txt'))).toBe(false)
      tmux('send-keys', '-t', 's', '/preset read-only', 'Enter')
      await waitFor('s', 'preset read-only from the next call on')
      // The preset is the sandbox profile too: approved, the write still fails in the kernel.
      tmux('send-keys', '-t', 's', 'make a file', 'Enter')
      await waitFor('s', 'Approve bash $ touch made.txt')
      tmux('send-keys', '-t', 's', 'y')
      await waitFor('s', 'Result: ')
      const { probeSandbox } = await import('@toolgate/policy')
      if ((await probeSandbox()).status === 'enforced') {
        expect(existsSync(join(root, 'made.txt'))).toBe(false)
        await waitFor('s', /Read-only file system/)
      } else if (CI) throw new Error('CI needs a fully enforced bubblewrap sandbox')
      tmux('send-keys', '-t', 's', 'C-c')
      await waitFor('s', '(press Ctrl-C again or Ctrl-D to leave)')
      tmux('send-keys', '-t', 's', 'C-c')
      await waitFor('s', '[exit 130]')
      const text2 = screen('s')
      expect(text2).toMatch(/\n {2}approvals 2 asked: 2 allowed-once\n/)
      // The log replays the conversation and who approved what.
      const log = /^ {2}log +(.+)$/m.exec(text2)![1]!
      const replayed = await run(['replay', log])
      for (const line of [
        '› hello there',
        'Hello! What shall we do?',
        '› format the code',
        '  ✓ approval allowed-once by the user at the prompt (allowed once) (b1)',
        '· preset read-only from here on',
      ])
        expect(replayed.stdout).toContain(line)
    } finally {
      await server.close()
    }
  }, 300_000)

  test('the status line counts an MCP server that is still starting', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-chat-pty-mcp-'))
    // A server from the user's own settings (trusted) that never answers `initialize`: it stays
    // pending for the whole session (its start-up deadline is the longest the loader accepts).
    const home = mkdtempSync(join(tmpdir(), 'toolgate-chat-pty-home-'))
    writeFileSync(
      join(home, 'settings.json'),
      JSON.stringify({
        mcpServers: { slow: { command: 'sleep', args: ['600'], startupTimeoutMs: 600_000 } },
      }),
    )
    const server = await scriptServer([() => [text('Hi.'), finish('stop'), usage(5200, 12)]])
    try {
      start('m', server.baseUrl, root, `TOOLGATE_HOME=${home}`)
      await waitFor('m', 'mcp       slow: pending')
      tmux('send-keys', '-t', 'm', 'hello', 'Enter')
      await waitFor(
        'm',
        'Hi.\n── gpt-4.1-mini · 5.2k/1.0M tokens · $0.0021 · workspace-write · mcp: 1 starting\n',
      )
      tmux('send-keys', '-t', 'm', 'C-d')
      await waitFor('m', '[exit 0]')
    } finally {
      await server.close()
    }
  }, 300_000)

  test('Ctrl-D at the prompt leaves with exit 0', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-chat-pty-d-'))
    const server = await scriptServer([])
    try {
      start('d', server.baseUrl, root)
      await waitFor('d', 'Type a message and press Enter.')
      tmux('send-keys', '-t', 'd', 'C-d')
      await waitFor('d', '[exit 0]')
      expect(screen('d')).toContain('approvals none asked')
    } finally {
      await server.close()
    }
  }, 300_000)
})

function readdir(dir: string): string {
  const entries = execFileSync('ls', [dir], { encoding: 'utf8' }).trim().split('\n')
  expect(entries.length).toBe(1)
  return entries[0]!
}
