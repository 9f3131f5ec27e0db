import { readFileSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'

/**
 * A reader for git configuration files, host side (issue 11 §6: read `core.hooksPath` "safely —
 * parse the file, do not run git with the workspace config"). It only has to find values, never
 * to write, so it is tolerant: a line it cannot read is skipped (git would refuse the file; the
 * sandbox then protects less than git would run, never more — see `readGitConfig`'s includes).
 *
 * Grammar (git-config(1) "Syntax"): `[section]`, `[section "subsection"]` (`\"` and `\\` escapes),
 * `[section.subsection]`; `name = value` or a bare `name` (true); values trimmed, `"..."` quoting,
 * `\n \t \b \\ \"` escapes, a trailing `\` continues the line; `#` and `;` start a comment outside
 * quotes. Section and key names are case-insensitive, subsections are not.
 */
export interface GitConfigEntry {
  /** `section.key` or `section.subsection.key`, section and key lower-cased. */
  readonly key: string
  readonly value: string
  /** The file it came from (for include paths, which are relative to it). */
  readonly file: string
}

/** Bytes read per file: configuration is small; a larger file is read up to here. */
export const MAX_CONFIG_BYTES = 1024 * 1024
/** Include depth, as git's own limit (MAX_INCLUDE_DEPTH). */
const MAX_INCLUDE_DEPTH = 10
/** Files per read, includes included. */
const MAX_CONFIG_FILES = 64

export function parseGitConfig(text: string, file: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = []
  let section: string | undefined
  let i = 0
  const n = text.length
  while (i < n) {
    // Skip blanks and empty lines.
    const ch = text[i]!
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') {
      i++
      continue
    }
    if (ch === '#' || ch === ';') {
      i = lineEnd(text, i)
      continue
    }
    if (ch === '[') {
      const header = readHeader(text, i + 1)
      section = header.section
      i = header.next
      continue
    }
    // A variable: name, then optional `= value`.
    let j = i
    while (j < n && /[A-Za-z0-9-]/.test(text[j]!)) j++
    const name = text.slice(i, j).toLowerCase()
    if (name === '' || section === undefined) {
      i = lineEnd(text, i)
      continue
    }
    while (j < n && (text[j] === ' ' || text[j] === '\t')) j++
    if (j >= n || text[j] === '\n' || text[j] === '#' || text[j] === ';' || text[j] === '\r') {
      entries.push({ key: `${section}.${name}`, value: 'true', file })
      i = j
      continue
    }
    if (text[j] !== '=') {
      i = lineEnd(text, j)
      continue
    }
    const value = readValue(text, j + 1)
    entries.push({ key: `${section}.${name}`, value: value.value, file })
    i = value.next
  }
  return entries
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from)
  return end === -1 ? text.length : end + 1
}

function readHeader(text: string, from: number): { section: string | undefined; next: number } {
  let i = from
  let name = ''
  while (i < text.length && /[A-Za-z0-9.-]/.test(text[i]!)) name += text[i++]
  while (text[i] === ' ' || text[i] === '\t') i++
  if (text[i] === ']') {
    // `[section.subsection]`: the deprecated form, lower-cased as a whole.
    const dot = name.indexOf('.')
    const section =
      dot === -1
        ? name.toLowerCase()
        : `${name.slice(0, dot).toLowerCase()}.${name.slice(dot + 1).toLowerCase()}`
    return { section: section === '' ? undefined : section, next: i + 1 }
  }
  if (text[i] !== '"') return { section: undefined, next: lineEnd(text, i) }
  i++
  let sub = ''
  while (i < text.length && text[i] !== '"' && text[i] !== '\n') {
    if (text[i] === '\\' && i + 1 < text.length) i++
    sub += text[i++]
  }
  if (text[i] !== '"' || text[i + 1] !== ']' || name === '')
    return { section: undefined, next: lineEnd(text, i) }
  return { section: `${name.toLowerCase()}.${sub}`, next: i + 2 }
}

function readValue(text: string, from: number): { value: string; next: number } {
  let i = from
  let out = ''
  let quoted = false
  // Trailing blanks outside quotes are dropped: remember where the last kept character was.
  let keep = 0
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++
  for (; i < text.length; i++) {
    const c = text[i]!
    if (c === '\n' || c === '\r') break
    if (!quoted && (c === '#' || c === ';')) {
      i = lineEnd(text, i) - 1
      break
    }
    if (c === '"') {
      quoted = !quoted
      keep = out.length
      continue
    }
    if (c === '\\') {
      const next = text[i + 1]
      if (next === '\n') {
        i++
        continue
      }
      if (next === '\r' && text[i + 2] === '\n') {
        i += 2
        continue
      }
      const escaped = next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next
      if (escaped !== undefined) out += escaped
      i++
      keep = out.length
      continue
    }
    out += c
    if (quoted || (c !== ' ' && c !== '\t')) keep = out.length
  }
  return { value: out.slice(0, keep), next: i + 1 }
}

/**
 * Read a configuration file and, recursively, every file it includes (`include.path` and every
 * `includeIf.<condition>.path`, whatever the condition: the sandbox protects what git MIGHT read).
 * Missing and unreadable files contribute nothing but are still listed in `files` (an include
 * target that does not exist yet must be protected too: creating it would add configuration).
 */
export function readGitConfig(file: string, home: string): { entries: GitConfigEntry[]; files: string[] } {
  const entries: GitConfigEntry[] = []
  const files: string[] = []
  const visit = (path: string, depth: number) => {
    if (depth > MAX_INCLUDE_DEPTH || files.length >= MAX_CONFIG_FILES || files.includes(path)) return
    files.push(path)
    let text: string
    try {
      if (!statSync(path).isFile()) return
      text = readFileSync(path).subarray(0, MAX_CONFIG_BYTES).toString('utf8')
    } catch {
      return
    }
    for (const entry of parseGitConfig(text, path)) {
      entries.push(entry)
      if (
        entry.key === 'include.path' ||
        (entry.key.startsWith('includeif.') && entry.key.endsWith('.path'))
      ) {
        const target = configPath(entry.value, dirname(path), home)
        if (target !== undefined) visit(target, depth + 1)
      }
    }
  }
  visit(resolve(file), 0)
  return { entries, files }
}

/** A path value as git reads it: `~/` is the home directory, relative is relative to `base`. */
export function configPath(value: string, base: string, home: string): string | undefined {
  if (value === '') return undefined
  if (value === '~') return home
  if (value.startsWith('~/')) return join(home, value.slice(2))
  if (value.startsWith('~')) return undefined // ~user: another user's home, not ours to protect
  return isAbsolute(value) ? resolve(value) : resolve(base, value)
}
