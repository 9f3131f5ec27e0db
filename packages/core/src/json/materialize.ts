import type { JsonValue } from '../types.js'
import { isSnapshot, markSnapshot } from './snapshot.js'

// Arguments, tool values, meta and session payloads cross trust boundaries. They are
// materialized exactly once into a private, deep-frozen, lossless JSON snapshot (seed 001 §6.7):
// a JSON string is parsed once; an object graph is copied once, reading each property once,
// so a getter cannot show policy one value and the tool another. The walk is iterative:
// 10,000 levels of nesting neither overflow the stack nor hang.

export type MaterializeResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly path: string; readonly problem: string }

// A snapshot's root is branded (snapshot.ts): copying a value shares any branded part of it as it
// is, so what the runtime made once is never walked or copied again.

/**
 * The deepest nesting a value may have (arrays and objects inside each other; a scalar at the top
 * is level 0). The walk costs ~5 µs a level on the caller's thread, synchronously: a model's 2 MB
 * of brackets (a million levels, within a provider's output cap) held the event loop 5.6 s (red
 * team, issue 13). A text is measured before JSON.parse; a value during the walk.
 */
export const MAX_JSON_DEPTH = 10_000

const TOO_DEEP = `are nested more than ${MAX_JSON_DEPTH.toLocaleString('en-US')} levels deep (arrays and objects inside each other); send flatter data`

/** Whether a JSON text opens more than `max` arrays/objects inside each other (strings skipped). */
function deeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** Parse a JSON text once and return a frozen lossless value, or where and why it is not JSON. */
export function parseJson(text: string): MaterializeResult {
  // more levels than characters is impossible: short texts skip the scan
  if (text.length > MAX_JSON_DEPTH && deeperThan(text, MAX_JSON_DEPTH)) return fail('$', TOO_DEEP)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { ok: false, path: '$', problem: describeSyntaxError(text, error) }
  }
  // JSON.parse only yields JSON (a tree: no cycles, getters or symbols), except that huge
  // literals like 1e999 become Infinity. Shallow values are checked and frozen in one recursive
  // pass with no bookkeeping; anything else, or a problem to locate, takes the full walk.
  if (freezeParsed(parsed, 0)) return { ok: true, value: parsed as JsonValue }
  return quick(parsed, true)
}

/** Freeze JSON.parse output in place; false (maybe half frozen) when the full walk must decide. */
function freezeParsed(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'number' || Number.isFinite(value)
  if (depth >= FAST_DEPTH) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!freezeParsed(value[i], depth + 1)) return false
  } else {
    const record = value as Record<string, unknown>
    for (const key in record) if (!freezeParsed(record[key], depth + 1)) return false
  }
  if (depth === 0) markSnapshot(value)
  Object.freeze(value)
  return true
}

/** Snapshot an in-memory value into a frozen lossless JSON value, or say where it is not JSON. */
export function materialize(value: unknown): MaterializeResult {
  return quick(value, false)
}

/**
 * `materialize` for a plain object whose checked copy goes into `target`'s own properties, after
 * what `target` already holds (a session event's `seq` and `type`). `target` is not frozen: the
 * caller finishes and freezes it. One copy where materializing and then copying would make two.
 */
export function materializeInto(target: Record<string, JsonValue>, value: unknown): MaterializeResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail('$', 'is not a plain object')
  return quick(value, false, target)
}

/**
 * Check and freeze in place a value nobody else holds (a validator's fresh output, a render's
 * fresh content array): the same checks as `materialize`, without the copy. Internal.
 */
export function adoptFresh(value: unknown): MaterializeResult {
  return quick(value, 'adopt')
}

/** How a walk treats its input: copy it (hostile), or check and freeze it in place. */
type Mode = boolean | 'adopt'

// The fast path: a recursive walk for the small, shallow values that make up nearly every call.
// It reads each property once, like the iterative walk; a subtree deeper than FAST_DEPTH, or met
// after FAST_NODES nodes (a DAG built to explode), is handed to the iterative walk unread.
const FAST_DEPTH = 64
const FAST_NODES = 2_000

class Problem {
  constructor(
    readonly keys: (string | number)[],
    readonly problem: string,
  ) {}
}

function quick(root: unknown, mode: Mode, into?: Record<string, unknown>): MaterializeResult {
  if (root === null || typeof root !== 'object') {
    const problem = leafProblem(root)
    return problem ? fail('$', problem) : { ok: true, value: root as JsonValue }
  }
  const budget = { nodes: 0 }
  const ancestors: object[] = []
  const keys: (string | number)[] = []
  try {
    return { ok: true, value: copyFast(root, mode, 0, budget, ancestors, keys, into) }
  } catch (error) {
    if (error instanceof Problem) {
      let path = '$'
      for (const key of error.keys) path = childPath(path, key)
      return fail(path, error.problem)
    }
    throw error
  }
}

function copyFast(
  source: object,
  mode: Mode,
  depth: number,
  budget: { nodes: number },
  ancestors: object[],
  keys: (string | number)[],
  into?: Record<string, unknown>,
): JsonValue {
  // In place (parsed or adopted) versus copied; `trusted` skips checks JSON.parse made already.
  const trusted = mode === true
  const inPlace = mode !== false
  if (depth >= FAST_DEPTH || ++budget.nodes > FAST_NODES) {
    const slow = snapshot(source, trusted, depth)
    // too deep is said of the whole value: the path down would be thousands of keys long
    if (!slow.ok)
      throw new Problem(slow.problem === TOO_DEEP ? [] : [...keys, ...pathKeys(slow.path)], slow.problem)
    return slow.value
  }
  // A snapshot the runtime made is deep-frozen lossless JSON already: shared, not walked.
  if (mode === false && into === undefined && isSnapshot(source)) return source as JsonValue
  if (ancestors.includes(source))
    throw new Problem([...keys], 'is a cycle (refers back to an enclosing value)')
  let kind: string
  let names: string[] | undefined
  try {
    kind = containerKind(source)
    if (kind !== 'array' && kind !== 'object') {
      throw new Problem([...keys], `is ${kind}, not a plain object or array; convert it to plain JSON first`)
    }
    if (into !== undefined && kind !== 'object') throw new Problem([...keys], 'is not a plain object')
    // Symbol keys would be dropped silently; a validator's fresh output (adopt) never has them.
    if (mode === false && Object.getOwnPropertySymbols(source).length > 0) {
      throw new Problem([...keys], 'has symbol keys, which JSON cannot represent')
    }
    if (kind === 'object') names = Object.keys(source)
  } catch (error) {
    if (error instanceof Problem) throw error
    throw new Problem([...keys], `could not be inspected (${errorText(error)})`)
  }
  ancestors.push(source)
  let copy: unknown[] | Record<string, unknown>
  if (names === undefined) {
    const array = source as unknown[]
    let length: number
    try {
      length = array.length
    } catch (error) {
      throw new Problem([...keys], `could not be inspected (${errorText(error)})`)
    }
    const out: unknown[] = inPlace ? array : new Array<unknown>(length)
    for (let i = 0; i < length; i++) {
      keys.push(i)
      let child: unknown
      try {
        if (!trusted && !Object.hasOwn(array, i))
          throw new Problem([...keys], 'is a hole in a sparse array; JSON has no holes')
        child = array[i]
      } catch (error) {
        if (error instanceof Problem) throw error
        throw new Problem([...keys], `threw when read (${errorText(error)})`)
      }
      const value = fastChild(child, mode, depth, budget, ancestors, keys)
      // In place, a child is only replaced when a deep subtree was copied by the iterative walk.
      if (!inPlace || value !== child) out[i] = value
      keys.pop()
    }
    copy = out
  } else {
    const record = source as Record<string, unknown>
    const out: Record<string, unknown> = into ?? (inPlace ? record : {})
    for (const name of names) {
      keys.push(name)
      let child: unknown
      try {
        child = record[name]
      } catch (error) {
        throw new Problem([...keys], `threw when read (${errorText(error)})`)
      }
      const value = fastChild(child, mode, depth, budget, ancestors, keys)
      if (!inPlace || value !== child) {
        if (name === '__proto__')
          Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true })
        else out[name] = value
      }
      keys.pop()
    }
    copy = out
  }
  ancestors.pop()
  if (into === undefined) {
    if (depth === 0) markSnapshot(copy)
    Object.freeze(copy)
  }
  return copy as JsonValue
}

function fastChild(
  child: unknown,
  mode: Mode,
  depth: number,
  budget: { nodes: number },
  ancestors: object[],
  keys: (string | number)[],
): unknown {
  if (child !== null && typeof child === 'object')
    return copyFast(child, mode, depth + 1, budget, ancestors, keys)
  const problem = leafProblem(child)
  if (problem) throw new Problem([...keys], problem)
  return child
}

/** Split a path made by childPath back into keys (for problems found by the iterative walk). */
function pathKeys(path: string): (string | number)[] {
  const out: (string | number)[] = []
  const re = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g
  for (const m of path.slice(1).matchAll(re))
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : JSON.parse(m[3]!)))
  return out
}

class Failed {
  constructor(readonly result: MaterializeResult) {}
}

type Frame = {
  source: object
  copy: Record<string, unknown> | unknown[]
  keys: readonly string[]
  index: number
  path: string
}

function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`
}

function fail(path: string, problem: string): MaterializeResult {
  return { ok: false, path, problem }
}

/** Check a leaf; returns a problem description, or undefined when it is a JSON primitive. */
function leafProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value)
        ? undefined
        : `is ${value}, which JSON cannot represent; send a finite number`
    case 'undefined':
      return 'is undefined, which JSON cannot represent; omit the field or send null'
    case 'function':
      return 'is a function, which JSON cannot represent'
    case 'symbol':
      return 'is a symbol, which JSON cannot represent'
    case 'bigint':
      return 'is a BigInt, which JSON cannot represent; send a number or a string'
    default:
      return undefined
  }
}

function containerKind(value: object): 'array' | 'object' | string {
  if (Array.isArray(value)) {
    return Object.getPrototypeOf(value) === Array.prototype ? 'array' : 'an array subclass'
  }
  const proto = Object.getPrototypeOf(value)
  if (proto === Object.prototype || proto === null) return 'object'
  const name = (proto as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === 'string' && name ? `a ${name}` : 'a non-plain object'
}

/** The iterative walk; `level` is how deep `root` sits in the value being materialized (0: it is the root). */
function snapshot(root: unknown, trusted: boolean, level = 0): MaterializeResult {
  if (root === null) return { ok: true, value: null }
  if (typeof root !== 'object') {
    const problem = leafProblem(root)
    return problem ? fail('$', problem) : { ok: true, value: root as JsonValue }
  }
  if (!trusted && isSnapshot(root)) return { ok: true, value: root as JsonValue }

  // Copies made so far: shared references stay shared (a DAG is copied once), and an object met
  // again while still open on the stack is a cycle.
  const copies = new Map<object, Frame['copy']>()
  const open = new Set<object>()
  const stack: Frame[] = []

  // Returns the copy to place in the parent, or a failure (the only non-array, non-object case
  // is a failure wrapped in `Failed`, so a copy holding an `ok` key is never mistaken for one).
  const enter = (source: object, path: string): Failed | Frame['copy'] => {
    if (!trusted && isSnapshot(source)) return source as Frame['copy']
    if (level + stack.length >= MAX_JSON_DEPTH) return new Failed(fail('$', TOO_DEEP))
    const done = copies.get(source)
    if (done) {
      if (open.has(source)) return new Failed(fail(path, 'is a cycle (refers back to an enclosing value)'))
      return done
    }
    let kind: string
    let keys: string[]
    try {
      kind = containerKind(source)
      if (kind !== 'array' && kind !== 'object') {
        return new Failed(
          fail(path, `is ${kind}, not a plain object or array; convert it to plain JSON first`),
        )
      }
      if (!trusted && Object.getOwnPropertySymbols(source).length > 0) {
        return new Failed(fail(path, 'has symbol keys, which JSON cannot represent'))
      }
      keys = kind === 'array' ? [] : Object.keys(source)
    } catch (error) {
      return new Failed(fail(path, `could not be inspected (${errorText(error)})`))
    }
    let copy: Frame['copy']
    if (kind === 'array') {
      let length: number
      try {
        length = (source as unknown[]).length
      } catch (error) {
        return new Failed(fail(path, `could not be inspected (${errorText(error)})`))
      }
      copy = trusted ? (source as unknown[]) : new Array<unknown>(length)
      keys = new Array<string>(length)
      for (let i = 0; i < length; i++) keys[i] = String(i)
    } else {
      copy = trusted ? (source as Record<string, unknown>) : {}
    }
    copies.set(source, copy)
    open.add(source)
    stack.push({ source, copy, keys, index: 0, path })
    return copy
  }

  const first = enter(root, '$')
  if (first instanceof Failed) return first.result

  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.index >= frame.keys.length) {
      stack.pop()
      open.delete(frame.source)
      if (stack.length === 0) markSnapshot(frame.copy)
      Object.freeze(frame.copy)
      continue
    }
    const isArray = Array.isArray(frame.copy)
    const key = frame.keys[frame.index]!
    const at = frame.index
    frame.index++
    let child: unknown
    try {
      if (isArray && !trusted && !Object.hasOwn(frame.source, key)) {
        return fail(childPath(frame.path, at), 'is a hole in a sparse array; JSON has no holes')
      }
      // The single read of this property: a getter runs at most once.
      child = (frame.source as Record<string, unknown>)[key]
    } catch (error) {
      return fail(childPath(frame.path, isArray ? at : key), `threw when read (${errorText(error)})`)
    }
    let value: unknown = child
    if (child !== null && typeof child === 'object') {
      const entered = enter(child, childPath(frame.path, isArray ? at : key))
      if (entered instanceof Failed) return entered.result
      value = entered
    } else {
      const problem = leafProblem(child)
      if (problem) return fail(childPath(frame.path, isArray ? at : key), problem)
    }
    if (trusted) continue
    if (isArray) (frame.copy as unknown[])[at] = value
    else if (key === '__proto__')
      Object.defineProperty(frame.copy, key, { value, enumerable: true, writable: true, configurable: true })
    else (frame.copy as Record<string, unknown>)[key] = value
  }
  return { ok: true, value: copies.get(root) as JsonValue }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}

/** Point at where a JSON text broke: line, column and a short excerpt. */
function describeSyntaxError(text: string, error: unknown): string {
  const message = errorText(error)
  if (text.trim() === '') return 'are empty; send a JSON object such as {}'
  const match = /position (\d+)/.exec(message)
  if (!match && !/end of JSON input/i.test(message)) {
    return `are not valid JSON (${message}); send one complete, valid JSON object`
  }
  const position = match ? Number(match[1]) : text.length
  const incomplete = position >= text.trimEnd().length
  const before = text.slice(0, position)
  const line = before.split('\n').length
  const column = position - before.lastIndexOf('\n')
  const excerpt = JSON.stringify(text.slice(Math.max(0, position - 20), position + 20))
  const what = incomplete ? 'end early (the JSON is incomplete)' : `are not valid JSON: broke`
  return `${what} at line ${line} column ${column} near ${excerpt}; send one complete, valid JSON object`
}
