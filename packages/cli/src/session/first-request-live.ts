// What the fixed part of `run`'s first request is when the whole session is built (the eager
// path): the tool declarations the agent loop sends and the Code Mode part of the system prompt.
// `scripts/first-request-snapshot.mjs` writes it to `first-request.generated.ts` at build time and
// `test/first-request.test.ts` checks that the two are still equal, so the early first request
// (`early-request.ts`) never starts from a stale copy. Never loaded on the way to a first request.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ToolSchema } from '@toolgate/core'
import type { ModelClient, ModelRequest } from '@toolgate/providers'
import { openSession } from '../commands/drive.js'
import type { OutStream } from '../io.js'

/** The parts of the first request that depend on nothing but the built-in tools. */
export interface FirstRequestParts {
  readonly tools: readonly ToolSchema[]
  /** The Code Mode part of the system prompt ('' without run_code). */
  readonly codePrompt: string
}

const silent: OutStream = { isTTY: false, write: () => true }

/** Build a real session (as `run` does) in a throwaway workspace and capture its first request. */
export async function liveFirstRequestParts(codeMode: boolean): Promise<FirstRequestParts> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-first-request-'))
  const home = mkdtempSync(join(tmpdir(), 'toolgate-first-request-home-'))
  let captured: ModelRequest | undefined
  const model: ModelClient = {
    provider: 'scripted',
    model: 'snapshot',
    // biome-ignore lint/correctness/useYield: the request is all this model is for
    async *stream(request) {
      captured = request
      throw new Error('captured')
    },
  }
  try {
    const opened = await openSession({
      io: { stdout: silent, stderr: silent, env: { TOOLGATE_HOME: home, HOME: home }, cwd: root },
      model: () => model,
      provider: 'scripted',
      root,
      preset: 'workspace-write',
      approvalPolicy: 'on-request',
      logPath: join(root, 'session.jsonl'),
      json: true,
      codeMode,
      auto: () => ({ outcome: 'unavailable', by: 'nobody', line: 'denied' }),
      forceAuto: true,
    })
    if (typeof opened === 'number') throw new Error(`the session could not be set up (exit ${opened})`)
    try {
      await opened.task(
        [{ role: 'user', content: [{ type: 'text', text: 'snapshot' }] }],
        new AbortController().signal,
      )
    } finally {
      await opened.close()
    }
    if (captured?.tools === undefined) throw new Error('the session sent no request with tools')
    return { tools: captured.tools, codePrompt: opened.session.codePrompt ?? '' }
  } finally {
    rmSync(root, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  }
}
