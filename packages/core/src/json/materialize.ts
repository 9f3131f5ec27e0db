import type { JsonValue } from '../types.js'

// Arguments, tool values, meta and session payloads cross trust boundaries. They are
// materialized exactly once into a private, deep-frozen, lossless JSON snapshot (seed 001 §6.7):
// a JSON string is parsed once; an object graph is copied once, reading each property once,
// so a getter cannot show policy one value and the tool another. The walk is iterative:
// 10,000 levels of nesting neither overflow the stack nor hang.

export type MaterializeResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly path: string; readonly problem: string }

/** Values this module produced: already lossless and deep-frozen, so they are reused as they are. */
const snapshots = new WeakSet<object>()

/** True when `value` is a snapshot produced by `materialize` (lossless and deep-frozen). */
export function isSnapshot(value: unknown): boolean {
  return typeof value === 'object' && value !== null && snapshots.has(value)
}

/** Parse a JSON text once and return a frozen lossless value, or where and why it is not JSON. */
export function parseJson(text: string): MaterializeResult {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { ok: false, path: '$', problem: describeSyntaxError(text, error) }
  }
  // JSON.parse only yields JSON, except that huge literals like 1e999 become Infinity.
  return snapshot(parsed, true)
}

/** Snapshot an in-memory value into a frozen lossless JSON value, or say where it is not JSON. */
export function materialize(value: unknown): MaterializeResult {
  return snapshot(value, false)
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
      return Number.isFinite(value) ? undefined : `is ${value}, which JSON cannot represent; send a finite number`
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

function snapshot(root: unknown, trusted: boolean): MaterializeResult {
  if (root === null) return { ok: true, value: null }
  if (typeof root !== 'object') {
    const problem = leafProblem(root)
    return problem ? fail('$', problem) : { ok: true, value: root as JsonValue }
  }
  if (snapshots.has(root)) return { ok: true, value: root as JsonValue }

  // Copies made so far: shared references stay shared (a DAG is copied once), and an object met
  // again while still open on the stack is a cycle.
  const copies = new Map<object, Frame['copy']>()
  const open = new Set<object>()
  const stack: Frame[] = []

  // Returns the copy to place in the parent, or a failure (the only non-array, non-object case
  // is a failure wrapped in `Failed`, so a copy holding an `ok` key is never mistaken for one).
  const enter = (source: object, path: string): Failed | Frame['copy'] => {
    const done = copies.get(source)
    if (done) {
      if (open.has(source)) return new Failed(fail(path, 'is a cycle (refers back to an enclosing value)'))
      return done
    }
    if (snapshots.has(source)) return source as Frame['copy']
    let kind: string
    let keys: string[]
    try {
      kind = containerKind(source)
      if (kind !== 'array' && kind !== 'object') {
        return new Failed(fail(path, `is ${kind}, not a plain object or array; convert it to plain JSON first`))
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
      Object.freeze(frame.copy)
      snapshots.add(frame.copy)
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
