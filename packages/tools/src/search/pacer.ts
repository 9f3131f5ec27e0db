import { setImmediate as nextTurn } from 'node:timers/promises'

// Synchronous work on the agent's thread comes in slices (issue 13 §3): a search counts what it
// does (characters x the matcher's program size, about the steps RE2 takes) and, every
// SLICE_BUDGET units, gives the event loop a turn and checks the call's signal. A slice is a few
// milliseconds, so timers, other calls, a timeout and an abort all get through.

/** Work units per slice (~4M RE2 steps: a few ms). */
export const SLICE_BUDGET = 1 << 22

export class Pacer {
  #spent = 0

  constructor(private readonly signal: AbortSignal) {}

  /** Count `units` of work done; past the budget, yield one turn of the event loop. */
  async spend(units: number): Promise<void> {
    this.#spent += units
    if (this.#spent < SLICE_BUDGET) return
    this.#spent = 0
    await nextTurn()
    this.signal.throwIfAborted()
  }
}
