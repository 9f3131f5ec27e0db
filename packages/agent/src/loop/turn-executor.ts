// Runs one turn's tool calls. Batch mode (the default) collects the complete calls and makes ONE
// `runtime.executeBatch` when the reply has ended. Streaming mode (seed 003 §7) starts work while
// the model is still talking, without a scheduler of its own: the pipeline and the batch scheduler
// stay the only code that runs calls (§7.5), so hooks and approvals fire exactly once per call.
//
// Streaming splits the turn at the same partition boundaries the batch scheduler uses (a maximal
// run of parallel-safe calls, or one exclusive call) and hands each closed partition to
// executeBatch as soon as it is closed and the partitions before it are done. A run of parallel
// calls is closed by the next exclusive call or by the end of the reply. Partitions run one after
// another, so calls start, pass pre-execute (approval prompts) and commit in model order, exactly
// as in one batch; each partition starts no later than it would in batch mode.
//
// The one rule that spans partitions in core is the sibling cascade (a failed call of a tool that
// declares `cascadeOnFailure` skips its later same-tool siblings in the batch). Once a call of such
// a tool appears, everything from it on waits for the end of the reply and runs as one batch, so
// the cascade sees the same siblings as in batch mode.
import type { AnyToolDefinition, Runtime, ToolCall, ToolResult } from '@toolgate/core'

export interface TurnExecutorOptions {
  readonly runtime: Runtime
  readonly signal: AbortSignal
  readonly streaming: boolean
  readonly maxParallel?: number
  readonly onSettled: (result: ToolResult) => void
  readonly definition: (call: ToolCall) => AnyToolDefinition | undefined
}

export class TurnExecutor {
  private readonly calls: ToolCall[] = []
  /** Results by the call's position in `calls` (a group is a list of positions, not a Map). */
  private readonly results: (ToolResult | undefined)[] = []
  /** Positions of calls not handed to a partition yet (model order). */
  private pending: number[] = []
  private chain: Promise<void> = Promise.resolve()
  private hold = false
  private stopped = false
  /** Positions of calls whose partition was scheduled but never started because the turn stopped. */
  private readonly skipped: number[] = []

  constructor(private readonly options: TurnExecutorOptions) {}

  /** Add the next complete call, in model order. */
  add(call: ToolCall): void {
    const at = this.calls.push(call) - 1
    if (!this.options.streaming) {
      this.pending.push(at)
      return
    }
    // `true` or a per-result policy (bash's, issue 17): either way the tool cascades.
    const cascades = this.options.definition(call)?.cascadeOnFailure
    if (!this.hold && cascades !== undefined && cascades !== false) this.hold = true
    if (this.hold) {
      this.pending.push(at)
      return
    }
    if (this.options.runtime.mode(call).kind === 'exclusive') {
      this.flush()
      this.schedule([at])
    } else {
      this.pending.push(at)
    }
  }

  get size(): number {
    return this.calls.length
  }

  /** The reply is complete: run what is left; results in model order. */
  async finish(): Promise<ToolResult[]> {
    this.flush()
    await this.chain
    return this.ordered()
  }

  /**
   * The reply will not be run (a stream failure, an abort, a refusal, an unknown stop reason):
   * started calls finish (or see the abort), the others are settled through the pipeline as
   * cancelled with an already-aborted signal, so each is logged and answered exactly once.
   */
  async cancel(reason: unknown): Promise<ToolResult[]> {
    const notStarted = await this.stop()
    if (notStarted.length > 0) {
      const aborted = new AbortController()
      aborted.abort(reason)
      const results = await this.options.runtime.executeBatch(
        notStarted.map((at) => this.calls[at]!),
        { signal: aborted.signal, onSettled: this.options.onSettled },
      )
      this.store(notStarted, results)
    }
    return this.ordered()
  }

  /** The reply was cut by the token limit: started calls finish; the others are returned unrun. */
  async drop(): Promise<(ToolResult | undefined)[]> {
    await this.stop()
    return this.calls.map((_, at) => this.results[at])
  }

  private async stop(): Promise<number[]> {
    this.stopped = true
    const left = this.pending
    this.pending = []
    await this.chain
    return [...this.skipped, ...left].sort((a, b) => a - b)
  }

  private flush(): void {
    if (this.pending.length === 0) return
    const group = this.pending
    this.pending = []
    this.schedule(group)
  }

  private schedule(group: number[]): void {
    this.chain = this.chain.then(async () => {
      if (this.stopped) {
        this.skipped.push(...group)
        return
      }
      const results = await this.options.runtime.executeBatch(
        group.map((at) => this.calls[at]!),
        {
          signal: this.options.signal,
          ...(this.options.maxParallel === undefined ? {} : { maxParallel: this.options.maxParallel }),
          onSettled: this.options.onSettled,
        },
      )
      this.store(group, results)
    })
  }

  private store(group: readonly number[], results: readonly ToolResult[]): void {
    for (let i = 0; i < group.length; i++) this.results[group[i]!] = results[i]!
  }

  private ordered(): ToolResult[] {
    return this.calls.map((c, at) => {
      const r = this.results[at]
      if (!r) throw new Error(`internal: call ${c.callId} has no result`)
      return r
    })
  }
}
