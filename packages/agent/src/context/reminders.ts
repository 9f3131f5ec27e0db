// Reminders the harness injects as user-role messages (job notices, denial-loop nudges). Injected
// text shares the user's role, so the model cannot tell them apart: unchecked, a nag repeated ten
// times reads as a user who asked ten times and the model starts replaying requests nobody made
// (seed 003 §13.10, "reminder-nag-replay-hallucination"). So every reminder is deduplicated by key,
// capped per turn and per run, and labelled with its source.
import type { UserMessage } from '@toolgate/providers'

export interface Reminder {
  /** Identity for deduplication: the same key is delivered at most once per queue. */
  readonly key: string
  /** Who is speaking, shown to the model (`jobs`, `policy`, ...). */
  readonly source: string
  readonly text: string
}

export interface ReminderQueueOptions {
  /** Reminders delivered in one turn; the rest wait for the next turn. Default 3. */
  readonly maxPerTurn?: number
  /** Reminders accepted over the queue's life; later ones are dropped. Default 20. */
  readonly maxTotal?: number
}

export type PushOutcome = 'queued' | 'duplicate' | 'capped'

export class ReminderQueue {
  readonly maxPerTurn: number
  readonly maxTotal: number
  private readonly seen = new Set<string>()
  private readonly queue: Reminder[] = []
  private accepted = 0
  private droppedCount = 0

  constructor(options: ReminderQueueOptions = {}) {
    this.maxPerTurn = Math.max(1, Math.floor(options.maxPerTurn ?? 3))
    this.maxTotal = Math.max(0, Math.floor(options.maxTotal ?? 20))
  }

  push(reminder: Reminder): PushOutcome {
    if (this.seen.has(reminder.key)) return 'duplicate'
    if (this.accepted >= this.maxTotal) {
      this.droppedCount++
      return 'capped'
    }
    this.seen.add(reminder.key)
    this.accepted++
    this.queue.push(Object.freeze({ ...reminder }))
    return 'queued'
  }

  /** The next turn's reminders (oldest first, at most maxPerTurn); they count as delivered. */
  take(): readonly Reminder[] {
    return this.queue.splice(0, this.maxPerTurn)
  }

  get pending(): number {
    return this.queue.length
  }

  /** Reminders refused by the total cap. */
  get dropped(): number {
    return this.droppedCount
  }
}

/** One user message holding a turn's reminders, each labelled with its source. */
export function renderReminders(reminders: readonly Reminder[]): UserMessage | undefined {
  if (reminders.length === 0) return undefined
  const text = reminders
    .map((r) => `<system-reminder source="${r.source}">\n${r.text}\n</system-reminder>`)
    .join('\n')
  return { role: 'user', content: [{ type: 'text', text }] }
}
