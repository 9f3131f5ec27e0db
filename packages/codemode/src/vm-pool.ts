import { Worker } from 'node:worker_threads'
import { enginePaths, loadWasmModule } from './engine.js'
import { PRELUDE_SOURCE } from './prelude.js'
import { PROGRAM_FILENAME, PROGRAM_PREFIX, PROGRAM_SUFFIX } from './strip.js'
import {
  CONTROL,
  type HostMessage,
  JOURNAL,
  type RunDone,
  type WorkerConfig,
  type WorkerMessage,
} from './vm-protocol.js'
import { vmWorkerMain } from './vm-worker.js'

/**
 * The sandbox workers of this process: warm threads with QuickJS loaded, one program at a time
 * each. A worker costs ~40-150 ms to start on the shared 2-core machine (Node's own worker start,
 * then QuickJS and one throwaway run), 10-50x a whole trivial run, so workers are kept and reused;
 * a run gets a fresh QuickJS runtime + context inside one (no state crosses runs).
 *
 * A run the host ends (deadline, cancellation) has already returned its result; its worker is
 * asked to stop through shared memory and gets STOP_GRACE_MS to confirm (a busy loop, a wait for
 * a sub-call or a flood of jobs confirms within microseconds), then goes back to the pool. One
 * that does not confirm in time (a native builtin that never polls the interrupt handler) is
 * terminated, and so is one that may be corrupt or holds a large wasm memory. Terminated workers
 * are replaced in the background while someone uses the pool.
 *
 * Idle and starting workers are unref'd: they never keep the process alive. At most MAX_IDLE
 * wait idle; `retain()` marks a user who wants one warm (the `codeMode()` plugin while installed);
 * when the last user releases, the workers that serve no run are terminated.
 */

/** Idle workers kept for the next runs (more run at once on demand, then are terminated). */
const MAX_IDLE = 2
/**
 * A worker whose WebAssembly memory grew past this is retired after its run: wasm memory never
 * shrinks, and a run near the 64 MiB default limit would leave that much held by an idle thread.
 */
const RETIRE_WASM_BYTES = 48 * 1024 * 1024
/**
 * How long a stopped run's worker has to confirm before it is terminated. The run's result does
 * not wait for it; a longer grace only lets a runaway builtin burn its thread a little longer, and
 * a shorter one terminated healthy workers that a loaded machine had not scheduled in time.
 */
const STOP_GRACE_MS = 1_000
/** A worker that has not booted by then is terminated (measured boots: 40 ms idle, ~1 s overloaded). */
const BOOT_TIMEOUT_MS = 30_000

export interface VmLease {
  /** Post to the worker and ring its bell. Nothing happens once the lease has ended. */
  send(message: HostMessage): void
  /** Where the worker's messages and its death go while the lease lasts. */
  listen(onMessage: (message: WorkerMessage) => void, onFailure: (message: string) => void): void
  /**
   * The run ended cleanly (its `done` message), or never started (no `done`): the worker goes back
   * to the pool, or retires when its report says so.
   */
  release(done?: RunDone): void
  /** The host ended run `runId` (deadline, cancellation): stop it, then reuse or terminate the worker. */
  stop(runId: number): void
}

interface VmPoolStats {
  readonly idle: number
  readonly busy: number
  readonly booting: number
  readonly stopping: number
  /** workers started since the pool was created */
  readonly spawned: number
}

export interface VmPool {
  /** A ready worker for one run; rejects when `signal` aborts first or a worker cannot start. */
  acquire(signal: AbortSignal): Promise<VmLease>
  /** Keep a worker warm while the returned release has not been called. */
  retain(): () => void
  stats(): VmPoolStats
  /** Resolves once no worker is starting, stopping or being terminated (for tests and benches). */
  quiet(): Promise<void>
}

type State = 'booting' | 'idle' | 'busy' | 'stopping' | 'dead'

interface Pooled {
  readonly worker: Worker
  readonly control: Int32Array
  readonly ready: Promise<void>
  state: State
  /** an acquire is waiting for this booting worker */
  claimed: boolean
  onMessage?: ((message: WorkerMessage) => void) | undefined
  onFailure?: ((message: string) => void) | undefined
}

/**
 * The worker's throwaway first program (already plain JavaScript): the paths a first model
 * program takes, so that they are compiled before one arrives. Its one tool, `warmup`, is answered
 * `{ "n": 1 }` inside the worker.
 */
const WARMUP_PROGRAM = `${PROGRAM_PREFIX}const r = await tools.warmup({ path: 'a.ts', lines: [1, 2] })
console.log('warm', r.n)
try { await Promise.all([tools.warmup({}), tools.warmup({ x: true })]) } catch (e) { console.error(e) }
return \`\${r.n}!\`${PROGRAM_SUFFIX}`

let source: string | undefined

/** The worker's script: load the two CommonJS entries, then run `vmWorkerMain` from its text. */
function workerSource(): string {
  source ??= [
    "'use strict'",
    "const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads')",
    // The engine's only output is the assertion QuickJS prints (console.error, bound when the
    // engine loads) before it aborts after an out-of-memory; the run's result already says what
    // happened and the worker retires, so the sandbox thread prints nothing into the host's terminal.
    'console.error = () => {}',
    'const core = require(workerData.paths.core)',
    'const variant = require(workerData.paths.variant).default',
    `;(${vmWorkerMain.toString()})({ core, variant, port: parentPort, receive: receiveMessageOnPort, config: workerData })`,
  ].join('\n')
  return source
}

export function createVmPool(): VmPool {
  const all = new Set<Pooled>()
  const idle: Pooled[] = []
  let users = 0
  let spawned = 0
  const terminating = new Set<Promise<void>>()
  let waiters: (() => void)[] = []
  /** Wake `quiet()` callers when nothing is in transition any more. */
  const changed = (): void => {
    if (waiters.length === 0 || terminating.size > 0) return
    for (const w of all) if (w.state === 'booting' || w.state === 'stopping') return
    const wake = waiters
    waiters = []
    for (const f of wake) f()
  }

  const ring = (w: Pooled, message?: HostMessage): void => {
    if (message) w.worker.postMessage(message)
    Atomics.add(w.control, CONTROL.bell, 1)
    Atomics.notify(w.control, CONTROL.bell)
  }

  const kill = (w: Pooled): void => {
    if (w.state === 'dead') return
    w.state = 'dead'
    all.delete(w)
    const at = idle.indexOf(w)
    if (at >= 0) idle.splice(at, 1)
    const gone: Promise<void> = w.worker.terminate().then(
      () => {
        terminating.delete(gone)
        changed()
      },
      () => {
        terminating.delete(gone)
        changed()
      },
    )
    terminating.add(gone)
  }

  /**
   * Acquirers waiting for a starting worker: a worker that becomes free first (a stopped run's
   * worker confirming, a spare finishing its boot) goes to the first of them, which would
   * otherwise wait for a whole worker start. Each answers whether it took the worker.
   */
  const waiting: ((w: Pooled) => boolean)[] = []

  const park = (w: Pooled): void => {
    w.onMessage = undefined
    w.onFailure = undefined
    for (let take = waiting.shift(); take; take = waiting.shift()) if (take(w)) return
    if (idle.length >= MAX_IDLE) {
      kill(w)
      return
    }
    w.state = 'idle'
    w.worker.unref()
    idle.push(w)
    changed()
  }

  const spawn = (): Pooled => {
    const control = new Int32Array(new SharedArrayBuffer(CONTROL.slots * 4))
    const config: WorkerConfig = {
      control: control.buffer as SharedArrayBuffer,
      slots: CONTROL,
      paths: enginePaths(),
      prelude: PRELUDE_SOURCE,
      preludeFilename: 'prelude.js',
      programFilename: PROGRAM_FILENAME,
      warmup: WARMUP_PROGRAM,
      journal: JOURNAL,
    }
    // execArgv: none of the host's flags: `--input-type=module` would make this script a module,
    // and a host's `--import` hooks have no business in the sandbox's thread
    const worker = new Worker(workerSource(), { eval: true, workerData: config, execArgv: [] })
    spawned++
    worker.unref()
    let booted!: () => void
    let bootFailed!: (error: Error) => void
    const ready = new Promise<void>((resolve, reject) => {
      booted = resolve
      bootFailed = reject
    })
    // nobody may be waiting for a spare worker's boot
    ready.catch(() => {})
    const w: Pooled = { worker, control, ready, state: 'booting', claimed: false }
    all.add(w)
    const fail = (message: string): void => {
      clearTimeout(bootTimer)
      const state = w.state
      const onFailure = w.onFailure
      kill(w)
      if (state === 'booting') bootFailed(new Error(message))
      else if (state === 'busy') onFailure?.(message)
    }
    const bootTimer = setTimeout(
      () => fail(`the sandbox worker did not start within ${BOOT_TIMEOUT_MS} ms`),
      BOOT_TIMEOUT_MS,
    )
    bootTimer.unref()
    worker.on('message', (message: WorkerMessage) => {
      if (w.state === 'booting') {
        if (message.type === 'ready') {
          clearTimeout(bootTimer)
          booted()
          if (!w.claimed) park(w)
        } else if (message.type === 'boot-failed') fail(message.message)
      } else w.onMessage?.(message)
    })
    worker.on('error', (error) => fail(error.message))
    worker.on('exit', (code) => fail(`the sandbox worker exited (code ${code})`))
    loadWasmModule().then(
      (module) => {
        if (w.state !== 'dead') ring(w, { type: 'module', module })
      },
      (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
    )
    return w
  }

  const warm = (): void => {
    if (users === 0 || idle.length > 0) return
    for (const w of all) if (w.state === 'booting' && !w.claimed) return
    spawn()
  }

  const lease = (w: Pooled): VmLease => {
    w.state = 'busy'
    w.worker.ref()
    changed()
    let open = true
    const end = (): boolean => {
      if (!open) return false
      open = false
      w.onMessage = undefined
      w.onFailure = undefined
      return true
    }
    return {
      send(message) {
        if (open && w.state === 'busy') ring(w, message)
      },
      listen(onMessage, onFailure) {
        if (!open) return
        w.onMessage = onMessage
        w.onFailure = (message) => {
          if (end()) onFailure(message)
        }
      },
      release(done) {
        if (!end() || w.state !== 'busy') return
        settle(w, done)
      },
      stop(runId) {
        if (!end() || w.state !== 'busy') return
        w.state = 'stopping'
        Atomics.store(w.control, CONTROL.stop, runId + 1)
        ring(w)
        const grace = setTimeout(() => {
          kill(w)
          warm()
        }, STOP_GRACE_MS)
        grace.unref()
        w.onMessage = (message) => {
          if (message.type !== 'done' || message.runId !== runId) return
          clearTimeout(grace)
          settle(w, message)
        }
      },
    }
  }

  /** After a run: back to the pool, or retired when the engine may be corrupt or holds a lot. */
  const settle = (w: Pooled, done: RunDone | undefined): void => {
    if (done && (!done.healthy || done.wasmBytes > RETIRE_WASM_BYTES)) {
      kill(w)
      warm()
    } else park(w)
  }

  return {
    async acquire(signal) {
      signal.throwIfAborted()
      const ready = idle.pop()
      if (ready) return lease(ready)
      let w: Pooled | undefined
      for (const candidate of all) {
        if (candidate.state === 'booting' && !candidate.claimed) {
          w = candidate
          break
        }
      }
      w ??= spawn()
      w.claimed = true
      const chosen = w
      /** the chosen worker is not needed after all: it becomes a spare once it has booted */
      const unclaim = (): void => {
        chosen.claimed = false
        if (chosen.state === 'booting')
          chosen.ready.then(
            () => chosen.state === 'booting' && park(chosen),
            () => {},
          )
      }
      let handed: VmLease | undefined
      let open = true
      let onHanded!: () => void
      const take = (free: Pooled): boolean => {
        if (!open) return false
        open = false
        handed = lease(free)
        onHanded()
        return true
      }
      waiting.push(take)
      let onAbort: (() => void) | undefined
      let failed = false
      let failure: unknown
      try {
        await Promise.race([
          chosen.ready,
          new Promise<void>((resolve) => {
            onHanded = resolve
          }),
          new Promise<never>((_resolve, reject) => {
            onAbort = () => reject(signal.reason)
            signal.addEventListener('abort', onAbort, { once: true })
          }),
        ])
      } catch (error) {
        failed = true
        failure = error
      } finally {
        open = false
        const at = waiting.indexOf(take)
        if (at >= 0) waiting.splice(at, 1)
        if (onAbort) signal.removeEventListener('abort', onAbort)
      }
      // a worker handed over counts even when the chosen one booted or failed in the same moment
      const other = handed as VmLease | undefined
      if (other && !signal.aborted) {
        unclaim()
        return other
      }
      other?.release()
      if (failed || signal.aborted) {
        unclaim()
        throw failed ? failure : signal.reason
      }
      if (chosen.state === 'dead') throw new Error('the sandbox worker exited before its first run')
      return lease(chosen)
    },
    retain() {
      users++
      warm()
      let released = false
      return () => {
        if (released) return
        released = true
        users--
        if (users > 0) return
        // what serves no run: idle, spare and stopping workers (a disposed plugin's runs are stopping)
        for (const w of [...all]) {
          if (w.state === 'idle' || w.state === 'stopping' || (w.state === 'booting' && !w.claimed)) kill(w)
        }
      }
    },
    stats() {
      let busy = 0
      let booting = 0
      let stopping = 0
      for (const w of all) {
        if (w.state === 'busy') busy++
        else if (w.state === 'booting') booting++
        else if (w.state === 'stopping') stopping++
      }
      return { idle: idle.length, busy, booting, stopping, spawned }
    },
    quiet() {
      return new Promise<void>((resolve) => {
        waiters.push(resolve)
        changed()
      })
    },
  }
}

let shared: VmPool | undefined

/** The process's pool, used by every run unless a test passes its own. */
export function sharedVmPool(): VmPool {
  shared ??= createVmPool()
  return shared
}
