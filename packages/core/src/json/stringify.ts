import type { JsonValue } from '../types.js'

// V8's JSON.stringify is recursive and overflows the stack a few thousand levels deep, while
// materialize accepts 10,000 levels. The native path is tried first (fast); a deep value falls
// back to an iterative writer with the same output.

export function stringifyJson(value: JsonValue, indent = 0): string {
  try {
    return indent > 0 ? JSON.stringify(value, null, indent) : JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    return stringifyIteratively(value, indent)
  }
}

type Frame = {
  items: readonly [string | undefined, JsonValue][]
  index: number
  close: string
  depth: number
}

function stringifyIteratively(root: JsonValue, indent: number): string {
  const out: string[] = []
  const pad = (depth: number) => (indent > 0 ? `\n${' '.repeat(indent * depth)}` : '')
  const colon = indent > 0 ? ': ' : ':'
  const stack: Frame[] = []
  const open = (value: JsonValue, depth: number): void => {
    if (value === null || typeof value !== 'object') {
      out.push(JSON.stringify(value))
      return
    }
    if (Array.isArray(value)) {
      const items = (value as readonly JsonValue[]).map((v) => [undefined, v] as [undefined, JsonValue])
      if (items.length === 0) return void out.push('[]')
      out.push('[')
      stack.push({ items, index: 0, close: `${pad(depth)}]`, depth: depth + 1 })
      return
    }
    const items = Object.entries(value as Record<string, JsonValue>)
    if (items.length === 0) return void out.push('{}')
    out.push('{')
    stack.push({ items, index: 0, close: `${pad(depth)}}`, depth: depth + 1 })
  }
  open(root, 0)
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.index >= frame.items.length) {
      stack.pop()
      out.push(frame.close)
      continue
    }
    const [key, child] = frame.items[frame.index]!
    if (frame.index > 0) out.push(',')
    frame.index++
    out.push(pad(frame.depth))
    if (key !== undefined) out.push(JSON.stringify(key), colon)
    open(child, frame.depth)
  }
  return out.join('')
}
