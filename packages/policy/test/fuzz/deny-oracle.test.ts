import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPermissionEngine, initShellParser, type PermissionEngine } from '@toolgate/policy'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readConfig } from './config.js'
import { ISSUE_12_CORPUS } from './corpus.js'
import { commandArbitrary, TRAPS } from './generator.js'
import { type Harness, suiteHarness } from './harness.js'
import { PAYLOAD } from './markers.js'
import { probe } from './sandbox.js'

/**
 * The deny-rule property (issue 12 §5, "a deny rule means the thing, not the spelling"): with
 * `deny bash(pwned:*)` and every other bash call allowed (danger-full-access, `allow bash`), any
 * command the engine does not deny must not run the `pwned` marker when real bash runs it in the
 * sandbox. The generator puts the payload behind wrappers, in substitutions, arithmetic subscripts,
 * trap actions, here-documents and code strings, so every construct that runs a command the
 * engine does not see shows up here. Fixed cases plus a sample of the generated ones (a fifth of
 * FUZZ_RUNS, at most 2,000: most generated commands carry no payload).
 */
const avail = probe()
const ci = process.env.CI === 'true'
const config = readConfig()

describe.skipIf(!avail.ok)('deny oracle: a command not denied never runs the denied program', () => {
  let h: Harness
  let engine: PermissionEngine
  let dir: string
  beforeAll(async () => {
    await initShellParser()
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-deny-oracle-')))
    mkdirSync(join(dir, 'work'))
    mkdirSync(join(dir, 'home'))
    engine = createPermissionEngine({
      root: join(dir, 'work'),
      home: join(dir, 'home'),
      userSettingsPath: null,
      preset: 'danger-full-access',
      rules: [
        { action: 'allow', rule: 'bash' },
        { action: 'deny', rule: `bash(${PAYLOAD}:*)` },
      ],
    })
    if (avail.ok) h = suiteHarness(avail, config)
  })
  afterAll(() => {
    h?.dispose()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  /**
   * Commands that carry the payload, are allowed without asking, and ran it. A command the engine
   * cannot represent part by part is asked about instead (destructive-unknown; the person sees the
   * whole command): those are counted, not failures.
   */
  async function escapes(commands: readonly string[]): Promise<string[]> {
    const out: string[] = []
    let asked = 0
    await Promise.all(
      commands.map(async (command) => {
        if (!command.includes(PAYLOAD)) return
        const d = engine.decide({ name: 'bash', arguments: { command } })
        if (d.kind === 'deny') return
        if (d.kind === 'ask') {
          asked++
          return
        }
        const o = await h.run(command)
        if (o.markers.some((m) => m.program === PAYLOAD))
          out.push(`${JSON.stringify(command)} (allowed by ${d.step}) ran ${PAYLOAD}`)
      }),
    )
    console.log(`deny oracle: ${asked} commands with the payload were asked about rather than denied`)
    return out.sort()
  }

  test('fixed cases: the corpus and the generator traps', async () => {
    expect(await escapes([...new Set([...ISSUE_12_CORPUS, ...TRAPS])])).toEqual([])
  }, 600_000)

  const runs = Math.min(2000, Math.ceil(config.runs / 5))
  test(`${runs} generated commands (seed ${config.seed})`, async () => {
    const commands = fc.sample(commandArbitrary, { seed: config.seed, numRuns: runs })
    expect(await escapes(commands)).toEqual([])
  }, 900_000)
})

test('the deny oracle can run here (required under CI=true)', () => {
  if (!ci && !avail.ok) return
  expect(avail.ok).toBe(true)
})
