import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Small read-only files the sandbox needs on the host (the seccomp program, an empty file to
 * mount over hidden files), written once per process into a private directory (mode 0700) and
 * rewritten if a temp cleaner removed them.
 */
let dir: string | undefined

/**
 * This process's private directory under the OS temp directory (mkdtemp: mode 0700, a fresh name,
 * so no other user can prepare it or race for it).
 */
export function privateDir(): string {
  if (dir === undefined || !existsSync(dir)) dir = mkdtempSync(join(tmpdir(), 'toolgate-sandbox-'))
  return dir
}

export function hostFile(name: string, content: Uint8Array | string): string {
  const path = join(privateDir(), name)
  if (!existsSync(path)) writeFileSync(path, content, { mode: 0o444 })
  return path
}

/**
 * An empty regular file, mounted read-only over a hidden file: programs that read it (npm reading
 * `~/.npmrc`) see an empty file, not an error. (/dev/null would not do: bind mounts are `nodev`,
 * so opening it fails with EACCES.)
 */
export function emptyFile(): string {
  return hostFile('empty', '')
}
