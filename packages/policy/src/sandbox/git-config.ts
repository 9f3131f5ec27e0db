import { readFileSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'

/**
 * A reader for git configuration files, host side (issue 11 §6: read `core.hooksPath` "safely —
 * parse the file, do not run git with the workspace config"). It only has to find values, never
 * to write. Where git would refuse the file, it skips the line and keeps reading (git then reads
 * nothing from that file, so what is read here is at most more than git uses: protected, never
 * missed). The grammar follows git's config.c (2.39), checked against real git by a differential
 * property test: `[section]`, `[section "subsection"]` (a backslash escapes any character),
 * `[section.subsection]`; `name = value` or a bare `name` (true); see `readValue` for values.
 * Section and key names are case-insensitive, subsections are not.
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
  // git reads "\r\n" as "\n" and the end of the file as a last "\n" (get_next_char).
  const src = `${text.replace(/\r\n/g, '\n')}\n`
  let i = 0
  let section: string | undefined
  const skipLine = () => {
    const end = src.indexOf('\n', i)
    i = end === -1 ? src.length : end + 1
  }
  while (i < src.length) {
    const c = src[i]!
    if (c === '\n' || c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++
      continue
    }
    if (c === '#' || c === ';') {
      skipLine()
      continue
    }
    if (c === '[') {
      i++
      section = readHeader()
      if (section === undefined) skipLine()
      continue
    }
    if (!/[A-Za-z]/.test(c) || section === undefined) {
      skipLine() // git refuses the file here; skip the line and keep reading
      continue
    }
    let name = ''
    while (/[A-Za-z0-9-]/.test(src[i]!)) name += src[i++]
    while (src[i] === ' ' || src[i] === '\t') i++
    if (src[i] === '\n') {
      entries.push({ key: `${section}.${name.toLowerCase()}`, value: 'true', file })
      continue
    }
    if (src[i] !== '=') {
      skipLine()
      continue
    }
    i++
    const value = readValue()
    if (value !== undefined) entries.push({ key: `${section}.${name.toLowerCase()}`, value, file })
  }
  return entries

  /** After `[`: `name]`, `name.sub]` (lower-cased) or `name "sub"]`; undefined when malformed. */
  function readHeader(): string | undefined {
    let name = ''
    while (/[A-Za-z0-9.-]/.test(src[i]!)) name += src[i++]
    if (src[i] === ']') {
      i++
      return name === '' ? undefined : name.toLowerCase()
    }
    if (src[i] !== ' ' && src[i] !== '\t') return undefined
    while (src[i] === ' ' || src[i] === '\t') i++
    if (src[i] !== '"' || name === '' || name.includes('.')) return undefined
    i++
    let sub = ''
    while (src[i] !== '"') {
      if (src[i] === '\n') return undefined
      if (src[i] === '\\') {
        i++
        if (src[i] === '\n') return undefined
      }
      sub += src[i++]
    }
    i++
    if (src[i] !== ']') return undefined
    i++
    return `${name.toLowerCase()}.${sub}`
  }

  /**
   * git's parse_value: blanks outside quotes are kept as one ' ' each only between other
   * characters (leading and trailing ones are dropped); `\n \t \b \\ \"` escape; a backslash before
   * the end of the line continues the value; `#` and `;` outside quotes end it. An unknown escape
   * or an unclosed quote makes git refuse the file: undefined.
   */
  function readValue(): string | undefined {
    let out = ''
    let quote = false
    let comment = false
    let spaces = 0
    for (;;) {
      const ch = src[i++]
      if (ch === undefined || ch === '\n') return quote ? undefined : out
      if (comment) continue
      if (!quote && (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\v')) {
        if (out.length > 0) spaces++
        continue
      }
      if (!quote && (ch === ';' || ch === '#')) {
        comment = true
        continue
      }
      out += ' '.repeat(spaces)
      spaces = 0
      if (ch === '\\') {
        const next = src[i++]
        if (next === '\n') continue
        if (next === 't') out += '\t'
        else if (next === 'b') out += '\b'
        else if (next === 'n') out += '\n'
        else if (next === '\\' || next === '"') out += next
        else {
          i--
          skipLine()
          return undefined
        }
        continue
      }
      if (ch === '"') {
        quote = !quote
        continue
      }
      out += ch
    }
  }
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
