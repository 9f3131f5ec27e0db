import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { ToolError } from '@toolgate/core'
import { resolveProgram } from '@toolgate/policy'
import { GREP_MAX_LINE_CHARS, GrepCollector, type GrepRequest } from './grep-result.js'
import { SKIPPED_DIRS } from './walk.js'

// The ripgrep backend: `rg` with the walk made to match the JS fallback (hidden files included,
// ignore files not applied, symlinks not followed, SKIPPED_DIRS excluded, sorted by path), its
// output streamed and parsed line by line, never held whole.

/**
 * Each configured ripgrep resolved once to an absolute path (system directories first, then PATH's
 * absolute entries): looked up at every spawn, a `rg` a command put in `~/bin` (danger-full-access)
 * or a relative PATH entry (searched from the directory being grepped) ran as the agent,
 * unconfined (red team). The sandbox profile keeps the resolved file read-only.
 */
const resolvedPrograms = new Map<string, string>()
const ripgrep = (configured: string) => {
  let path = resolvedPrograms.get(configured)
  if (path === undefined) {
    path = resolveProgram(configured)
    resolvedPrograms.set(configured, path)
  }
  return path
}

const available = new Map<string, Promise<boolean>>()

/** Whether ripgrep runs (checked once per process and program). */
export function ripgrepAvailable(configured = 'rg'): Promise<boolean> {
  let check = available.get(configured)
  if (check === undefined) {
    check = new Promise((resolve) => {
      const child = spawn(ripgrep(configured), ['--version'], { stdio: 'ignore' })
      child.on('error', () => resolve(false))
      child.on('close', (code) => resolve(code === 0))
    })
    available.set(configured, check)
  }
  return check
}

export async function grepRipgrep(request: GrepRequest, configured = 'rg'): Promise<GrepCollector> {
  const args = ['--no-config', '--hidden', '--no-ignore', '--sort', 'path', '--with-filename']
  if (request.glob !== undefined) args.push('--glob', request.glob)
  // Exclusions last: later globs take precedence over the caller's.
  for (const dir of SKIPPED_DIRS) args.push('--glob', `!${dir}`)
  switch (request.mode) {
    case 'content':
      // Not --json: it has no column limit, and a match is one JSON line with the whole text line
      // and an object per submatch (a 20 MB line of `a` searched for `a`: ~900 MB, past V8's string
      // limit, and readline's RangeError killed the process). Plain records `path\0N:text\n`, the
      // text cut by ripgrep to a preview of PREVIEW_BYTES (at least GREP_MAX_LINE_CHARS characters).
      args.push('--null', '--line-number', '--no-heading', '--color', 'never')
      args.push('--max-columns', String(PREVIEW_BYTES), '--max-columns-preview')
      break
    case 'files_with_matches':
      args.push('--files-with-matches', '--null')
      break
    case 'count':
      args.push('--count', '--null')
      break
  }
  args.push('--regexp', request.pattern)
  // A directory is searched from inside its real path (cwd), so `--glob a/*.ts` is relative to it
  // as in the JS fallback; ripgrep prints paths relative to it, shown under the name the call gave.
  // A file is searched through the descriptor the tool opened and checked, given to ripgrep as
  // its stdin: ripgrep never looks the name up again.
  // Protected files of a directory search are dropped from ripgrep's output before anything is
  // counted or shown (ripgrep cannot be told the table's exemptions), so nothing of them reaches
  // the model, not even whether they matched.
  const target = request.target
  const isDir = target.kind === 'directory'
  if (!isDir) args.push('-')
  const real = (p: string) => (isDir ? join(target.real, p) : target.lexical)
  const shown = (p: string) => request.display(isDir ? join(target.lexical, p) : target.lexical)

  const out = new GrepCollector(request.mode)
  const child = spawn(ripgrep(configured), args, {
    cwd: isDir ? target.real : undefined,
    stdio: [isDir ? 'ignore' : target.handle.fd, 'pipe', 'pipe'],
  }) as ChildProcessByStdio<null, Readable, Readable>
  const onAbort = () => child.kill('SIGKILL')
  request.signal.addEventListener('abort', onAbort, { once: true })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk
  })
  const closed = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, error }))
    child.on('close', (code) => resolve({ code }))
  })
  try {
    if (request.mode === 'content') {
      // `path\0N:text\n`: the path ends at the first NUL (a name may hold `:` or a newline), the
      // text at the newline (a line has none). Records are bounded by the column limit; one that
      // is not (a ripgrep without it) ends the search instead of growing without end.
      let pending = ''
      child.stdout.setEncoding('utf8')
      for await (const chunk of child.stdout as AsyncIterable<string>) {
        pending += chunk
        let at = 0
        for (;;) {
          const nul = pending.indexOf('\0', at)
          if (nul === -1) break
          const colon = pending.indexOf(':', nul)
          const nl = colon === -1 ? -1 : pending.indexOf('\n', colon)
          if (nl === -1) break
          const path = pending.slice(at, nul)
          at = nl + 1
          if (isDir && request.excludes(real(path))) continue
          out.line(shown(path), Number(pending.slice(nul + 1, colon)), pending.slice(colon + 1, nl))
        }
        pending = pending.slice(at)
        if (pending.length > MAX_RECORD_CHARS) throw unreadableOutput()
      }
    } else {
      // --null: `path\0` per file (files_with_matches) or `path\0count\n` (count).
      let pending = ''
      const take = (record: string, count?: string) => {
        if (isDir && request.excludes(real(record))) return
        if (request.mode === 'files_with_matches') out.file(shown(record))
        else out.file(shown(record), Number(count))
      }
      child.stdout.setEncoding('utf8')
      for await (const chunk of child.stdout as AsyncIterable<string>) {
        pending += chunk
        for (;;) {
          const nul = pending.indexOf('\0')
          if (nul === -1) break
          if (request.mode === 'files_with_matches') {
            take(pending.slice(0, nul))
            pending = pending.slice(nul + 1)
          } else {
            const nl = pending.indexOf('\n', nul)
            if (nl === -1) break
            take(pending.slice(0, nul), pending.slice(nul + 1, nl))
            pending = pending.slice(nl + 1)
          }
        }
        if (pending.length > MAX_RECORD_CHARS) throw unreadableOutput()
      }
    }
    const { code, error } = await closed
    request.signal.throwIfAborted()
    if (error !== undefined)
      throw new ToolError(
        'grep could not start ripgrep on this host, so nothing was searched. Retry once; if it fails again, search with bash (e.g. grep -rn).',
        { code: 'GREP_FAILED', cause: error },
      )
    // 0: matches, 1: none, 2: an error (with or without matches elsewhere).
    if (code === 2 && out.totalFiles === 0) {
      const message = stderr.trim().split('\n').slice(0, 8).join('\n')
      throw new ToolError(
        `grep failed: ${message || 'ripgrep exited with status 2'}. If the pattern has special characters, escape them (e.g. \\( \\. \\[) to search literally.`,
        { info: { code: 'GREP_FAILED' } },
      )
    }
    return out
  } finally {
    request.signal.removeEventListener('abort', onAbort)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

/**
 * Bytes of a long line ripgrep prints (then `[... omitted end of long line]`): at least
 * GREP_MAX_LINE_CHARS characters of any UTF-8 text (4 bytes per character at most), so the
 * collector cuts every line where the JS backend does.
 */
const PREVIEW_BYTES = 4 * GREP_MAX_LINE_CHARS

/** The longest record the reader holds: a path (at most PATH_MAX) and a preview, with room. */
const MAX_RECORD_CHARS = 1024 * 1024

function unreadableOutput(): ToolError {
  return new ToolError(
    `ripgrep printed a record over ${MAX_RECORD_CHARS.toLocaleString('en-US')} characters, which it should not, so the search was stopped. Narrow it with path or glob, or search with bash (e.g. grep -rn).`,
    { info: { code: 'GREP_FAILED' } },
  )
}
