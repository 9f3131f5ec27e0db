import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { compileLineSearch, searchLines } from './line-search.js'

// The part of a JS-backend search too big for one slice of the agent's thread (issue 13 §3): a
// pattern whose compilation could take long (counted repetitions, very long patterns), or one line
// longer than a slice's budget (a minified bundle). It runs in a worker thread of this call, which
// the call's signal (its timeout, an abort) terminates at once, wherever RE2JS is. Started only
// when needed, ended with the call.

/** Heap cap of the worker: a 64 MB file as a string plus RE2JS's state fit; more is an error. */
const WORKER_HEAP_MB = 512

const ENGINE = createRequire(import.meta.url).resolve('re2js')

// The worker's program: the same two functions as the agent's thread runs (their source).
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { RE2JS } = require(workerData.engine)
const compileLineSearch = ${compileLineSearch.toString()}
const searchLines = ${searchLines.toString()}
let search
parentPort.on('message', (m) => {
  if (m.pattern !== undefined) {
    try {
      search = compileLineSearch(RE2JS, m.pattern)
      parentPort.postMessage({ id: m.id, lines: [] })
    } catch (error) {
      parentPort.postMessage({ id: m.id, error: String((error && error.message) || error) })
    }
    return
  }
  parentPort.postMessage({ id: m.id, lines: searchLines(search, m.text, m.first) })
})
`

/** Workers started in this process (tests check that a search took the worker's path). */
export const matchWorkerStats = { started: 0 }

/** A pattern the worker could not compile (RE2 syntax), with RE2's message. */
export class WorkerPatternError extends Error {
  override readonly name = 'WorkerPatternError'
}

type Reply =
  | { readonly id: number; readonly lines: number[] }
  | { readonly id: number; readonly error: string }

export class MatchWorker {
  #worker: Worker | undefined
  #ready: Promise<void> | undefined
  #failure: unknown
  #seq = 0
  readonly #pending = new Map<number, { resolve: (lines: number[]) => void; reject: (e: unknown) => void }>()
  readonly #onAbort = () => this.#fail(this.signal.reason)

  constructor(
    private readonly pattern: string,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', this.#onAbort, { once: true })
  }

  /** 0-based numbers of the matching lines of `text` (see `searchLines`). */
  async search(text: string, first: boolean): Promise<number[]> {
    await this.#start()
    return this.#send({ text, first })
  }

  /** Compile the pattern in the worker; rejects with WorkerPatternError on a syntax error. */
  async #start(): Promise<void> {
    this.#ready ??= (async () => {
      this.signal.throwIfAborted()
      const worker = new Worker(SOURCE, {
        eval: true,
        workerData: { engine: ENGINE },
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      })
      this.#worker = worker
      matchWorkerStats.started++
      worker.unref()
      worker.on('message', (reply: Reply) => {
        const waiter = this.#pending.get(reply.id)
        if (waiter === undefined) return
        this.#pending.delete(reply.id)
        if ('error' in reply) waiter.reject(new WorkerPatternError(reply.error))
        else waiter.resolve(reply.lines)
      })
      worker.on('error', (error) => this.#fail(error))
      worker.on('exit', (code) => this.#fail(new Error(`the match worker exited (code ${code})`)))
      await this.#send({ pattern: this.pattern })
    })()
    return this.#ready
  }

  #send(message: { pattern: string } | { text: string; first: boolean }): Promise<number[]> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure)
    const id = ++this.#seq
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#worker?.postMessage({ id, ...message })
    })
  }

  #fail(reason: unknown): void {
    this.#failure ??= reason
    for (const waiter of this.#pending.values()) waiter.reject(this.#failure)
    this.#pending.clear()
    void this.#worker?.terminate()
  }

  /** End the worker (the call is over). */
  async close(): Promise<void> {
    this.signal.removeEventListener('abort', this.#onAbort)
    this.#failure ??= new Error('the match worker was closed')
    await this.#worker?.terminate()
  }
}
