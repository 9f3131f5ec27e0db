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
