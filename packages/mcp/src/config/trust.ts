// Project servers are untrusted until the user approves them once (issue 16 §1): a cloned
// repository must not be able to start programs on the user's machine by shipping a `.mcp.json`.
// An approval is remembered per workspace path + server name + hash of the configuration as
// written, in the user's toolgate directory (never in the project); any change to the
// configuration needs a new approval. Servers from the user's own settings are trusted.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { toolgateHome } from './files.js'
import type { ServerEntry } from './types.js'

export interface TrustStore {
  /** Whether this server may start (user servers always; project servers once approved). */
  isTrusted(root: string, entry: ServerEntry): boolean
  /** Remember the user's approval of this configuration. */
  approve(root: string, entry: ServerEntry): void
  /** Forget an approval. */
  revoke(root: string, entry: ServerEntry): void
  readonly path: string
}

/** The user's toolgate directory: `$TOOLGATE_HOME`, else `~/.toolgate`. */

/** Canonical JSON (sorted keys) so a re-formatted file keeps its approval. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export function configHash(entry: ServerEntry): string {
  return createHash('sha256').update(canonicalJson(entry.raw)).digest('hex')
}

interface TrustFile {
  readonly version: 1
  /** key: `<root>\n<server>` -> config hash */
  readonly approved: Record<string, string>
}

export function fileTrustStore(path = join(toolgateHome(), 'mcp-approvals.json')): TrustStore {
  const key = (root: string, entry: ServerEntry) => `${resolve(root)}\n${entry.name}`
  const read = (): TrustFile => {
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        (parsed as TrustFile).version === 1 &&
        typeof (parsed as TrustFile).approved === 'object'
      ) {
        const approved: Record<string, string> = Object.create(null)
        for (const [k, v] of Object.entries((parsed as TrustFile).approved))
          if (typeof v === 'string') approved[k] = v
        return { version: 1, approved }
      }
    } catch {
      // Missing or unreadable: nothing is approved (fail closed).
    }
    return { version: 1, approved: Object.create(null) }
  }
  const write = (file: TrustFile) => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 })
    renameSync(tmp, path)
  }
  return {
    path,
    isTrusted(root, entry) {
      if (entry.source === 'user-settings' || entry.source === 'code') return true
      return read().approved[key(root, entry)] === configHash(entry)
    },
    approve(root, entry) {
      const file = read()
      write({ version: 1, approved: { ...file.approved, [key(root, entry)]: configHash(entry) } })
    },
    revoke(root, entry) {
      const file = read()
      const approved = { ...file.approved }
      delete approved[key(root, entry)]
      write({ version: 1, approved })
    },
  }
}
