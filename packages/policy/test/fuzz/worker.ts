import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { chownTree, REPOSITORIES, TRANSIENT_DIRS } from './fixture.js'
import { MARKER_LOG, type MarkerRun, parseMarkerLog } from './markers.js'
import {
  asSandboxUser,
  type Exit,
  type Paths,
  runSandboxed,
  type SandboxIds,
  TRACE_PREFIX,
} from './sandbox.js'
import { type Change, diffSnapshots, type Snapshot, snapshot } from './snapshot.js'
import { parseTrace, type Trace } from './trace.js'

/** Everything seen while one command ran. */
export interface Observation {
  readonly exit: Exit
  /** Files created, changed or deleted in the fixture copy (home and /tmp). */
  readonly changes: readonly Change[]
  readonly markers: readonly MarkerRun[]
  readonly trace: Trace
  /** The trace was cut (strace died or its files were too large): detection is incomplete. */
  readonly traceIncomplete: boolean
}

const MAX_TRACE_BYTES = 64 * 1024 * 1024
const MAX_MARKER_LOG = 1024 * 1024

/**
 * A worker owns one copy of the fixture and one marker directory. The copy is reused while no
 * command changes it (the snapshot includes ctime and inode, so "unchanged" is exact) and replaced
 * from the template after any change.
 */
export class Worker {
  readonly paths: Paths
  private baseline: Snapshot | undefined

  constructor(
    private readonly template: string,
    dir: string,
    bin: string,
    private readonly ids: SandboxIds,
    private readonly tools: { readonly bwrap: string; readonly strace: string },
  ) {
    this.paths = { tree: join(dir, 'tree'), markers: join(dir, 'markers'), bin }
    mkdirSync(dir, { recursive: true })
  }

  /** Fresh copy of the template, git's stat data refreshed for the copy, baseline snapshot. */
  reset(): void {
    rmSync(this.paths.tree, { recursive: true, force: true })
    execFileSync('cp', ['-a', this.template, this.paths.tree])
    // cp gives new inodes and ctimes; refresh the indexes now so `git status` in the sandbox has
    // nothing to rewrite. Hooks and fsmonitor off: they are markers here.
    for (const repo of REPOSITORIES) {
      execFileSync(
        'git',
        ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'update-index', '-q', '--refresh'],
        {
          cwd: join(this.paths.tree, repo),
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(this.paths.tree, 'home') },
          stdio: 'ignore',
          ...asSandboxUser(this.ids),
        },
      )
    }
    this.baseline = snapshot(this.paths.tree)
    this.clearMarkers()
  }

  private clearMarkers(): void {
    rmSync(this.paths.markers, { recursive: true, force: true })
    mkdirSync(this.paths.markers, { mode: 0o755 })
    if (this.ids.switchUser) chownTree(this.paths.markers, this.ids.uid, this.ids.gid)
  }

  async run(command: string, timeoutMs: number): Promise<Observation> {
    for (let attempt = 1; ; attempt++) {
      if (this.baseline === undefined) this.reset()
      const exit = await runSandboxed(this.paths, command, { timeoutMs, ids: this.ids, ...this.tools })
      const changes = diffSnapshots(this.baseline!, snapshot(this.paths.tree), TRANSIENT_DIRS)
      const { markers, trace, traceIncomplete } = this.collect()
      if (changes.length > 0) this.baseline = undefined // next run starts from a fresh copy
      this.clearMarkers()
      // bubblewrap itself failed (no namespace left, out of memory): nothing ran, so this says
      // nothing about the command. Try again; then stop the run with the reason, never a verdict.
      const notStarted = traceIncomplete && trace.execs.length === 0 && /^bwrap: /m.test(exit.stderr)
      if (!notStarted) return { exit, changes, markers, trace, traceIncomplete }
      if (attempt === 3)
        throw new Error(
          `bubblewrap could not start the sandbox (3 attempts): ${exit.stderr.trim().slice(0, 500)}`,
        )
    }
  }

  private collect(): { markers: MarkerRun[]; trace: Trace; traceIncomplete: boolean } {
    let markers: MarkerRun[] = []
    const files = new Map<number, string>()
    let bytes = 0
    let traceIncomplete = false
    for (const name of readdirSync(this.paths.markers)) {
      const path = join(this.paths.markers, name)
      if (name === MARKER_LOG) {
        markers = parseMarkerLog(readFileSync(path, 'utf8').slice(0, MAX_MARKER_LOG))
        continue
      }
      const m = new RegExp(`^${TRACE_PREFIX}\\.(\\d+)$`).exec(name)
      if (m === null) continue
      const text = readFileSync(path, 'latin1')
      bytes += text.length
      if (bytes > MAX_TRACE_BYTES) {
        traceIncomplete = true
        break
      }
      files.set(Number(m[1]), text)
    }
    if (files.size === 0) traceIncomplete = true
    return { markers, trace: parseTrace(files), traceIncomplete }
  }
}
