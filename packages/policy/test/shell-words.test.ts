import { spawnSync } from 'node:child_process'
import { classifyCommand, initShellParser } from '@toolgate/policy'
import fc from 'fast-check'
import { beforeAll, describe, expect, test } from 'vitest'
import { decodeAnsiC } from '../src/shell/words.js'

// Words as bash expands them. `$'...'` is decoded statically (a `$'\x2f...'` spelling of /dev/tcp
// was found by the differential fuzzer); the decoder is checked against bash itself.

beforeAll(() => initShellParser())

const PIECES = [
  'a',
  'Z',
  '-',
  '/',
  ' ',
  '\\n',
  '\\t',
  '\\e',
  '\\\\',
  "\\'",
  '\\"',
  '\\?',
  '\\x2f',
  '\\x4',
  '\\101',
  '\\7',
  '\\u00e9',
  '\\U0001F600',
  '\\cA',
  '\\c?',
  '\\q',
  '\\x',
]

describe("ANSI-C quoting $'...'", () => {
  test('decodeAnsiC agrees with bash (property, one bash run per batch)', () => {
    const bodies = fc.sample(
      fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
      {
        numRuns: 300,
        seed: 31,
      },
    )
    const decodable = bodies.filter((b) => decodeAnsiC(b) !== undefined)
    expect(decodable.length).toBeGreaterThan(200)
    const script = `printf '%s\\0' ${decodable.map((b) => `$'${b}'`).join(' ')}`
    const r = spawnSync('bash', ['-c', script], { encoding: 'buffer' })
    const outputs = r.stdout.toString('utf8').split('\0').slice(0, -1)
    expect(outputs.length).toBe(decodable.length)
    expect(decodable.map((b) => [b, decodeAnsiC(b)])).toEqual(decodable.map((b, i) => [b, outputs[i]]))
  })

  test('a /dev/tcp or /dev/udp redirect spelled with escapes is a network connection', () => {
    expect(classifyCommand("cat < $'\\x2fdev\\x2ftcp\\x2f127.0.0.1\\x2f9'")).toMatchObject({
      readOnly: false,
      reason: 'input redirect from /dev/tcp/127.0.0.1/9 opens a network connection',
    })
    expect(classifyCommand("cat < $'\\057dev/udp/1.2.3.4/53'").readOnly).toBe(false)
    expect(classifyCommand('cat < "$F"')).toMatchObject({
      readOnly: false,
      reason: 'input redirect from a path only known at run time (variable $F) may be /dev/tcp or /dev/udp',
    })
    expect(classifyCommand('cat < src/$f').readOnly).toBe(true)
  })

  test('an escaped command name is the command', () => {
    expect(classifyCommand("$'\\x72m' -rf x").commands[0]).toMatchObject({
      argv: ['rm', '-rf', 'x'],
      program: 'rm',
    })
    expect(classifyCommand("sort $'-\\x6f' out f")).toMatchObject({
      readOnly: false,
      reason: 'sort -o writes out',
    })
  })
})
