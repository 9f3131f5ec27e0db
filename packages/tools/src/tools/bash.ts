// bash {command, description?, timeout_ms?, run_in_background?} (issue 4 §4, issue 11): one command
// under the sandbox profile of the session's preset (or, without bubblewrap, in a pid namespace of
// its own when the host allows one), with the environment allowlist, stdin closed, bounded capture
// with capped spill files, a non-zero exit as a value. Background runs go to the jobs service and
// return the typed handle.

import { StringDecoder } from 'node:string_decoder'
import { type ContentBlock, defineTool, type JsonValue, type ToolRunContext } from '@toolgate/core'
import {
  bashEnvironment,
  type Confinement,
  classifyCommand,
  confine,
  gitConfigEnvironment,
} from '@toolgate/policy'
import { z } from 'zod'
import { OutputCapture } from '../bash/capture.js'
import { contain } from '../bash/contain.js'
import { runProcess } from '../bash/process.js'
import type { ToolsEnv } from '../context.js'
import { count, plural } from '../util/format.js'
import { displayPath } from '../util/paths.js'
import { presenter } from '../util/present.js'
import { sandboxError, startError } from './bash-errors.js'

export const BASH_DEFAULT_TIMEOUT_MS = 120_000
export const BASH_MAX_TIMEOUT_MS = 600_000

/** Added to the allowlisted environment: no colours, no pagers, no interactive terminal features. */
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

// `lines` and `omittedBytes` are optional: session logs written before the spill cap (issue 11)
// replay with these same schemas.
const spillSchema = z.object({
  path: z.string(),
  bytes: z.number().int(),
  lines: z.number().int(),
  omittedBytes: z.number().int().optional(),
})
const streamSchema = z.object({
  text: z.string(),
  bytes: z.number().int(),
  lines: z.number().int().optional(),
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
    /** The shell exited but processes it left behind were still running; they were stopped. */
    stoppedLeftovers: z.boolean(),
    stdout: streamSchema,
    stderr: streamSchema,
    sandbox: z.enum(['bubblewrap', 'partial', 'none']),
    /** What the sandbox did after the command (git state files not written back), for the model. */
    notes: z.array(z.string()).optional(),
  }),
  z.object({ kind: z.literal('background'), jobId: z.string() }),
])
export type BashValue = z.infer<typeof bashValueSchema>
export type BashForeground = Extract<BashValue, { kind: 'foreground' }>

export const BASH_DESCRIPTION = [
  'Run a bash command in the workspace root and return its output. Use it for builds, tests, git and other programs; do not use it to read, search or edit files (use read, grep, glob, ls, edit, write).',
  'stdin is closed and there is no terminal: interactive programs fail instead of waiting for input, so pass flags such as --yes or -m. Colours and pagers are off.',
  `The command is killed with its child processes after timeout_ms (default ${count(BASH_DEFAULT_TIMEOUT_MS)}, max ${count(BASH_MAX_TIMEOUT_MS)}); processes it leaves running in the background are stopped when it ends, so use run_in_background for servers and watchers, then job_output to read them.`,
  'Returns stdout, then stderr after a "[stderr]" line; a non-zero exit adds "[exit code: N]". Long output keeps the last 64 KB of each stream and names a file with the output (for very long output, its beginning and end) to read with read (offset/limit). Chain dependent steps with && in one command.',
].join(' ')

/** A foreground command that did not exit 0: non-zero exit, killed by a signal, or timed out. */
function commandFailed(value: JsonValue | undefined): boolean {
  const v = value as Partial<BashForeground> | undefined
  return v?.kind === 'foreground' && (v.exitCode !== 0 || v.timedOut === true)
}

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
    // Seed 003 §6.6: bash commands of one batch often depend on each other (mkdir, then make in
    // it), so a failed bash call skips its later bash siblings: a call that failed (could not
    // spawn, sandbox failure) and also a command that exited non-zero, was killed or timed out.
    // The exit stays a value for the model (the call is not an error); see README, "Cascade".
    cascadeOnFailure: (result) => result.isError || commandFailed(result.value),
    async execute(args, exec): Promise<BashValue> {
      const c = await confined(env, args.command)
      const processEnv = { ...c.env, ...BASH_ENV }
      if (args.run_in_background === true) return startBackground(env, exec, args.command, c, processEnv)

      const timeoutMs = args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS
      // A published spill file inside the workspace is shown (and recorded) relative to the root.
      const publish =
        env.publishSpill === undefined
          ? undefined
          : async (file: string) => displayPath(env.root, await env.publishSpill!(file))
      const stdout = new OutputCapture(
        env.maxCaptureBytes,
        () => env.spillPath('bash-stdout'),
        env.maxSpillBytes,
        publish,
      )
      const stderr = new OutputCapture(
        env.maxCaptureBytes,
        () => env.spillPath('bash-stderr'),
        env.maxSpillBytes,
        publish,
      )
      let outcome: Awaited<ReturnType<typeof runProcess>>
      try {
        outcome = await runProcess({
          ...spawnOptions(env, c, processEnv),
          signal: exec.signal,
          timeoutMs,
          stdout,
          stderr,
        })
      } catch (error) {
        await Promise.all([stdout.finish(), stderr.finish()]) // close any spill file
        c.finish()
        if (exec.signal.aborted) throw exec.signal.reason
        throw startError(error)
      }
      const notes = c.finish()
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
        sandbox: c.enforcement,
        ...(notes.length === 0 ? {} : { notes: [...notes] }),
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

/** A confinement, and whether the command runs in a pid namespace of its own. */
type Contained = Confinement & { readonly pidNamespace: boolean }

/**
 * The command under the session's sandbox profile. Without bubblewrap (no sandbox configured, or
 * enforcement `none` on this host) it still gets the environment allowlist and git's safe
 * configuration, and runs in a pid namespace of its own when the host allows one (`contain`).
 */
async function confined(env: ToolsEnv, command: string): Promise<Contained> {
  const argv = ['bash', '-c', command]
  let c: Confinement
  if (env.sandbox === undefined) {
    c = {
      argv,
      env: { ...bashEnvironment(process.env, env.environment), ...gitConfigEnvironment(env.gitConfig) },
      enforcement: 'none',
      fds: [],
      finish: () => [],
    }
  } else {
    try {
      c = await confine(argv, env.sandbox, env.bwrapPath === undefined ? {} : { bwrapPath: env.bwrapPath })
    } catch (error) {
      throw sandboxError(error)
    }
  }
  if (c.enforcement !== 'none') return { ...c, pidNamespace: true }
  const contained = await contain(c.argv)
  return { ...c, argv: contained.argv, pidNamespace: contained.containment === 'pid-namespace' }
}

/** What foreground and background runs spawn alike. */
function spawnOptions(env: ToolsEnv, c: Contained, processEnv: NodeJS.ProcessEnv) {
  return {
    argv: c.argv,
    cwd: env.root,
    env: processEnv,
    fds: c.fds,
    pidNamespace: c.pidNamespace,
    killGraceMs: env.killGraceMs,
  }
}

function startBackground(
  env: ToolsEnv,
  exec: ToolRunContext,
  command: string,
  c: Contained,
  processEnv: NodeJS.ProcessEnv,
): BashValue {
  let handle: { readonly jobId: string }
  try {
    handle = startJob()
  } catch (error) {
    c.finish() // the job never started: release the sandbox's descriptors and staging
    throw error
  }
  return { kind: 'background', jobId: handle.jobId }

  function startJob() {
    return exec.jobs.start(
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
          let outcome: Awaited<ReturnType<typeof runProcess>>
          try {
            outcome = await runProcess({
              ...spawnOptions(env, c, processEnv),
              signal: job.signal,
              stdout: sink(),
              stderr: sink(),
            })
          } finally {
            for (const note of c.finish()) job.write(`\n[${note}]\n`)
          }
          return { exitCode: outcome.exitCode, signal: outcome.signal }
        },
      },
      exec.signal,
    )
  }
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
      // When the spill file is capped it keeps equal halves: the first and the last bytes.
      const omitted = s.spill.omittedBytes ?? 0
      const half = Math.floor((s.bytes - omitted) / 2)
      const where =
        omitted === 0
          ? `The full ${name} is in ${s.spill.path}`
          : `Its first and last ${plural(half, 'byte')} are in ${s.spill.path} (${plural(s.spill.lines, 'line')}; the ${plural(omitted, 'byte')} between them were dropped)`
      parts.push(
        `[${name} was ${plural(s.bytes, 'byte')} (${plural(s.lines ?? s.spill.lines, 'line')}); only the last ${plural(shown, 'byte')} are shown. ${where}: read it with the read tool, e.g. offset=${from} for its last 2,000 lines, or grep it]`,
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
  for (const note of value.notes ?? []) parts.push(`[${note}]`)
  return [{ type: 'text', text: parts.join('\n') }]
}
