// bash {command, description?, timeout_ms?, run_in_background?} (issue 4 §4): one command in its own
// process group through the sandbox, stdin closed, bounded capture with spill files, a non-zero exit
// as a value. Background runs go to the jobs service and return the typed handle.

import { StringDecoder } from 'node:string_decoder'
import { type ContentBlock, defineTool, ToolError, type ToolRunContext } from '@toolgate/core'
import { classifyCommand, confine, type Enforcement } from '@toolgate/policy'
import { z } from 'zod'
import { OutputCapture } from '../bash/capture.js'
import { runProcess } from '../bash/process.js'
import type { ToolsEnv } from '../context.js'
import { count, plural } from '../util/format.js'
import { presenter } from '../util/present.js'

export const BASH_DEFAULT_TIMEOUT_MS = 120_000
export const BASH_MAX_TIMEOUT_MS = 600_000

/** Added to the inherited environment: no colours, no pagers, no interactive terminal features. */
export const BASH_ENV: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
})

export const bashParameters = z.object({
  command: z.string().min(1).describe('The bash command line to run (bash -c) in the workspace root.'),
  description: z
    .string()
    .optional()
    .describe('A short description of what the command does, in 5-10 words, shown to the user.'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(BASH_MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `Kill the command after this many ms (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS}). Not used with run_in_background.`,
    ),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      'Start the command as a background job and return its job id at once (for servers, watchers, long builds).',
    ),
})
export type BashArgs = z.infer<typeof bashParameters>

const spillSchema = z.object({ path: z.string(), bytes: z.number().int(), lines: z.number().int() })
const streamSchema = z.object({
  text: z.string(),
  bytes: z.number().int(),
  spill: spillSchema.optional(),
  spillError: z.string().optional(),
})
export const bashValueSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('foreground'),
    command: z.string(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    timedOut: z.boolean(),
    timeoutMs: z.number().int(),
    /** The shell exited but processes it left behind held its output; they were stopped. */
    stoppedLeftovers: z.boolean(),
    stdout: streamSchema,
    stderr: streamSchema,
    sandbox: z.enum(['bubblewrap', 'none']),
  }),
  z.object({ kind: z.literal('background'), jobId: z.string() }),
])
export type BashValue = z.infer<typeof bashValueSchema>
export type BashForeground = Extract<BashValue, { kind: 'foreground' }>

export const BASH_DESCRIPTION = [
  'Run a bash command in the workspace root and return its output. Use it for builds, tests, git and other programs; do not use it to read, search or edit files (use read, grep, glob, ls, edit, write).',
  'stdin is closed and there is no terminal: interactive programs fail instead of waiting for input, so pass flags such as --yes or -m. Colours and pagers are off.',
  `The command is killed with its child processes after timeout_ms (default ${count(BASH_DEFAULT_TIMEOUT_MS)}, max ${count(BASH_MAX_TIMEOUT_MS)}); processes it leaves running in the background are stopped when it ends, so use run_in_background for servers and watchers, then job_output to read them.`,
  'Returns stdout, then stderr after a "[stderr]" line; a non-zero exit adds "[exit code: N]". Long output keeps the last 64 KB of each stream and names a file with the full output to read with read (offset/limit). Chain dependent steps with && in one command.',
].join(' ')

export function bashTool(env: ToolsEnv) {
  return defineTool({
    name: 'bash',
    description: BASH_DESCRIPTION,
    parameters: bashParameters,
    output: { schema: bashValueSchema, render: (_args, value: BashValue) => renderBash(value) },
    // Fail closed: only a command the classifier is sure cannot write runs next to its siblings.
    isConcurrencySafe: (args) => {
      try {
        return classifyCommand(args.command).readOnly === true
      } catch {
        return false
      }
    },
    // A failed bash call (could not spawn, sandbox failure) skips its later bash siblings. A
    // non-zero exit is a value, not a failure, so it does not cascade: see README, "Cascade".
    cascadeOnFailure: true,
    async execute(args, exec): Promise<BashValue> {
      const { argv, enforcement } = await confined(env, args.command)
      const processEnv = { ...process.env, ...BASH_ENV }
      if (args.run_in_background === true) return startBackground(env, exec, args.command, argv, processEnv)

      const timeoutMs = args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS
      const stdout = new OutputCapture(env.maxCaptureBytes, () => env.spillPath('bash-stdout'))
      const stderr = new OutputCapture(env.maxCaptureBytes, () => env.spillPath('bash-stderr'))
      let outcome: Awaited<ReturnType<typeof runProcess>>
      try {
        outcome = await runProcess({
          argv,
          cwd: env.root,
          env: processEnv,
          signal: exec.signal,
          timeoutMs,
          killGraceMs: env.killGraceMs,
          stdout,
          stderr,
        })
      } catch (error) {
        await Promise.all([stdout.finish(), stderr.finish()]) // close any spill file
        if (exec.signal.aborted) throw exec.signal.reason
        throw new ToolError(
          `Could not start bash: ${(error as Error).message}. Check that bash is installed and on PATH.`,
        )
      }
      const [out, err] = await Promise.all([stdout.finish(), stderr.finish()])
      if (outcome.aborted) throw exec.signal.reason
      return {
        kind: 'foreground',
        command: args.command,
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        timedOut: outcome.timedOut,
        timeoutMs,
        stoppedLeftovers: outcome.stoppedLeftovers,
        stdout: out,
        stderr: err,
        sandbox: enforcement,
      }
    },
    presentCall: presenter(bashParameters, (args) => ({
      card: 'terminal' as const,
      command: args.command,
      ...(args.description === undefined ? {} : { description: args.description }),
    })),
    presentResult: (args: unknown, result) => {
      try {
        const a = bashParameters.safeParse(args)
        const v = bashValueSchema.safeParse(result.value)
        if (!a.success || !v.success || result.isError) return undefined
        if (v.data.kind === 'background') {
          return {
            card: 'generic',
            title: `bash (background job ${v.data.jobId})`,
            kind: 'job',
            summary: a.data.command,
          }
        }
        const streams = [v.data.stdout.text, v.data.stderr.text].filter((t) => t !== '')
        return {
          card: 'terminal',
          command: v.data.command,
          output: streams.join(streams[0]?.endsWith('\n') ? '' : '\n'),
          exitCode: v.data.exitCode,
          signal: v.data.signal,
        }
      } catch {
        return undefined
      }
    },
  })
}

async function confined(
  env: ToolsEnv,
  command: string,
): Promise<{ argv: readonly string[]; enforcement: Enforcement }> {
  const argv = ['bash', '-c', command]
  if (env.sandbox === undefined) return { argv, enforcement: 'none' }
  try {
    const c = await confine(argv, env.sandbox)
    return { argv: c.argv, enforcement: c.enforcement }
  } catch (error) {
    throw new ToolError(
      `The sandbox could not be prepared: ${(error as Error).message}. The command was not run.`,
    )
  }
}

function startBackground(
  env: ToolsEnv,
  exec: ToolRunContext,
  command: string,
  argv: readonly string[],
  processEnv: NodeJS.ProcessEnv,
): BashValue {
  const handle = exec.jobs.start(
    {
      kind: 'bash',
      label: command,
      ...(exec.agent === undefined ? {} : { owner: exec.agent }),
      async run(job) {
        // The job's own buffer bounds its output; stdout and stderr interleave as they arrive.
        const sink = () => {
          const decoder = new StringDecoder('utf8')
          return {
            write(chunk: Buffer) {
              const text = decoder.write(chunk)
              if (text !== '') job.write(text)
              return true
            },
            onDrain: (resume: () => void) => resume(),
          }
        }
        const outcome = await runProcess({
          argv,
          cwd: env.root,
          env: processEnv,
          signal: job.signal,
          killGraceMs: env.killGraceMs,
          stdout: sink(),
          stderr: sink(),
        })
        return { exitCode: outcome.exitCode, signal: outcome.signal }
      },
    },
    exec.signal,
  )
  return { kind: 'background', jobId: handle.jobId }
}

/** The model-visible text (pure: the value only). */
export function renderBash(value: BashValue): readonly ContentBlock[] {
  if (value.kind === 'background') {
    return [
      {
        type: 'text',
        text: `Started background job ${value.jobId}. Read its output with job_output {"job_id": "${value.jobId}"} (add "wait": true to wait for it to end); stop it with job_kill.`,
      },
    ]
  }
  const parts: string[] = []
  const stream = (name: 'stdout' | 'stderr', s: BashForeground['stdout']) => {
    if (s.spill !== undefined) {
      const shown = Buffer.byteLength(s.text, 'utf8')
      const from = Math.max(1, s.spill.lines - 1999)
      parts.push(
        `[${name} was ${plural(s.bytes, 'byte')} (${plural(s.spill.lines, 'line')}); only the last ${plural(shown, 'byte')} are shown. The full ${name} is in ${s.spill.path}: read it with the read tool, e.g. offset=${from} for its last 2,000 lines, or grep it]`,
      )
      if (s.spillError !== undefined) parts.push(`[the file is incomplete: ${s.spillError}]`)
    }
    if (s.text !== '') parts.push(s.text.endsWith('\n') ? s.text.slice(0, -1) : s.text)
  }
  stream('stdout', value.stdout)
  if (value.stderr.bytes > 0) {
    parts.push('[stderr]')
    stream('stderr', value.stderr)
  }
  if (value.stdout.bytes === 0 && value.stderr.bytes === 0) parts.push('(no output)')
  if (value.timedOut) {
    parts.push(
      `[timed out after ${count(value.timeoutMs)} ms: the command and its child processes were killed. Use a larger timeout_ms (max ${count(BASH_MAX_TIMEOUT_MS)}) or run_in_background for long-running commands]`,
    )
  } else if (value.exitCode === null && value.signal !== null) {
    parts.push(`[killed by signal ${value.signal}]`)
  }
  if (value.exitCode !== null && value.exitCode !== 0) parts.push(`[exit code: ${value.exitCode}]`)
  if (value.stoppedLeftovers) {
    parts.push(
      '[processes the command left running in the background were stopped; use run_in_background for servers and watchers]',
    )
  }
  return [{ type: 'text', text: parts.join('\n') }]
}
