import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRuntime, type JsonValue, type ToolResult } from '@toolgate/core'
import { permissions } from '@toolgate/policy'
import { afterEach, describe, expect, it } from 'vitest'
import { setPathStrategy } from '../src/fs/descriptor.js'
import { builtinTools } from '../src/index.js'
import { tempDir, text } from './helpers.js'
import { startRacer } from './racer.js'

// What was checked is what is used (issue 13 §3): a real child process swaps a name thousands of
// times between a harmless workspace file and a protected one (.git/config, .git/hooks, a file
// outside the workspace) while the tools run through the real pipeline with the permission engine
// attached. The protected side never changes and is never shown; every call ends in exactly one
// result: success on the harmless side or a refusal with one of the named codes.

const MIN_FLIPS = 2000
const MIN_CALLS = 300

function workspace() {
  const root = tempDir()
  mkdirSync(join(root, '.git/hooks'), { recursive: true })
  writeFileSync(join(root, '.git/config'), '[core]\n\tbare = false\n')
  writeFileSync(join(root, '.git/hooks/pre-commit.sample'), '#!/bin/sh\n')
  writeFileSync(join(root, 'harmless.txt'), 'harmless\n')
  mkdirSync(join(root, 'inner'))
  writeFileSync(join(root, 'inner/config'), 'inner\n')
  mkdirSync(join(root, 'inbox'))
  const outside = tempDir('toolgate-outside-')
  writeFileSync(join(outside, 'secret.txt'), 'SECRET outside the workspace\n')
  const runtime = createRuntime()
  runtime.use(
    permissions({
      root,
      preset: 'workspace-write',
      approvalPolicy: 'never',
      projectSettingsPath: null,
      userSettingsPath: null,
      home: tempDir('toolgate-home-'),
    }),
  )
  runtime.use(builtinTools({ root, sandbox: false, tempDir: tempDir('toolgate-session-') }))
  let seq = 0
  const call = (name: string, args: JsonValue) =>
    runtime.execute({ callId: `race-${++seq}`, name, arguments: args })
  return { root, outside, call }
}

function outcome(r: ToolResult): string {
  if (!r.isError) return 'ok'
  const info = r.error?.info as { code?: unknown } | undefined
  return typeof info?.code === 'string' ? info.code : (r.error?.code ?? 'unknown')
}

/**
 * Call `step` until the racer flipped MIN_FLIPS times and MIN_CALLS calls were made, and `also`
 * holds (both sides of a race seen: which side a call lands on is up to the scheduler, so a test
 * that needs both keeps calling, up to MAX_CALLS).
 */
const MAX_CALLS = 20 * MIN_CALLS
async function race(
  flips: () => number,
  step: (i: number) => Promise<void>,
  also: () => boolean = () => true,
): Promise<number> {
  let i = 0
  while ((i < MIN_CALLS || flips() < MIN_FLIPS || !also()) && i < MAX_CALLS) await step(i++)
  return i
}

/**
 * The clear refusals a race can produce: the policy or the descriptor check refused, the file
 * changed identity between lstat and open, the kernel saw no file at that instant (a lookup racing
 * a rename can), or read-before-edit refused because the read had landed on the other side.
 */
const RACE_REFUSALS = [
  'PERMISSION_DENIED',
  'PROTECTED_PATH',
  'LINK_OUTSIDE_WORKSPACE',
  'PATH_CHANGED',
  'NOT_REGULAR_FILE',
  'ENOENT',
  'NOT_READ',
  'STALE_READ',
  'NO_MATCH',
]

/** Outcomes outside the allowed set (expected: none). */
const unexpected = (counts: Record<string, number>, allowed: string[]) =>
  Object.entries(counts).filter(([o]) => !allowed.includes(o))

const tally = (outcomes: string[]) => {
  const counts: Record<string, number> = {}
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1
  return counts
}

describe.each(['procfs', 'realpath'] as const)('symlink races (descriptor path from %s)', (strategy) => {
  afterEach(() => setPathStrategy(undefined))

  it('write and edit through a link swapped with .git/config never change .git/config', async () => {
    setPathStrategy(strategy)
    const w = workspace()
    const config = readFileSync(join(w.root, '.git/config'))
    const racer = await startRacer(join(w.root, 'cfg'), 'harmless.txt', '.git/config')
    const writes: string[] = []
    const edits: string[] = []
    const reads: string[] = []
    await race(
      racer.flips,
      async (i) => {
        const read = await w.call('read', { path: 'cfg' })
        reads.push(outcome(read))
        writes.push(outcome(await w.call('write', { path: 'cfg', content: `v${i}\n` })))
        edits.push(outcome(await w.call('edit', { path: 'cfg', old_string: `v${i}`, new_string: `e${i}` })))
      },
      () => writes.includes('ok') && [...writes, ...edits].includes('PROTECTED_PATH'),
    )
    const flips = await racer.stop()
    expect(flips).toBeGreaterThanOrEqual(MIN_FLIPS)
    expect(readFileSync(join(w.root, '.git/config'))).toEqual(config)
    // Reading .git/config is allowed (it is protected for writing only).
    expect(unexpected(tally(reads), ['ok', 'ENOENT'])).toEqual([])
    expect(unexpected(tally(writes), ['ok', ...RACE_REFUSALS])).toEqual([])
    expect(unexpected(tally(edits), ['ok', ...RACE_REFUSALS])).toEqual([])
    // The race was exercised: writes landed on the harmless side, and some opened the protected one
    // after the permission engine had checked the harmless one.
    expect(tally(writes).ok).toBeGreaterThan(0)
    expect(tally([...writes, ...edits]).PROTECTED_PATH).toBeGreaterThan(0)
  })

  it('an intermediate directory swapped with .git: sub/config never reaches .git/config', async () => {
    setPathStrategy(strategy)
    const w = workspace()
    const config = readFileSync(join(w.root, '.git/config'))
    const racer = await startRacer(join(w.root, 'sub'), 'inner', '.git')
    const writes: string[] = []
    await race(
      racer.flips,
      async (i) => {
        await w.call('read', { path: 'sub/config' })
        writes.push(outcome(await w.call('write', { path: 'sub/config', content: `v${i}\n` })))
      },
      () => writes.includes('ok') && writes.includes('PROTECTED_PATH'),
    )
    await racer.stop()
    expect(readFileSync(join(w.root, '.git/config'))).toEqual(config)
    const counts = tally(writes)
    expect(unexpected(counts, ['ok', ...RACE_REFUSALS])).toEqual([])
    expect(counts.ok).toBeGreaterThan(0)
    expect(counts.PROTECTED_PATH).toBeGreaterThan(0)
  })

  it('read through a link swapped with a file outside the workspace never shows it', async () => {
    setPathStrategy(strategy)
    const w = workspace()
    const racer = await startRacer(join(w.root, 'doc'), 'harmless.txt', join(w.outside, 'secret.txt'))
    const reads: string[] = []
    await race(
      racer.flips,
      async () => {
        const r = await w.call('read', { path: 'doc' })
        expect(text(r)).not.toContain('SECRET')
        reads.push(outcome(r))
      },
      () => reads.includes('ok') && reads.includes('LINK_OUTSIDE_WORKSPACE'),
    )
    await racer.stop()
    const counts = tally(reads)
    expect(unexpected(counts, ['ok', ...RACE_REFUSALS])).toEqual([])
    expect(counts.ok).toBeGreaterThan(0)
    expect(counts.LINK_OUTSIDE_WORKSPACE).toBeGreaterThan(0)
  })

  it('new files through a directory link swapped with .git/hooks or an outside directory are never created there', async () => {
    setPathStrategy(strategy)
    const w = workspace()
    mkdirSync(join(w.root, 'inbox2'))
    const hooks = readdirSync(join(w.root, '.git/hooks'))
    const racerHooks = await startRacer(join(w.root, 'd'), 'inbox', '.git/hooks')
    const racerOut = await startRacer(join(w.root, 'e'), 'inbox2', w.outside)
    const writes: string[] = []
    await race(
      () => Math.min(racerHooks.flips(), racerOut.flips()),
      async (i) => {
        writes.push(
          outcome(await w.call('write', { path: `d/new-${i}`, content: '#!/bin/sh\necho pwned\n' })),
        )
        writes.push(outcome(await w.call('write', { path: `e/new-${i}/deep.txt`, content: 'x\n' })))
      },
      () =>
        writes.includes('ok') &&
        (writes.includes('PROTECTED_PATH') || writes.includes('LINK_OUTSIDE_WORKSPACE')),
    )
    await racerHooks.stop()
    await racerOut.stop()
    expect(readdirSync(join(w.root, '.git/hooks'))).toEqual(hooks)
    expect(readdirSync(w.outside)).toEqual(['secret.txt'])
    const counts = tally(writes)
    expect(unexpected(counts, ['ok', ...RACE_REFUSALS])).toEqual([])
    expect(counts.ok).toBeGreaterThan(0)
    expect((counts.PROTECTED_PATH ?? 0) + (counts.LINK_OUTSIDE_WORKSPACE ?? 0)).toBeGreaterThan(0)
  })
})

describe('a name swapped between a regular file and a FIFO', () => {
  it('read never blocks on the FIFO, and a later read still works', async () => {
    const w = workspace()
    const racer = await startRacer(join(w.root, 'pipe.txt'), 'plain text\n', '', 'fifo')
    const reads: string[] = []
    await race(
      racer.flips,
      async () => {
        reads.push(outcome(await w.call('read', { path: 'pipe.txt' })))
      },
      () => reads.includes('ok') && reads.includes('NOT_REGULAR_FILE'),
    )
    await racer.stop()
    const counts = tally(reads)
    expect(unexpected(counts, ['ok', ...RACE_REFUSALS])).toEqual([])
    expect(counts.ok).toBeGreaterThan(0)
    expect(counts.NOT_REGULAR_FILE).toBeGreaterThan(0)
    symlinkSync('harmless.txt', join(w.root, 'after'))
    expect(text(await w.call('read', { path: 'after' }))).toBe('after: lines 1-1 of 1\n     1\tharmless')
  })
})

describe('a directory swapped for a link out of the workspace during a grep walk (JS backend)', () => {
  it('never shows the outside file, and every call ends with a result', async () => {
    const root = tempDir()
    const outside = tempDir('toolgate-outside-')
    writeFileSync(join(outside, 'data.txt'), 'needle SECRET outside\n')
    mkdirSync(join(root, 'parked'))
    writeFileSync(join(root, 'parked/data.txt'), 'needle inside\n')
    writeFileSync(join(root, 'top.txt'), 'needle top\n')
    const runtime = createRuntime()
    runtime.use(
      builtinTools({ root, sandbox: false, grepBackend: 'js', tempDir: tempDir('toolgate-session-') }),
    )
    const racer = await startRacer(join(root, 'sub'), join(root, 'parked'), outside, 'dir-link')
    const outcomes: string[] = []
    let seq = 0
    await race(racer.flips, async () => {
      const r = await runtime.execute({
        callId: `grep-${++seq}`,
        name: 'grep',
        arguments: { pattern: 'needle', output_mode: 'content' },
      })
      expect(text(r)).not.toContain('SECRET')
      outcomes.push(outcome(r))
    })
    await racer.stop()
    expect(unexpected(tally(outcomes), ['ok'])).toEqual([])
  })
})
