import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FuzzConfig } from './config.js'
import { buildMarkerBin, buildTemplate, chownTree } from './fixture.js'
import { type Availability, sandboxIds } from './sandbox.js'
import { type Observation, Worker } from './worker.js'

/**
 * The harness: a template fixture, the marker shims and a pool of workers, each with its own copy
 * of the fixture. `run` queues a command on the next free worker.
 */
export interface Harness {
  run(command: string): Promise<Observation>
  readonly base: string
  dispose(): void
}

/**
 * Where the trees live: a tmpfs (/dev/shm) when there is one. Not under /tmp: the sandbox binds the
 * worker's own tmp directory there.
 */
function baseDir(): string {
  const configured = process.env.FUZZ_DIR
  const parent =
    configured ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir().startsWith('/tmp') ? '/var/tmp' : tmpdir())
  return mkdtempSync(join(parent, 'toolgate-fuzz-'))
}

export function createHarness(opts: {
  readonly concurrency: number
  readonly timeoutMs: number
  readonly bwrap: string
  readonly strace: string
}): Harness {
  const base = baseDir()
  chmodSync(base, 0o755)
  // The copies live in memory (/dev/shm): never leave them behind, not even on an early exit.
  const dispose = (): void => {
    rmSync(base, { recursive: true, force: true })
    process.off('exit', dispose)
  }
  process.on('exit', dispose)
  const ids = sandboxIds()
  const template = join(base, 'template')
  buildTemplate(template)
  const bin = join(base, 'bin')
  buildMarkerBin(bin)
  if (ids.switchUser) chownTree(template, ids.uid, ids.gid)
  const idle: Worker[] = []
  for (let i = 0; i < opts.concurrency; i++) {
    idle.push(new Worker(template, join(base, `w${i}`), bin, ids, { bwrap: opts.bwrap, strace: opts.strace }))
  }
  const waiting: ((w: Worker) => void)[] = []
  const acquire = (): Promise<Worker> => {
    const w = idle.pop()
    if (w !== undefined) return Promise.resolve(w)
    return new Promise((resolve) => waiting.push(resolve))
  }
  const release = (w: Worker): void => {
    const next = waiting.shift()
    if (next !== undefined) next(w)
    else idle.push(w)
  }
  return {
    base,
    async run(command) {
      const w = await acquire()
      try {
        return await w.run(command, opts.timeoutMs)
      } finally {
        release(w)
      }
    },
    dispose,
  }
}

/** The harness a fuzz suite runs on: the probe's programs and the FUZZ_* settings. */
export function suiteHarness(avail: Extract<Availability, { ok: true }>, config: FuzzConfig): Harness {
  return createHarness({
    concurrency: config.concurrency,
    timeoutMs: config.timeoutMs,
    bwrap: avail.bwrap,
    strace: avail.strace,
  })
}
