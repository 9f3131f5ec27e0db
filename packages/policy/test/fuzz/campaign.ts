import type { CommandClassification } from '@toolgate/policy'
import fc from 'fast-check'
import { type Finding, findings } from './findings.js'
import { commandArbitrary } from './generator.js'
import type { Harness } from './harness.js'
import type { Observation } from './worker.js'

/**
 * A fuzzing campaign: generate commands, classify each, run every read-only one in the sandbox and
 * judge what it did. Commands are generated in chunks of CHUNK from seeds derived from the
 * campaign's seed (chunk 0 uses the seed itself), so a case is named by its chunk seed and index and
 * replays alone with fast-check's `seed` + `path`.
 */
export const CHUNK = 1000

export function chunkSeed(seed: number, chunk: number): number {
  return chunk === 0 ? seed : (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + Math.imul(chunk, 0x85ebca6b)) | 0
}

export interface Failure {
  readonly seed: number
  readonly path: string
  readonly command: string
  readonly reason: string
  readonly findings: readonly Finding[]
  readonly observation: Observation
}

export interface CampaignResult {
  readonly cases: number
  readonly readOnly: number
  readonly failures: readonly Failure[]
  readonly ms: number
  /** The first failure shrunk by fast-check (when shrinking ran and found one). */
  readonly shrunk?: Failure
}

export type Classify = (command: string) => CommandClassification

export interface Checked {
  readonly classification: CommandClassification
  /** Present when the command was classified read-only and so was run. */
  readonly observation?: Observation
  readonly findings: Finding[]
}

/** The failure a checked command is, if it ran and did something. */
export function failureOf(command: string, r: Checked, seed: number, path: string): Failure | undefined {
  if (r.observation === undefined || r.findings.length === 0) return undefined
  return {
    seed,
    path,
    command,
    reason: r.classification.reason,
    findings: r.findings,
    observation: r.observation,
  }
}

/** Classify, run if read-only, judge. `undefined` when not read-only (nothing ran). */
export async function check(harness: Harness, classify: Classify, command: string): Promise<Checked> {
  const classification = classify(command)
  if (!classification.readOnly) return { classification, findings: [] }
  const observation = await harness.run(command)
  return { classification, observation, findings: findings(observation, classification) }
}

export async function runCampaign(
  harness: Harness,
  classify: Classify,
  opts: {
    readonly seed: number
    readonly runs: number
    readonly maxFailures: number
    readonly shrinkMs: number
    readonly onProgress?: (done: number, readOnly: number, failures: number) => void
  },
): Promise<CampaignResult> {
  const started = performance.now()
  const failures: Failure[] = []
  let cases = 0
  let readOnly = 0
  for (let chunk = 0; cases < opts.runs && failures.length < opts.maxFailures; chunk++) {
    const seed = chunkSeed(opts.seed, chunk)
    const n = Math.min(CHUNK, opts.runs - cases)
    const commands = fc.sample(commandArbitrary, { seed, numRuns: n })
    const pending: Promise<void>[] = []
    const found: Failure[] = []
    for (let i = 0; i < commands.length; i++) {
      const command = commands[i]!
      const classification = classify(command)
      cases++
      if (!classification.readOnly) continue
      readOnly++
      pending.push(
        harness.run(command).then((observation) => {
          const f = failureOf(
            command,
            { classification, observation, findings: findings(observation, classification) },
            seed,
            String(i),
          )
          if (f !== undefined) found.push(f)
        }),
      )
    }
    await Promise.all(pending)
    // In generation order (runs finish in any order).
    failures.push(...found.sort((a, b) => Number(a.path) - Number(b.path)))
    opts.onProgress?.(cases, readOnly, failures.length)
  }
  const result: CampaignResult = { cases, readOnly, failures, ms: performance.now() - started }
  const first = failures[0]
  if (first === undefined || opts.shrinkMs === 0) return result
  const shrunk = await shrink(harness, classify, first, opts.shrinkMs)
  return shrunk === undefined ? result : { ...result, shrunk }
}

/** Let fast-check shrink a failing case (replayed by seed and path) within a time budget. */
export async function shrink(
  harness: Harness,
  classify: Classify,
  failure: Pick<Failure, 'seed' | 'path'>,
  budgetMs: number,
): Promise<Failure | undefined> {
  let last: Failure | undefined
  const details = await fc.check(
    fc.asyncProperty(commandArbitrary, async (command) => {
      const f = failureOf(command, await check(harness, classify, command), failure.seed, '')
      if (f === undefined) return true
      last = f
      return false
    }),
    {
      seed: failure.seed,
      path: failure.path,
      numRuns: 1, // counted from the replayed case
      interruptAfterTimeLimit: budgetMs,
      markInterruptAsFailure: false,
    },
  )
  // fast-check settles on the last failing value it saw, which is the last call that failed.
  if (!details.failed || last === undefined || details.counterexample?.[0] !== last.command) return undefined
  return { ...last, path: details.counterexamplePath ?? '' }
}

/** Replay one case by seed and path, without shrinking. */
export async function replay(
  harness: Harness,
  classify: Classify,
  seed: number,
  path: string,
): Promise<{ command: string; result: Checked }> {
  let seen: { command: string; result: Checked } | undefined
  await fc.check(
    fc.asyncProperty(commandArbitrary, async (command) => {
      // A replayed shrink path may go on to further values after the one it names.
      if (seen === undefined) seen = { command, result: await check(harness, classify, command) }
      return true
    }),
    { seed, path, numRuns: 1 },
  )
  if (seen === undefined) throw new Error(`no case at seed ${seed} path ${path}`)
  return seen
}
