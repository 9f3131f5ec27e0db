import { EventEmitter } from 'node:events'
import type { ApprovalRequest } from '@toolgate/core'
import { describe, expect, test } from 'vitest'
import { terminalAnswerer } from '../src/approval/prompt.js'
import { createStyle } from '../src/render/colors.js'
import type { Screen } from '../src/render/progress.js'
import { MAX_SHOWN, visible } from '../src/render/terminal-text.js'

// Issue 12 §7: the approval prompt shows the whole command, with every character that does not
// show as itself named, long blank runs counted, nothing cut short without saying so, and every
// reason the policy gave.

describe('visible()', () => {
  test('control characters, escape sequences and bidirectional overrides are named', () => {
    expect(visible('ls\r\x1b[2Kcurl x | sh\t\u202e\u200b\x00\x7f\u0085').text).toBe(
      'ls⟨CR⟩⟨ESC⟩[2Kcurl x | sh⟨TAB⟩⟨U+202E⟩⟨U+200B⟩⟨NUL⟩⟨DEL⟩⟨U+0085⟩',
    )
  })
  test('long runs of spaces and trailing spaces are counted; blanks other than a space are named', () => {
    expect(visible(`ls${' '.repeat(150)}; curl x | sh`).text).toBe('ls⟨150 spaces⟩; curl x | sh')
    expect(visible('ls   -la  \nx').text).toBe('ls   -la⟨2 spaces⟩\nx')
    expect(visible('rm\u00a0-rf').text).toBe('rm⟨U+00A0⟩-rf')
  })
  test('newlines stay line breaks; plain text is unchanged', () => {
    expect(visible('cat <<EOF\nhello\nEOF').text).toBe('cat <<EOF\nhello\nEOF')
    expect(visible('git status && npm test')).toEqual({ text: 'git status && npm test', omitted: 0 })
  })
  test('a command longer than the limit is cut and the rest is counted', () => {
    const long = `echo ${'a'.repeat(MAX_SHOWN + 100)}`
    const shown = visible(long)
    expect(shown.text.length).toBe(MAX_SHOWN)
    expect(shown.omitted).toBe(long.length - MAX_SHOWN)
  })
})

class FakeStdin extends EventEmitter {
  isRaw = false
  setRawMode(raw: boolean) {
    this.isRaw = raw
  }
  resume() {}
  pause() {}
}

/** A screen that records what is printed; `printed` settles when the prompt is on it (a gate). */
function fakeScreen(): Screen & { readonly text: string[]; readonly printed: Promise<void> } {
  const text: string[] = []
  let resolve!: () => void
  const printed = new Promise<void>((r) => {
    resolve = r
  })
  return {
    text,
    printed,
    print: (t) => {
      text.push(t)
      resolve()
    },
    begin: () => {},
    end: () => {},
    pause: () => {},
    resume: () => {},
    dispose: () => {},
  }
}

const request = (callId: string): ApprovalRequest => ({
  callId,
  toolName: 'bash',
  signal: new AbortController().signal,
})

describe('the prompt', () => {
  test('shows the whole command made visible, every reason, and the keys offered', async () => {
    const stdin = new FakeStdin()
    const screen = fakeScreen()
    const answer = terminalAnswerer({
      stdin,
      screen,
      style: createStyle(false),
      describe: () => ({
        title: 'bash $ ls',
        subject: `ls\r${' '.repeat(150)}\ncurl -s x | sh`,
        reason:
          '"sh" is destructive (it runs code it reads from standard input). Also: curl: reaches the network.',
        offerSession: false,
      }),
    })
    const outcome = answer(request('c1'))
    // The key listener is attached in the same synchronous step that prints the prompt.
    await screen.printed
    stdin.emit('data', 'a') // not offered: ignored
    stdin.emit('data', 'n')
    expect(await outcome).toBe('rejected')
    expect(screen.text[0]).toBe(
      [
        '? Approve bash $ ls',
        '  │ ls⟨CR⟩⟨150 spaces⟩',
        '  │ curl -s x | sh',
        '  "sh" is destructive (it runs code it reads from standard input). Also: curl: reaches the network.',
        '  y allow once  n reject › ',
      ].join('\n'),
    )
  })

  test('says how much of a very long command is not shown', async () => {
    const stdin = new FakeStdin()
    const screen = fakeScreen()
    const subject = `echo ${'x'.repeat(MAX_SHOWN + 5)}`
    const answer = terminalAnswerer({
      stdin,
      screen,
      style: createStyle(false),
      describe: () => ({ title: 'bash $ echo', subject, offerSession: true }),
      grantSession: () => ({ ok: true, note: 'bash:echo' }),
    })
    const outcome = answer(request('c2'))
    await screen.printed
    stdin.emit('data', 'y')
    expect(await outcome).toBe('allowed-once')
    const lines = screen.text[0]!.split('\n')
    expect(lines[2]).toBe('  … 10 more characters not shown (the session log has the whole call)')
    expect(lines[3]).toBe('  y allow once  a allow for this session  n reject › ')
  })
})
