import { classifyCommand, initShellParser } from '@toolgate/policy'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bwrapAvailable, type Fixture, makeFixture, runBash } from './bash-proof.js'
import { ADVERSARIAL_EXAMPLES, READ_ONLY } from './shell-corpus.js'

// Proof by running (issue 12): every command of the everyday corpus that the classifier calls
// read-only is run in real bash in a fixture, and nothing in the fixture changes and no marker
// program runs. The adversarial examples of each class are run too, to show that the check sees
// them do what the classifier refuses them for (a proof that cannot fail proves nothing).
// Under CI=true bubblewrap is required (it keeps a wrong verdict from touching the machine).

const ci = process.env.CI === 'true'
if (!bwrapAvailable && !ci) console.warn('shell-proof: bubblewrap is not available; running bash unconfined')

await initShellParser()
// `tail -f` waits for more lines until the run's time limit; it is proven by the timeout instead.
const verdicts = READ_ONLY.filter((c) => !c.startsWith('tail -f') && classifyCommand(c).readOnly)

let f: Fixture
beforeAll(() => {
  f = makeFixture()
})
afterAll(() => f.cleanup())

test('bubblewrap confines the proofs (required under CI=true)', () => {
  if (!ci && !bwrapAvailable) return
  expect(bwrapAvailable).toBe(true)
})

describe('every read-only verdict of the everyday corpus holds in real bash', () => {
  test(`most of the corpus is read-only (${verdicts.length} of ${READ_ONLY.length})`, () => {
    expect(verdicts.length).toBeGreaterThanOrEqual(Math.floor(READ_ONLY.length * 0.9))
  })
  test.each(verdicts)('%j', (command) => {
    const r = runBash(f, command)
    expect({ changed: r.changed, ran: r.ran }).toEqual({ changed: [], ran: [] })
  })
})

describe('the adversarial examples of each class really write or run code, and are refused', () => {
  test.each(ADVERSARIAL_EXAMPLES)('%s: %j', (_class, command, effect) => {
    expect(classifyCommand(command).readOnly).toBe(false)
    const r = runBash(f, command)
    const seen = [...r.changed.map((p) => `changed ${p}`), ...r.ran.map((m) => `ran ${m.split(' ')[0]}`)]
    expect(seen, `${command}\n${r.stderr}`).toContain(effect)
    // Undo what it did, for the next example.
    f.cleanup()
    f = makeFixture()
  })
})

// Reads permissions-issue12.test.ts §4 checks, shown to reach the secret in real bash. In the
// sandbox (a pid namespace, as the bash tool runs it) pid 1 is bubblewrap, whose root is the
// command's, so `/proc/1/root/x` is `/x`.
describe('protected reads the permission engine must see', () => {
  test('git show HEAD:.env and git grep print a committed .env', () => {
    expect(runBash(f, 'git show HEAD:.env').stdout).toBe('SECRET=1\n')
    expect(runBash(f, 'git grep SECRET').stdout).toBe('.env:SECRET=1\n')
  })

  test.each(['rg SECRET --hidden', "rg SECRET -g '*'", "printf '!.env\\n' > .ignore; rg SECRET"])(
    'ripgrep reads the hidden .env: %j',
    (command) => {
      const r = runBash(f, command)
      expect(r.stdout).toBe('.env:SECRET=1\n')
      f.cleanup()
      f = makeFixture()
    },
  )

  test('/proc/1/root/HOME/.ssh/id_rsa is the key inside a pid namespace', () => {
    if (!bwrapAvailable) {
      expect(ci, 'bubblewrap is required under CI=true').toBe(false)
      return
    }
    const r = runBash(f, `cat /proc/1/root${f.home}/.ssh/id_rsa`, 5_000, { pidNamespace: true })
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: 'PRIVATE KEY\n' })
  })
})
