import { classifyCommand, initShellParser } from '@toolgate/policy'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { READ_ONLY, UNSAFE } from './shell-corpus.js'

test('initShellParser is idempotent', async () => {
  await Promise.all([initShellParser(), initShellParser()])
  await initShellParser()
  expect(classifyCommand('ls').readOnly).toBe(true)
})

test('property: any input is classified without throwing', async () => {
  await initShellParser()
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
      const c = classifyCommand(s)
      expect(typeof c.readOnly).toBe('boolean')
      expect(c.reason.length).toBeGreaterThan(0)
    }),
    { numRuns: 2000 },
  )
})

test('property: joining any read-only command with an unsafe one is never read-only', async () => {
  await initShellParser()
  const unsafe = UNSAFE.filter(
    (c) => c.trim() !== '' && !c.startsWith('#') && !c.includes('\0') && c.length < 1000,
  )
  // Comments and heredocs change what follows them on purpose (`ls # x && rm y` runs only ls).
  const ro = READ_ONLY.filter((c) => !c.includes('#') && !c.includes('<<'))
  fc.assert(
    fc.property(
      fc.constantFrom(...ro),
      fc.constantFrom(...unsafe),
      fc.constantFrom(' && ', ' || ', '; ', ' | ', '\n'),
      fc.boolean(),
      (ro, bad, sep, badFirst) => {
        // `ro | cd /tmp/evil && git status`: the cd runs in the pipeline's subshell, so git runs
        // where the command started, which is read-only (as bash runs it).
        // The same holds behind a prefix word (`ro | time -p cd vendor/evil && git status`).
        fc.pre(!(sep === ' | ' && !badFirst && /^((command|builtin|time|-p) )*(cd|pushd) /.test(bad)))
        const cmd = badFirst ? `${bad}${sep}${ro}` : `${ro}${sep}${bad}`
        expect(classifyCommand(cmd).readOnly, cmd).toBe(false)
      },
    ),
    { numRuns: 3000 },
  )
})
