import { lstatSync, realpathSync, statSync } from 'node:fs'
import { resolve } from 'node:path'

// What a path is, without throwing: the profile and the git layout are read from files that may
// vanish or be links. "Real" means the path itself, not what a link points to.

/** A directory, following links. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** A regular file, following links. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** A directory that is not a link. */
export function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

/** A regular file that is not a link. */
export function isRealFile(path: string): boolean {
  try {
    return lstatSync(path).isFile()
  } catch {
    return false
  }
}

/** The path with every link resolved, or undefined when it does not resolve. */
export function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/** The path with every link resolved, or the path made absolute when it does not resolve. */
export function canonical(path: string): string {
  return realOrUndefined(path) ?? resolve(path)
}
