import { isAbsolute, relative, resolve, sep } from 'node:path'

/** A model-supplied path, absolute or relative to the workspace root, resolved to an absolute path. */
export function resolvePath(root: string, path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(root, path)
}

/**
 * How a path is shown to the model: relative to the workspace root when inside it (shorter, stable
 * across machines), absolute otherwise. `.` for the root itself.
 */
export function displayPath(root: string, absolute: string): string {
  const rel = relative(root, absolute)
  if (rel === '') return '.'
  if (rel.startsWith('..') || isAbsolute(rel)) return absolute
  return sep === '/' ? rel : rel.split(sep).join('/')
}

/**
 * What makes a listed name read as something else in model text: C0 controls (a newline splits
 * one name into two lines), DEL and C1, line and paragraph separators, bidi controls, and a
 * leading quote (which would look like the quoting below).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const MISLEADING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|^"/
const ESCAPE_MORE = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/**
 * A path as a line of model text: as it is, or, when it holds anything MISLEADING, as a JSON
 * string with every such character escaped (`"ok.txt\nsecret.env"`), which the model can pass
 * back as the path (red team, issue 13). Values keep paths raw; only rendered text uses this.
 */
export function modelPath(path: string): string {
  if (!MISLEADING.test(path)) return path
  return JSON.stringify(path).replace(
    ESCAPE_MORE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
