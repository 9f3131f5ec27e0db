import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { ToolError } from '@toolgate/core'
import { fileGlobMatcher } from './glob-pattern.js'
import { GrepCollector, type GrepRequest } from './grep-result.js'
import { walkFiles } from './walk.js'

// The pure-JS grep: the same walk order, file filter and result shape as the ripgrep backend, with
// JavaScript regular expressions (close to ripgrep's syntax for everyday patterns; see README).

/** Files larger than this are skipped by the fallback (ripgrep streams them; we read whole files). */
const MAX_FILE_BYTES = 64 * 1024 * 1024

export function compileJsPattern(pattern: string): RegExp {
  // `(?i)` is ripgrep's inline case-insensitive flag; JavaScript (Node 20) has no inline flags.
  const insensitive = pattern.startsWith('(?i)')
  const source = insensitive ? pattern.slice(4) : pattern
  const flags = insensitive ? 'i' : ''
  try {
    return new RegExp(source, `${flags}u`)
  } catch {
    try {
      return new RegExp(source, flags)
    } catch (error) {
      throw new ToolError(
        `Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}. Escape special characters (e.g. \\( \\. \\[) to search for them literally.`,
        { info: { code: 'INVALID_PATTERN' } },
      )
    }
  }
}

export async function grepJs(request: GrepRequest): Promise<GrepCollector> {
  const re = compileJsPattern(request.pattern)
  const out = new GrepCollector(request.mode)
  const info = await stat(request.target)
  const matcher = request.glob === undefined ? undefined : fileGlobMatcher(request.glob)
  const files = info.isDirectory()
    ? walkFiles(request.target, request.signal)
    : (async function* () {
        yield { path: request.target, relative: basename(request.target), name: basename(request.target) }
      })()
  for await (const entry of files) {
    request.signal.throwIfAborted()
    if (info.isDirectory() && matcher !== undefined && !matcher(entry.relative, entry.name)) continue
    // A protected file is never read by a directory search (only when named, after approval).
    if (info.isDirectory() && request.excludes(entry.path)) continue
    let bytes: Buffer
    try {
      if ((await stat(entry.path)).size > MAX_FILE_BYTES) continue
      bytes = await readFile(entry.path)
    } catch {
      continue // unreadable files are skipped, as ripgrep does
    }
    if (bytes.includes(0)) continue // binary (ripgrep's NUL heuristic)
    const text = bytes.toString('utf8')
    const lines = text.split('\n')
    if (text.endsWith('\n')) lines.pop()
    const shown = request.display(entry.path)
    let matching = 0
    for (let i = 0; i < lines.length; i++) {
      if (!re.test(lines[i]!)) continue
      matching++
      if (request.mode === 'content') out.line(shown, i + 1, lines[i]!)
      else if (request.mode === 'files_with_matches') break
    }
    if (matching === 0) continue
    if (request.mode === 'files_with_matches') out.file(shown)
    else if (request.mode === 'count') out.file(shown, matching)
  }
  return out
}
