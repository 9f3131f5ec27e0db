import { classifyCommand, initShellParser } from '@toolgate/policy'
import { beforeAll, describe, expect, test } from 'vitest'
import { READ_ONLY, UNSAFE } from './shell-corpus.js'

beforeAll(async () => {
  await initShellParser()
})

describe('adversarial corpus', () => {
  test(`has at least 150 cases (${UNSAFE.length})`, () => {
    expect(UNSAFE.length).toBeGreaterThanOrEqual(150)
  })
  test('no unsafe command is classified read-only', () => {
    const leaked = UNSAFE.filter((c) => classifyCommand(c).readOnly)
    console.log(`adversarial corpus: ${UNSAFE.length} commands, ${leaked.length} classified read-only`)
    expect(leaked).toEqual([])
  })
  test('every not-read-only verdict carries a reason', () => {
    for (const c of UNSAFE) expect(classifyCommand(c).reason.length, c).toBeGreaterThan(5)
  })
})

describe('read-only corpus', () => {
  test(`has at least 100 cases (${READ_ONLY.length})`, () => {
    expect(READ_ONLY.length).toBeGreaterThanOrEqual(100)
  })
  test('at least 85% are classified read-only', () => {
    const missed = READ_ONLY.filter((c) => !classifyCommand(c).readOnly)
    const ratio = (READ_ONLY.length - missed.length) / READ_ONLY.length
    console.log(
      `read-only corpus: ${READ_ONLY.length - missed.length}/${READ_ONLY.length} = ${(ratio * 100).toFixed(1)}% classified read-only; missed:\n${missed.map((c) => `  ${JSON.stringify(c)}: ${classifyCommand(c).reason}`).join('\n')}`,
    )
    expect(ratio).toBeGreaterThanOrEqual(0.85)
  })
})
