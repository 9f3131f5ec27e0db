// Call deadlines without a timer per call (one Deadlines per runtime, so a test's fake clock
// never meets a timer made on another clock). Creating and clearing a Node timer costs more than
// the rest of a trivial call; a deadline is almost always cancelled (the call settles first). So
// deadlines of the same length share one FIFO list (they expire in the order they were added)
// and one timer armed for the list's oldest live deadline. Cancelling only marks an entry and
// trims cancelled entries from the head, so a list holds little more than the calls in flight.
// An emptied list keeps its timer, unreferenced (it no longer keeps the process alive): the next
// call re-references it instead of creating a timer, and a firing that finds nothing due re-arms
// for the oldest live entry, or lets the timer go.

export interface Deadline {
  /** Forget the deadline (the call settled first); idempotent. */
  cancel(): void
}

class Entry implements Deadline {
  cancelled = false
  constructor(
    readonly at: number,
    readonly expire: () => void,
    private readonly list: DeadlineList,
  ) {}

  cancel(): void {
    if (this.cancelled) return
    this.cancelled = true
    this.list.trim()
  }
}

class DeadlineList {
  private entries: Entry[] = []
  private head = 0
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(readonly ms: number) {}

  add(expire: () => void): Entry {
    const entry = new Entry(performance.now() + this.ms, expire, this)
    const wasEmpty = this.head === this.entries.length
    this.entries.push(entry)
    if (this.timer === undefined) this.arm(entry.at)
    else if (wasEmpty) refTimer(this.timer, true)
    return entry
  }

  /** No live deadline: the list can be dropped. */
  get idle(): boolean {
    return this.head === this.entries.length
  }

  /** Stop the list's timer (it is being dropped). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Drop cancelled entries from the head; an emptied list stops holding the process open. */
  trim(): void {
    const entries = this.entries
    while (this.head < entries.length && entries[this.head]!.cancelled) this.head++
    if (this.head === entries.length) {
      if (entries.length > 0) this.entries = []
      this.head = 0
      if (this.timer !== undefined) refTimer(this.timer, false)
    } else if (this.head > 1024 && this.head * 2 > entries.length) {
      this.entries = entries.slice(this.head)
      this.head = 0
    }
  }

  private arm(at: number): void {
    // The clock only sizes the delay; what is due is decided against `at` (fake timers agree).
    this.timer = setTimeout(() => this.fire(at), Math.max(0, Math.ceil(at - performance.now())))
  }

  private fire(target: number): void {
    this.timer = undefined
    const entries = this.entries
    const due: Entry[] = []
    while (this.head < entries.length) {
      const entry = entries[this.head]!
      if (!entry.cancelled) {
        if (entry.at > target) break
        entry.cancelled = true
        due.push(entry)
      }
      this.head++
    }
    this.trim()
    const next = this.entries[this.head]
    if (next !== undefined && this.timer === undefined) this.arm(next.at)
    // Expiry callbacks run last: they may cancel or add deadlines on this very list.
    for (const entry of due) entry.expire()
  }
}

/** Node timers can stop holding the process open; browser timers are plain numbers. */
function refTimer(timer: ReturnType<typeof setTimeout>, ref: boolean): void {
  const handle = timer as { ref?: () => void; unref?: () => void }
  if (ref) handle.ref?.()
  else handle.unref?.()
}

/**
 * A runtime's deadlines: one list per distinct length (tools declare a handful of timeoutMs). A
 * length can come from a call (a wrapper passing a model's timeout_ms to next()): past
 * MAX_IDLE_LISTS lists, idle ones are dropped, so the table holds the lengths in use plus a few.
 */
export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>()

  /** Call `expire` once `ms` milliseconds from now, unless cancelled first. */
  add(ms: number, expire: () => void): Deadline {
    let list = this.lists.get(ms)
    if (list === undefined) {
      if (this.lists.size >= MAX_IDLE_LISTS) this.dropIdle()
      list = new DeadlineList(ms)
      this.lists.set(ms, list)
    }
    return list.add(expire)
  }

  /** How many lengths have a list now (for tests of the bound). */
  get size(): number {
    return this.lists.size
  }

  private dropIdle(): void {
    for (const [ms, list] of this.lists) {
      if (!list.idle) continue
      list.close()
      this.lists.delete(ms)
    }
  }
}

const MAX_IDLE_LISTS = 32
