// The one place that writes cards to the terminal, and the progress line of long-running calls.
// On a TTY a call still pending after `delayMs` gets a spinner line with its elapsed time, redrawn
// in place and erased before anything else is printed. Off a TTY there is no progress at all
// (logs and pipes get only the cards).
import type { OutStream } from '../io.js'
import { formatDuration } from './cards.js'
import type { Style } from './colors.js'
import { clipToWidth, displayWidth } from './text-width.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

export interface Screen {
  /** Print text (whole lines); the progress line is erased first and redrawn after. */
  print(text: string): void
  /** A call started; it gets a progress line if it is still pending after the delay. */
  begin(key: string, label: string): void
  end(key: string): void
  /** Hide progress while something owns the terminal (the approval prompt). */
  pause(): void
  resume(): void
  dispose(): void
}

export interface ScreenOptions {
  readonly progress: boolean
  /** Pending time before a call gets a progress line. Default 400 ms. */
  readonly delayMs?: number
  readonly intervalMs?: number
  readonly now?: () => number
}

export function createScreen(out: OutStream, style: Style, options: ScreenOptions): Screen {
  const pending = new Map<string, { label: string; since: number }>()
  const now = options.now ?? (() => performance.now())
  const delay = options.delayMs ?? 400
  let shown = false
  let paused = false
  let frame = 0
  let timer: ReturnType<typeof setInterval> | undefined

  const erase = () => {
    if (shown) out.write('\r\x1b[2K')
    shown = false
  }
  const draw = () => {
    if (paused) return
    const t = now()
    const due = [...pending.values()].filter((p) => t - p.since >= delay)
    if (due.length === 0) {
      erase()
      return
    }
    const oldest = due[0]!
    const more = due.length > 1 ? style.dim(` (+${due.length - 1} more)`) : ''
    const columns = (out.columns ?? 80) - 1
    const text = `${FRAMES[frame++ % FRAMES.length]} ${oldest.label}`
    const elapsed = ` · ${formatDuration(t - oldest.since)}`
    // In columns, not code units: a wrapped progress line could not be erased with \r.
    const room = columns - displayWidth(elapsed) - displayWidth(more)
    const label = clipToWidth(text, Math.max(1, room))
    out.write(`\r\x1b[2K${style.cyan(label)}${style.dim(elapsed)}${more}`)
    shown = true
  }
  const sync = () => {
    if (!options.progress) return
    if (pending.size > 0 && !timer) {
      timer = setInterval(draw, options.intervalMs ?? 100)
      timer.unref?.()
    } else if (pending.size === 0 && timer) {
      clearInterval(timer)
      timer = undefined
      erase()
    }
  }

  return {
    print(text) {
      erase()
      out.write(text)
    },
    begin(key, label) {
      pending.set(key, { label, since: now() })
      sync()
    },
    end(key) {
      pending.delete(key)
      sync()
    },
    pause() {
      paused = true
      erase()
    },
    resume() {
      paused = false
    },
    dispose() {
      pending.clear()
      sync()
    },
  }
}
