import { classifyCommand, initShellParser } from '@toolgate/policy'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { check, type Failure, failureOf, replay, runCampaign } from './campaign.js'
import { readConfig } from './config.js'
import { ISSUE_12_CORPUS } from './corpus.js'
import { TRAPS } from './generator.js'
import { type Harness, suiteHarness } from './harness.js'
import { describeCampaign, describeFailure, writeReport } from './report.js'
import { probe } from './sandbox.js'

/**
 * The differential property (issue 12 "Proof by running", DESIGN §6): every command that
 * `classifyCommand` calls read-only is run in real bash in a throwaway sandbox (harness.ts), and
 * must not write a file, run a marker or a program the classification does not show, use the
 * network or change privileged state. A fixed seed and a bounded count here; `npm run fuzz` for long
 * runs (settings in config.ts and the policy README).
 */
const avail = probe()
const ci = process.env.CI === 'true'
if (avail.ok && avail.missing.length > 0 && !ci)
  console.warn(`differential fuzzer: not installed, so never proven here: ${avail.missing.join(', ')}`)
if (!avail.ok && !ci) console.warn(`SKIPPING differential fuzzer: ${avail.reason}`)
const config = readConfig()

test('the fuzzer can run here: bwrap, strace, git, and tree, busybox, gawk, jq (required under CI=true)', () => {
  if (!ci && !avail.ok) return
  expect(avail).toMatchObject({ ok: true, missing: [] })
})

describe.skipIf(!avail.ok)('differential fuzzer: every read-only verdict is safe when bash runs it', () => {
  let h: Harness
  beforeAll(async () => {
    await initShellParser()
    if (avail.ok) h = suiteHarness(avail, config)
  })
  afterAll(() => h?.dispose())

  const report = (failures: readonly Failure[]) => {
    if (config.report !== undefined) writeReport(config.report, failures)
  }

  if (config.command !== undefined) {
    const command = config.command
    test(
      `FUZZ_COMMAND ${JSON.stringify(command)}`,
      async () => {
        const r = await check(h, classifyCommand, command)
        console.log(
          `classified ${r.classification.readOnly ? 'read-only' : 'not read-only'}: ${r.classification.reason}`,
        )
        const failure = failureOf(command, r, config.seed, '')
        if (failure !== undefined) {
          report([failure])
          throw new Error(describeFailure(failure, 'The command is classified read-only but is not safe'))
        }
      },
      config.timeoutMs + 60_000,
    )
    return
  }

  if (config.path !== undefined) {
    const path = config.path
    test(
      `replay seed ${config.seed} path ${path}`,
      async () => {
        const { command, result: r } = await replay(h, classifyCommand, config.seed, path)
        console.log(
          `case ${config.seed}:${path}: ${JSON.stringify(command)}\nclassified ${r.classification.readOnly ? 'read-only' : 'not read-only'}: ${r.classification.reason}`,
        )
        const failure = failureOf(command, r, config.seed, path)
        if (failure === undefined) return
        report([failure])
        throw new Error(describeFailure(failure, 'The replayed case is classified read-only but is not safe'))
      },
      config.timeoutMs + 60_000,
    )
    return
  }

  const FIXED = [...new Set([...ISSUE_12_CORPUS, ...TRAPS])]
  test(`fixed cases: issue 12's examples, the classes this fuzzer found, the generator's traps (${FIXED.length} commands)`, async () => {
    const failures: Failure[] = []
    await Promise.all(
      FIXED.map(async (command) => {
        const r = await check(h, classifyCommand, command)
        const failure = failureOf(command, r, config.seed, '')
        if (failure !== undefined) failures.push(failure)
      }),
    )
    report(failures)
    if (failures.length > 0) {
      const order = new Map(FIXED.map((c, i) => [c, i]))
      failures.sort((a, b) => order.get(a.command)! - order.get(b.command)!)
      throw new Error(
        [
          `${failures.length} of the fixed commands are classified read-only but are not safe:`,
          ...failures.map((f, i) => describeFailure(f, `\n#${i + 1}`)),
        ].join('\n'),
      )
    }
  }, 600_000)

  test(
    `${config.runs} generated commands (seed ${config.seed})`,
    async () => {
      let last = performance.now()
      const r = await runCampaign(h, classifyCommand, {
        seed: config.seed,
        runs: config.runs,
        maxFailures: config.maxFailures,
        shrinkMs: config.shrinkMs,
        onProgress: (done, readOnly, failures) => {
          if (!config.long || performance.now() - last < 10_000) return
          last = performance.now()
          console.log(`fuzz: ${done} cases, ${readOnly} read-only run, ${failures} failing`)
        },
      })
      report(r.failures)
      const seconds = r.ms / 1000
      console.log(
        `differential fuzzer: seed ${config.seed}, ${r.cases} cases (${(r.cases / seconds).toFixed(0)}/s), ${r.readOnly} read-only ones run in the sandbox (${(r.readOnly / seconds).toFixed(1)}/s), ${r.failures.length} failing, ${seconds.toFixed(1)} s`,
      )
      if (r.failures.length > 0) throw new Error(describeCampaign(r, config.seed))
    },
    Math.max(600_000, config.runs * 200),
  )
})
