/**
 * What the host thread (sandbox.ts, vm-pool.ts) and a sandbox worker thread (vm-worker.ts) say
 * to each other: the messages, the control slots and the log journal's layout (and its reader).
 *
 * A worker runs one program at a time. The host posts a message and then rings the worker's bell
 * (an Int32 in shared memory: add 1, notify), because the worker waits with `Atomics.wait` and
 * takes messages with `receiveMessageOnPort`; it never returns to its own event loop. To stop a
 * run, the host writes its id + 1 into the stop slot and rings: the VM's interrupt handler and the
 * worker's waits read it, and the worker answers `done` with kind `stopped`, unless the program is
 * inside a native builtin that never returns (then the host terminates the worker).
 */

/** Int32 slots of a worker's control buffer (shared memory). */
export const CONTROL = { bell: 0, stop: 1, slots: 2 } as const
type ControlSlots = typeof CONTROL

/** Given to a worker when it starts (its `workerData`). */
export interface WorkerConfig {
  /** `CONTROL.slots` Int32s: the bell (the host adds 1 and notifies after every message it posts) and the stop slot */
  readonly control: SharedArrayBuffer
  readonly slots: ControlSlots
  /** absolute paths of quickjs-emscripten-core and the one WebAssembly build (CommonJS entries) */
  readonly paths: { readonly core: string; readonly variant: string }
  /** the JavaScript the VM runs before every program (prelude.ts) and the names stack frames show */
  readonly prelude: string
  readonly preludeFilename: string
  readonly programFilename: string
  /** a program (plain JavaScript, wrapped) the worker runs once before it reports ready; its one tool is `warmup` */
  readonly warmup: string
  readonly journal: JournalLayout
}

/** Host -> worker. */
export type HostMessage =
  /** the compiled QuickJS WebAssembly module: compiled once per process, instantiated per worker */
  { readonly type: 'module'; readonly module: WebAssembly.Module } | RunRequest | SettleBatch

export interface RunRequest {
  readonly type: 'run'
  readonly runId: number
  /** the program after type stripping: an async arrow function expression */
  readonly js: string
  readonly tools: readonly string[]
  readonly memoryBytes: number
  readonly maxStackBytes: number
  readonly maxOutputBytes: number
  /** the longest JSON text (UTF-16 code units) one sub-call's arguments may be */
  readonly maxArgsChars: number
  /** JSON of the sub-call limits the prelude enforces (sub-calls.ts `subCallLimits`) */
  readonly subCallLimits: string
  /** the run's log journal (see JournalLayout), `journalBytes(maxOutputBytes)` long */
  readonly journal: SharedArrayBuffer
}

/**
 * Sub-calls settled since the last batch. `codes[i]` is the sub-call's id, or `-id - 1` when it
 * failed; `texts[i]` is the value's JSON, or `["message", "tool name"]` for a failure (the
 * prelude's port convention, prelude.ts).
 */
export interface SettleBatch {
  readonly type: 'settle'
  readonly runId: number
  readonly codes: readonly number[]
  readonly texts: readonly string[]
}

/** Worker -> host. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'boot-failed'; readonly message: string }
  /** the sub-calls the program made in one turn, as the prelude framed them: `<tool index>\n<args JSON>\n` */
  | { readonly type: 'calls'; readonly runId: number; readonly frames: string }
  | RunDone

export interface RunDone {
  readonly type: 'done'
  readonly runId: number
  readonly outcome: VmOutcome
  /** false when the engine may be corrupt (a wasm trap, a failed teardown): the host retires the worker */
  readonly healthy: boolean
  /** the worker's WebAssembly memory after the run (it never shrinks): large ones are retired */
  readonly wasmBytes: number
}

/** How a program ended, as the worker saw it; the host turns it into a SandboxResult (outcome.ts). */
export type VmOutcome =
  | { readonly kind: 'void' }
  | { readonly kind: 'value'; readonly json: string }
  /** an uncaught exception: `ThrownDescription` as JSON */
  | { readonly kind: 'thrown'; readonly json: string }
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'syntax'; readonly json: string }
  | { readonly kind: 'output-limit' }
  /** the host asked the run to stop (deadline, cancellation) and has already ended it */
  | { readonly kind: 'stopped' }
  /** nothing can happen any more: no job, no pending sub-call, no result (the runner died or the program awaits forever) */
  | { readonly kind: 'stuck'; readonly lastError: string | undefined }
  /** a host-level failure inside the engine (a wasm trap, the worker's own stack) */
  | { readonly kind: 'engine'; readonly message: string }

/** What the VM reports about a thrown value (prelude.ts `describeError`). */
export interface ThrownDescription {
  readonly head: string
  readonly name: string
  readonly stack: string
  readonly toolName?: string
}

/**
 * The log journal: the program's console lines, written by the worker into shared memory as they
 * are logged, so the host has every line even when it has to terminate a worker that never
 * answers again. Bytes `[0, headerBytes)` hold an Int32 with the number of entry bytes written
 * (stored after the bytes themselves); entries follow, each a line's UTF-8 and one `separator`
 * byte, 0xFF, which UTF-8 never contains. A line costs its UTF-8 length + 1 bytes of the output
 * limit, exactly its size here, so the journal never needs more than the limit.
 */
export interface JournalLayout {
  readonly headerBytes: number
  readonly separator: number
}

export const JOURNAL: JournalLayout = { headerBytes: 8, separator: 0xff }

export function journalBytes(maxOutputBytes: number): number {
  return JOURNAL.headerBytes + maxOutputBytes
}

/** The lines written to a journal so far (a snapshot: the worker may still be writing). */
export function readJournal(journal: SharedArrayBuffer): string[] {
  const written = Atomics.load(new Int32Array(journal, 0, 1), 0)
  // TextDecoder refuses views of shared memory: copy the written part first
  const bytes = new Uint8Array(journal, JOURNAL.headerBytes, written).slice()
  const decoder = new TextDecoder()
  const lines: string[] = []
  let at = 0
  while (at < bytes.length) {
    const end = bytes.indexOf(JOURNAL.separator, at)
    if (end < 0) break
    lines.push(decoder.decode(bytes.subarray(at, end)))
    at = end + 1
  }
  return lines
}
