import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, materialize, parseJson, stringifyJson } from '../src/index.js'

describe('materialize: lossless JSON snapshots', () => {
  it('copies, deep-freezes and marks plain JSON', () => {
    const source = { a: [1, 'two', { b: null, c: true }] }
    const result = materialize(source)
    expect(result).toEqual({ ok: true, value: source })
    if (!result.ok) throw new Error('unreachable')
    expect(result.value).not.toBe(source)
    expect(Object.isFrozen(result.value)).toBe(true)
    const inner = (result.value as { a: unknown[] }).a
    expect(Object.isFrozen(inner)).toBe(true)
    expect(Object.isFrozen(inner[2])).toBe(true)
    // Mutating the source afterwards cannot reach the snapshot.
    ;(source.a[2] as { b: unknown }).b = 'changed'
    expect((inner[2] as { b: unknown }).b).toBe(null)
  })

  it.each([
    [{ a: undefined }, '$.a', 'is undefined, which JSON cannot represent; omit the field or send null'],
    [{ f: () => 1 }, '$.f', 'is a function, which JSON cannot represent'],
    [{ s: Symbol('x') }, '$.s', 'is a symbol, which JSON cannot represent'],
    [{ n: 10n }, '$.n', 'is a BigInt, which JSON cannot represent; send a number or a string'],
    [{ n: Number.NaN }, '$.n', 'is NaN, which JSON cannot represent; send a finite number'],
    [
      { n: [1, Number.POSITIVE_INFINITY] },
      '$.n[1]',
      'is Infinity, which JSON cannot represent; send a finite number',
    ],
    [{ d: new Date(0) }, '$.d', 'is a Date, not a plain object or array; convert it to plain JSON first'],
    [{ m: new Map() }, '$.m', 'is a Map, not a plain object or array; convert it to plain JSON first'],
    // biome-ignore lint/suspicious/noSparseArray: the hole is what this case tests
    [{ 'odd key': [, 1] }, '$["odd key"][0]', 'is a hole in a sparse array; JSON has no holes'],
    [{ [Symbol('k')]: 1 }, '$', 'has symbol keys, which JSON cannot represent'],
  ])('rejects %o at %s', (value, path, problem) => {
    expect(materialize(value)).toEqual({ ok: false, path, problem })
  })

  it('shares a snapshot it made before instead of copying it again; a look-alike is copied', () => {
    const first = materialize({ list: [1, { deep: 'x' }] })
    const parsed = parseJson('{"n":[1,2]}')
    if (!first.ok || !parsed.ok) throw new Error('unreachable')
    const lookAlike = Object.freeze([Object.freeze({ deep: 'x' })])
    const again = materialize({ first: first.value, parsed: parsed.value, lookAlike })
    if (!again.ok) throw new Error('unreachable')
    const value = again.value as { first: unknown; parsed: unknown; lookAlike: unknown }
    expect(value.first).toBe(first.value)
    expect(value.parsed).toBe(parsed.value)
    expect(value.lookAlike).not.toBe(lookAlike)
    expect(value.lookAlike).toEqual(lookAlike)
    // the mark is invisible to every reader of the value
    expect(Object.keys(first.value as object)).toEqual(['list'])
    expect(Reflect.ownKeys(first.value as object)).toEqual(['list'])
    expect(JSON.stringify(first.value)).toBe('{"list":[1,{"deep":"x"}]}')
    expect(structuredClone(first.value)).toEqual({ list: [1, { deep: 'x' }] })
    // a nested part of a snapshot is not itself marked: handed back alone, it is copied
    const inner = (first.value as { list: unknown[] }).list
    const innerAgain = materialize({ inner })
    expect(innerAgain.ok && (innerAgain.value as { inner: unknown }).inner).not.toBe(inner)
  })

  it('rejects cycles but keeps shared references (a DAG is not a cycle)', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = { back: cyclic }
    expect(materialize(cyclic)).toEqual({
      ok: false,
      path: '$.self.back',
      problem: 'is a cycle (refers back to an enclosing value)',
    })
    const shared = { v: 1 }
    const dag = materialize({ left: shared, right: shared })
    expect(dag.ok).toBe(true)
  })

  it('reads every getter exactly once and reports a throwing one', () => {
    let reads = 0
    const value = {
      get n() {
        reads++
        return reads
      },
    }
    const result = materialize(value)
    expect(result).toEqual({ ok: true, value: { n: 1 } })
    expect(reads).toBe(1)
    const throwing = {
      get boom(): number {
        throw new Error('nope')
      },
    }
    expect(materialize(throwing)).toEqual({ ok: false, path: '$.boom', problem: 'threw when read (nope)' })
  })

  it('snapshots a proxy once, whatever it says later', () => {
    let gets = 0
    const proxy = new Proxy(
      { a: 1 },
      {
        get(target, key, receiver) {
          gets++
          return gets === 1 ? Reflect.get(target, key, receiver) : 'lie'
        },
      },
    )
    const result = materialize(proxy)
    expect(result).toEqual({ ok: true, value: { a: 1 } })
    expect(gets).toBe(1)
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    const revoked = materialize({ p: revocable.proxy })
    expect(revoked.ok).toBe(false)
  })

  it('keeps a "__proto__" key as data, never as a prototype', () => {
    const parsed = parseJson('{"__proto__": {"polluted": true}}')
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(Object.keys(parsed.value as object)).toEqual(['__proto__'])
    expect(({} as { polluted?: boolean }).polluted).toBe(undefined)
    const copied = materialize(parsed.value === null ? {} : JSON.parse('{"__proto__": {"x": 1}}'))
    expect(copied.ok && Object.getPrototypeOf(copied.value)).toBe(Object.prototype)
  })

  it('is stack-safe at 10,000 levels of nesting, both ways', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
    const parsed = parseJson(deep)
    expect(parsed.ok).toBe(true)
    let built: unknown = 1
    for (let i = 0; i < 10_000; i++) built = { d: built }
    const copied = materialize(built)
    expect(copied.ok).toBe(true)
    if (!copied.ok || !parsed.ok) return
    expect(stringifyJson(parsed.value)).toBe(deep)
    expect(stringifyJson(copied.value).length).toBe(10_000 * 6 + 1)
  })

  // Red team (issue 13): nesting cost ~5 µs a level on the agent's thread, synchronously: a model's
  // 2 MB of brackets (a million levels, within a provider's output cap) held the event loop 5.6 s.
  it(`refuses nesting deeper than ${MAX_JSON_DEPTH.toLocaleString('en-US')} levels, from text and from memory`, () => {
    const problem = `are nested more than ${MAX_JSON_DEPTH.toLocaleString('en-US')} levels deep (arrays and objects inside each other); send flatter data`
    for (const depth of [MAX_JSON_DEPTH + 1, 1_000_000]) {
      expect(parseJson(`{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`)).toEqual({
        ok: false,
        path: '$',
        problem,
      })
    }
    // a bracket inside a string is text, not nesting
    expect(parseJson(JSON.stringify({ s: '['.repeat(MAX_JSON_DEPTH * 2) })).ok).toBe(true)
    let built: unknown = 1
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) built = [built]
    expect(materialize(built)).toEqual({ ok: false, path: '$', problem })
    expect(materialize({ x: { y: built } })).toEqual({ ok: false, path: '$', problem })
    expect(materialize((built as unknown[])[0]).ok).toBe(true)
  })

  it('says where a JSON text broke and asks for valid JSON', () => {
    expect(parseJson('{"path": "a",}')).toEqual({
      ok: false,
      path: '$',
      problem:
        'are not valid JSON: broke at line 1 column 14 near "{\\"path\\": \\"a\\",}"; send one complete, valid JSON object',
    })
    expect(parseJson('{"path": "a"')).toEqual({
      ok: false,
      path: '$',
      problem:
        'end early (the JSON is incomplete) at line 1 column 13 near "{\\"path\\": \\"a\\""; send one complete, valid JSON object',
    })
    expect(parseJson('  ')).toEqual({
      ok: false,
      path: '$',
      problem: 'are empty; send a JSON object such as {}',
    })
    expect(parseJson('1e999')).toEqual({
      ok: false,
      path: '$',
      problem: 'is Infinity, which JSON cannot represent; send a finite number',
    })
  })

  it('pretty-prints deep values identically to JSON.stringify', () => {
    const value = { a: [1, { b: 'x' }], c: {}, d: [] }
    expect(stringifyJson(value, 2)).toBe(JSON.stringify(value, null, 2))
  })
})
