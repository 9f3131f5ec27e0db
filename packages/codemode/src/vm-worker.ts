import type { MessagePort } from 'node:worker_threads'
import type * as QuickJSCore from 'quickjs-emscripten-core'
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSSyncVariant,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core'
import type {
  HostMessage,
  RunDone,
  RunRequest,
  SettleBatch,
  VmOutcome,
  WorkerConfig,
  WorkerMessage,
} from './vm-protocol.js'

/** A VM made ahead of its program (vm-worker.ts `prepare`): used by one run, disposed with it. */
interface Prepared {
  readonly runtime: QuickJSRuntime
  readonly ctx: QuickJSContext
  /** the prelude, compiled, not yet called */
  readonly preludeFn: QuickJSHandle
}

/** What the worker's bootstrap (vm-pool.ts `workerSource`) hands to `vmWorkerMain`. */
export interface WorkerEnv {
  readonly core: typeof QuickJSCore
  readonly variant: QuickJSSyncVariant
  readonly port: MessagePort
  readonly receive: (port: MessagePort) => { readonly message: unknown } | undefined
  readonly config: WorkerConfig
}

/**
 * The sandbox worker thread: QuickJS runs here, one program at a time, so the host can always
 * stop a program by terminating the thread (DESIGN.md §3). QuickJS's job queue and its native
 * builtins never poll the interrupt handler (a promise fan-out, `new Array(2 ** 32 - 1).join()`),
 * so a program on the agent's own thread could hold it for minutes; here it holds only this thread.
 *
 * This function runs from its source text (`vmWorkerMain.toString()`, see vm-pool.ts): it may use
 * its parameter and the globals of a Node worker, nothing else from this module or any other
 * (imports here are types only).
 *
 * Per run: a fresh QuickJS runtime + context with the memory and stack limits, the prelude (the
 * `tools` binding, console, the sub-call port), the program; then turns until the program settles:
 * run every pending job, send the sub-calls it made (one message per turn), wait for settlements
 * (every one that has arrived crosses before the next pump). The runtime, the context and the
 * compiled prelude are made while the worker waits for the program (`prepare`); each serves one
 * program and is disposed with it. Console lines go straight into the
 * run's shared journal (vm-protocol.ts). The worker never decides about time: the host owns the
 * deadline and cancellation, asks a run to stop through the stop slot (read by the interrupt
 * handler, between job chunks and while waiting), and terminates the thread when it does not.
 */
export function vmWorkerMain(env: WorkerEnv): void {
  /** Jobs per pump between two looks at the stop slot (the interrupt handler reads it inside a chunk too). */
  const JOB_CHUNK = 1000
  const { core, port, receive, config } = env
  const control = new Int32Array(config.control)
  const { bell, stop } = config.slots
  const post = (message: WorkerMessage): void => port.postMessage(message)
  /** The next message from the host, or undefined when none is queued. */
  const poll = (): HostMessage | undefined => receive(port)?.message as HostMessage | undefined
  /** Messages this thread gives itself: the warm-up's settlements (nothing from the host waits here). */
  const local: HostMessage[] = []
  /**
   * Block until the host posts a message (it rings the bell after each one), or until it asks
   * run `runId` to stop (then undefined).
   */
  const next = (runId?: number): HostMessage | undefined => {
    for (;;) {
      const rung = Atomics.load(control, bell)
      if (runId !== undefined && Atomics.load(control, stop) === runId + 1) return undefined
      const message = local.shift() ?? poll()
      if (message) return message
      Atomics.wait(control, bell, rung)
    }
  }
  const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

  // ---- boot: the host compiles the WebAssembly module once per process and sends it ----
  let first = next()
  while (first?.type !== 'module') first = next()
  core.newQuickJSWASMModuleFromVariant(core.newVariant(env.variant, { wasmModule: first.module })).then(
    (qjs) => {
      // One throwaway run before saying ready: V8 compiles the engine's WebAssembly lazily, a
      // function on its first call, and the first run in a thread measured 2-5x the next ones.
      // The warm-up takes the paths a first program takes (the prelude, a console line, a
      // sub-call and its settlement, a result), so a worker boots before anyone waits for it.
      // Its sub-call is answered here (`local`), never sent; its id is no host run's (those
      // count from 0), and its output goes nowhere.
      const warmupOutput = 1024
      runOne(
        qjs,
        {
          type: 'run',
          runId: -2,
          js: config.warmup,
          tools: ['warmup'],
          memoryBytes: 16 * 1024 * 1024,
          maxStackBytes: 32 * 1024,
          maxOutputBytes: warmupOutput,
          maxArgsChars: warmupOutput,
          subCallLimits:
            '{"maxPending":100,"maxPendingChars":4096,"maxCalls":100,"pendingText":"","callsText":""}',
          journal: new SharedArrayBuffer(config.journal.headerBytes + warmupOutput),
        },
        prepareSpare(qjs),
        (runId, count, first) => {
          const codes = Array.from({ length: count }, (_, i) => first + i)
          local.push({ type: 'settle', runId, codes, texts: codes.map(() => '{"n":1}') })
        },
      )
      // ready once the first program's VM is made too: a program never waits for its worker to prepare
      let spare = prepareSpare(qjs)
      post({ type: 'ready' })
      for (;;) {
        const message = next()
        // settlements of a run that already ended are stale
        if (message?.type !== 'run') continue
        post(runOne(qjs, message, spare))
        // the next program's VM is made now, while the host has its result and no program waits
        spare = prepareSpare(qjs)
      }
    },
    (error: unknown) => post({ type: 'boot-failed', message: errorText(error) }),
  )

  /**
   * A fresh runtime and context with the prelude compiled (QuickJS parsing the prelude was ~70%
   * of a trivial run's engine time, ~2 ms): the part of a run that depends on nothing the run
   * brings. It is made for one program and disposed with it; no program has touched it before.
   * The run sets its own limits and interrupt handler before anything of it runs.
   */
  function prepare(qjs: QuickJSWASMModule): Prepared {
    const runtime = qjs.newRuntime()
    let ctx: QuickJSContext | undefined
    try {
      // Typed arrays are left out: measured with quickjs-emscripten 0.32, ArrayBuffer storage
      // escaped the runtime's memory limit (2 GB of Uint8Array under a 16 MB limit).
      ctx = runtime.newContext({ intrinsics: { ...core.DefaultIntrinsics, TypedArrays: false } })
      const compiled = ctx.evalCode(config.prelude, config.preludeFilename)
      if (compiled.error) throw new Error(`the prelude did not compile: ${takeMessage(ctx, compiled.error)}`)
      return { runtime, ctx, preludeFn: compiled.value }
    } catch (error) {
      try {
        ctx?.dispose()
        runtime.dispose()
      } catch {
        // a corrupt engine may fail its own teardown; the error that brought us here is the one to report
      }
      throw error
    }
  }

  /** A spare for the next run, or none when the engine cannot make one now (the run then tries itself). */
  function prepareSpare(qjs: QuickJSWASMModule): Prepared | undefined {
    try {
      return prepare(qjs)
    } catch {
      return undefined
    }
  }

  /**
   * `onCalls` takes the sub-calls of one turn instead of the host (the warm-up): how many, and how
   * many the run made before them (the first one's id).
   */
  function runOne(
    qjs: QuickJSWASMModule,
    request: RunRequest,
    spare: Prepared | undefined,
    onCalls?: (runId: number, count: number, taken: number) => void,
  ): RunDone {
    const { runId } = request
    // ---- the log journal ----
    const written = new Int32Array(request.journal, 0, 1)
    const bytes = Buffer.from(request.journal, config.journal.headerBytes)
    let outputBytes = 0
    /** Append one line to the journal; false when it would pass the output limit. */
    const writeLine = (line: string): boolean => {
      const size = Buffer.byteLength(line, 'utf8') + 1
      if (outputBytes + size > request.maxOutputBytes) return false
      bytes.write(line, outputBytes, 'utf8')
      bytes[outputBytes + size - 1] = config.journal.separator
      outputBytes += size
      Atomics.store(written, 0, outputBytes)
      return true
    }

    /** the output limit was hit */
    let stopping = false
    const stopRequested = (): boolean => Atomics.load(control, stop) === runId + 1
    let outcome: VmOutcome | undefined
    let lastError: string | undefined
    let outstanding = 0
    /** sub-calls this run made so far: the next one's id */
    let made = 0
    let healthy = true
    const handles: QuickJSHandle[] = []
    const keep = <T extends QuickJSHandle>(h: T): T => {
      handles.push(h)
      return h
    }
    let parts: Prepared | undefined = spare
    let result: VmOutcome
    try {
      parts ??= prepare(qjs)
      keep(parts.preludeFn)
      result = execute(parts.runtime, parts.ctx, parts.preludeFn)
    } catch (error) {
      // a host-level error from inside wasm (a trap, this thread's stack): the engine may be corrupt
      healthy = false
      result = { kind: 'engine', message: errorText(error) }
    } finally {
      for (const h of handles) if (h.alive) h.dispose()
      try {
        parts?.ctx.dispose()
        parts?.runtime.dispose()
      } catch {
        // after an out-of-memory QuickJS can fail its own leak assertion while freeing
        healthy = false
      }
    }
    return { type: 'done', runId, outcome: result, healthy, wasmBytes: qjs.getWasmMemory().buffer.byteLength }

    function execute(runtime: QuickJSRuntime, ctx: QuickJSContext, preludeFn: QuickJSHandle): VmOutcome {
      runtime.setMemoryLimit(request.memoryBytes)
      runtime.setMaxStackSize(request.maxStackBytes)
      // The host owns time and cancellation; it asks through the stop slot (and terminates the
      // thread when a native builtin never comes back to this handler).
      runtime.setInterruptHandler(() => stopping || stopRequested())

      // answers true once the run is stopping: the prelude then rejects further tool calls itself
      const hostLog = keep(
        ctx.newFunction('hostLog', (levelHandle, textHandle) => {
          if (stopping) return ctx.true
          const level = ctx.getString(levelHandle)
          const text = ctx.getString(textHandle)
          if (writeLine(level === 'warn' || level === 'error' ? `[${level}] ${text}` : text)) return undefined
          stopping = true
          return ctx.true
        }),
      )
      const hostDone = keep(
        ctx.newFunction('hostDone', (tagHandle, textHandle) => {
          if (outcome) return
          const tag = ctx.getNumber(tagHandle)
          const text = ctx.getString(textHandle)
          outcome =
            tag === 0
              ? { kind: 'void' }
              : tag === 1
                ? resultOutcome(text)
                : tag === 2
                  ? { kind: 'thrown', json: text }
                  : { kind: 'invalid', message: text }
        }),
      )
      /**
       * The result counts against the output limit too, as the model reads it (render.ts): a string
       * by its own size, else its JSON pretty-printed with two spaces per level (indentation
       * multiplied a nested 8 KB result to 260 KB). Measured here, on this thread, not the host's.
       */
      const resultOutcome = (json: string): VmOutcome => {
        const value: unknown = JSON.parse(json)
        const size = Buffer.byteLength(
          typeof value === 'string' ? value : JSON.stringify(value, null, 2),
          'utf8',
        )
        return outputBytes + size > request.maxOutputBytes
          ? { kind: 'output-limit' }
          : { kind: 'value', json }
      }

      // ---- the prelude, then the program ----
      const names = keep(ctx.newString(JSON.stringify(request.tools)))
      const maxArgs = keep(ctx.newNumber(request.maxArgsChars))
      const callLimits = keep(ctx.newString(request.subCallLimits))
      const bridge = keep(
        ctx.unwrapResult(
          ctx.callFunction(preludeFn, ctx.undefined, hostLog, hostDone, names, maxArgs, callLimits),
        ),
      )
      const runFn = keep(ctx.getProp(bridge, 0))
      // port[0]: the sub-calls made since the last read; port[1] then port[2]: settle one (id,
      // then text); port[3]: the last error settling raised (prelude.ts)
      const portHandle = keep(ctx.getProp(bridge, 1))
      const idKey = keep(ctx.newNumber(1))
      const textKey = keep(ctx.newNumber(2))

      const compiled = ctx.evalCode(request.js, config.programFilename)
      if (compiled.error) {
        const json = describe(ctx, compiled.error)
        compiled.error.dispose()
        return { kind: 'syntax', json }
      }
      const program = keep(compiled.value)
      const started = ctx.callFunction(runFn, ctx.undefined, program)
      if (started.error) lastError = takeMessage(ctx, started.error)
      else started.value.dispose()

      const settle = (batch: SettleBatch): void => {
        for (let i = 0; i < batch.codes.length; i++) {
          const id = ctx.newNumber(batch.codes[i]!)
          ctx.setProp(portHandle, idKey, id)
          id.dispose()
          const text = ctx.newString(batch.texts[i]!)
          ctx.setProp(portHandle, textKey, text)
          text.dispose()
        }
        outstanding -= batch.codes.length
      }

      // ---- turns: pump, send the new sub-calls, wait for settlements ----
      for (;;) {
        // in chunks, so that a program that only ever queues jobs (a promise fan-out) still
        // reaches the stop check below
        const jobs = runtime.executePendingJobs(JOB_CHUNK)
        if (jobs.error) lastError = takeMessage(ctx, jobs.error)
        if (stopRequested()) return { kind: 'stopped' }
        // a turn the output limit stopped sends nothing: those calls are never started
        if (stopping) return { kind: 'output-limit' }
        const taken = ctx.getProp(portHandle, 0)
        const frames = ctx.getString(taken)
        taken.dispose()
        if (frames.length > 0) {
          const count = countFrames(frames)
          if (onCalls) onCalls(runId, count, made)
          else post({ type: 'calls', runId, frames })
          outstanding += count
          made += count
        }
        if (outcome) return outcome
        if (runtime.hasPendingJob()) continue
        if (outstanding === 0) return { kind: 'stuck', lastError: lastError ?? bridgeError(ctx, portHandle) }
        // every settlement that has arrived crosses now; one pump then runs them all
        let message = next(runId)
        while (message) {
          if (message.type === 'settle' && message.runId === runId) settle(message)
          message = poll()
        }
      }
    }
  }

  /** Frames are `<tool index>\n<args JSON>\n`; JSON text has no raw newline. */
  function countFrames(frames: string): number {
    let lines = 0
    for (let at = frames.indexOf('\n'); at >= 0; at = frames.indexOf('\n', at + 1)) lines++
    return lines >> 1
  }

  /** The `message` of a VM error (a handle this consumes). */
  function takeMessage(ctx: QuickJSContext, error: QuickJSHandle): string {
    try {
      const m = ctx.getProp(error, 'message')
      const text = ctx.typeof(m) === 'string' ? ctx.getString(m) : 'unknown error'
      m.dispose()
      return text
    } catch {
      return 'unknown error'
    } finally {
      error.dispose()
    }
  }

  /** The last error settling raised inside the VM (port[3]), if any. */
  function bridgeError(ctx: QuickJSContext, portHandle: QuickJSHandle): string | undefined {
    const h = ctx.getProp(portHandle, 3)
    const text = ctx.typeof(h) === 'string' ? ctx.getString(h) : undefined
    h.dispose()
    return text
  }

  /** A compile error as a ThrownDescription's JSON. */
  function describe(ctx: QuickJSContext, error: QuickJSHandle): string {
    try {
      const d = ctx.dump(error) as { name?: unknown; message?: unknown; stack?: unknown } | undefined
      const name = typeof d?.name === 'string' ? d.name : 'Error'
      const message = typeof d?.message === 'string' ? d.message : String(d)
      return JSON.stringify({
        head: `${name}: ${message}`,
        name,
        stack: typeof d?.stack === 'string' ? d.stack : '',
      })
    } catch {
      return JSON.stringify({ head: 'SyntaxError', name: 'SyntaxError', stack: '' })
    }
  }
}
