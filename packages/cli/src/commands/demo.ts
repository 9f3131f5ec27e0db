// `toolgate demo`: the seed 000 walkthrough end to end, on a scripted model (no network, no
// endpoint), in a fresh temporary workspace. Exit 0 when the run completes.
import { scriptedModel } from '@toolgate/providers'
import type { ParsedArgs } from '../args.js'
import { DEMO_TASK, demoTurns, LINT_CALL_ID } from '../demo/script.js'
import { createDemoWorkspace } from '../demo/workspace.js'
import { EXIT, type ExitCode } from '../exit-codes.js'
import type { CliIO } from '../io.js'
import { drive } from './drive.js'

export async function demoCommand(parsed: ParsedArgs, io: CliIO): Promise<ExitCode> {
  const o = parsed.options
  let ws: ReturnType<typeof createDemoWorkspace>
  try {
    ws = createDemoWorkspace(typeof o.dir === 'string' ? o.dir : undefined)
  } catch (error) {
    io.stderr.write(
      `toolgate demo: could not create the workspace: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    return EXIT.config
  }
  const wantCode = o['no-code'] !== true
  const { code } = await drive({
    io,
    // The script's run_code turn is only played when Code Mode is really registered.
    model: (session) =>
      scriptedModel(demoTurns({ codeMode: session.codeMode }), { model: 'toolgate-demo-script' }),
    provider: 'scripted',
    root: ws.root,
    preset: 'workspace-write',
    approvalPolicy: 'on-request',
    logPath: ws.logPath,
    messages: [{ role: 'user', content: [{ type: 'text', text: DEMO_TASK }] }],
    system: 'You are the toolgate demo agent (a scripted model).',
    json: o.json === true,
    codeMode: wantCode,
    // The seed's step 10: the lint command is not read-only, so it needs approval; the sandbox is
    // not declared to the engine and the user's and the project's settings are ignored, so the
    // demo behaves the same on every machine.
    isolated: true,
    trustSandbox: false,
    forceAuto: o.yes === true,
    auto: (request) =>
      request.callId === LINT_CALL_ID
        ? {
            outcome: 'allowed-once',
            by: 'demo policy',
            line:
              o.yes === true
                ? 'auto-approved (--yes; demo policy: the scripted lint command runs in the throwaway workspace)'
                : 'auto-approved (not a TTY; demo policy: the scripted lint command runs in the throwaway workspace)',
          }
        : {
            outcome: 'rejected',
            by: 'demo policy',
            line: 'auto-rejected (demo policy: only the scripted lint command is approved)',
          },
    banner: (style, session) =>
      [
        `${style.bold('toolgate demo')} ${style.dim('— scripted model, no network')}`,
        `${style.dim('workspace')} ${ws.root}`,
        `${style.dim('sandbox')}   ${session.sandbox}`,
        `${style.dim('task')}      ${DEMO_TASK}`,
        '',
        '',
      ].join('\n'),
    summaryExtra: (_stats, peak) => [
      ['parallel', `at most ${peak} tool ${peak === 1 ? 'body' : 'bodies'} ran at once`],
      ['workspace', ws.root],
    ],
  })
  return code
}
