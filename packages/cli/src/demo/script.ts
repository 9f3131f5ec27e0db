// The scripted model of `toolgate demo` (seed 000 steps 8-10, then the parts the seeds stress):
// read package.json, edit the README (diff card), run the linter (needs approval), a parallel batch
// of reads and a search, a dangerous write that policy refuses, optionally one run_code, and a final
// answer that reflects what actually happened (a function of the last request).
import type { ModelRequest, ScriptedTurn, ToolResultMessage } from '@toolgate/providers'

export const DEMO_TASK =
  'Document how to lint this project in the README, run the linter, review the sources, and install a pre-commit hook that runs the linter.'

const LINT_COMMAND = 'node scripts/lint.mjs src'
export const LINT_CALL_ID = 'demo_lint'
const HOOK_PATH = '.git/hooks/pre-commit'

export interface DemoScriptOptions {
  /** Add the run_code turn (Code Mode is registered). */
  readonly codeMode: boolean
}

export function demoTurns(
  options: DemoScriptOptions,
): (ScriptedTurn | ((request: ModelRequest) => ScriptedTurn))[] {
  const turns: (ScriptedTurn | ((request: ModelRequest) => ScriptedTurn))[] = [
    {
      text: "I'll start with the project manifest and the README.",
      toolCalls: [
        { callId: 'demo_read_package', name: 'read', arguments: { path: 'package.json' } },
        { callId: 'demo_read_readme', name: 'read', arguments: { path: 'README.md' } },
      ],
    },
    {
      text: 'The project has a lint script. I will document it in the README.',
      toolCalls: [
        {
          callId: 'demo_edit_readme',
          name: 'edit',
          arguments: {
            path: 'README.md',
            old_string: 'Run `npm start`.\n',
            new_string:
              'Run `npm start`.\n\n## Development\n\nRun `npm run lint` before committing; it flags `var` declarations.\n',
          },
        },
      ],
    },
    {
      text: 'Now the linter.',
      toolCalls: [
        {
          callId: LINT_CALL_ID,
          name: 'bash',
          arguments: { command: LINT_COMMAND, description: 'Run the project linter' },
        },
      ],
    },
    {
      text: 'Let me review the sources together (these reads are independent, so they run in parallel).',
      toolCalls: [
        { callId: 'demo_read_index', name: 'read', arguments: { path: 'src/index.js' } },
        { callId: 'demo_read_util', name: 'read', arguments: { path: 'src/util.js' } },
        { callId: 'demo_read_config', name: 'read', arguments: { path: 'src/config.js' } },
        {
          callId: 'demo_grep_var',
          name: 'grep',
          arguments: { pattern: '\\bvar\\s', path: 'src', output_mode: 'content' },
        },
      ],
    },
    {
      text: 'Finally, the pre-commit hook.',
      toolCalls: [
        {
          callId: 'demo_write_hook',
          name: 'write',
          arguments: { path: HOOK_PATH, content: `#!/bin/sh\n${LINT_COMMAND}\n` },
        },
      ],
    },
  ]
  if (options.codeMode) {
    // A program against the SDK of the built-in tools (`tools.read(args)` resolves to the read
    // tool's structured value; see packages/codemode/README.md).
    turns.push({
      text: 'One more check as a small program: count the lines of every source file in one go.',
      toolCalls: [
        {
          callId: 'demo_run_code',
          name: 'run_code',
          arguments: {
            description: 'Count lines per source file',
            code: [
              "const files = ['src/index.js', 'src/util.js', 'src/config.js']",
              'for (const path of files) {',
              '  const r = await tools.read({ path })',
              // biome-ignore lint/suspicious/noTemplateCurlyInString: the model's program text
              "  console.log(`${path}: ${r.kind === 'text' ? r.totalLines : '?'} lines`)",
              '}',
            ].join('\n'),
          },
        },
      ],
    })
  }
  turns.push((request) => ({ text: finalAnswer(request) }))
  return turns
}

/** The closing answer, true to what the tools reported in this run. */
function finalAnswer(request: ModelRequest): string {
  const results = new Map<string, ToolResultMessage>()
  for (const m of request.messages) if (m.role === 'tool') results.set(m.callId, m)
  const text = (id: string) =>
    (results.get(id)?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n')
  const done: string[] = []
  const edit = results.get('demo_edit_readme')
  done.push(
    edit && !edit.isError
      ? '- README.md now has a Development section on linting.'
      : '- The README edit did not go through.',
  )
  const lint = results.get(LINT_CALL_ID)
  if (!lint) done.push('- The linter did not run.')
  else if (lint.isError) done.push('- The linter did not run (it was not approved).')
  else {
    const problems = /✖ (\d+) problem/.exec(text(LINT_CALL_ID))?.[1]
    done.push(
      problems
        ? `- The linter found ${problems} problem(s): src/util.js declares a \`var\`; use const there.`
        : '- The linter ran clean.',
    )
  }
  const hook = results.get('demo_write_hook')
  done.push(
    hook?.isError
      ? `- I did not install the pre-commit hook: policy refused to write ${HOOK_PATH} (git hooks are protected). Add it yourself if you want it.`
      : '- The pre-commit hook was written.',
  )
  return `Done.\n${done.join('\n')}`
}
