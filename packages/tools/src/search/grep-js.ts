import { type FileHandle, open } from 'node:fs/promises'
import { join } from 'node:path'
import { ToolError } from '@toolgate/core'
import { GlobPatternError } from '@toolgate/policy'
import { RE2JS } from 're2js'
import { descriptorPath, OPEN_FLAGS } from '../fs/descriptor.js'
import { type FileGlob, fileGlob } from './glob-pattern.js'
import { GrepCollector, type GrepRequest } from './grep-result.js'
import { compileLineSearch, type LineSearch, searchLines } from './line-search.js'
import { MatchWorker, WorkerPatternError } from './match-worker.js'
import { Pacer, SLICE_BUDGET } from './pacer.js'
import { type WalkEntry, walkFiles } from './walk.js'

// The pure-JS grep: the same walk order, file filter and result shape as the ripgrep backend,
// matched by RE2JS in linear time (`line-search.ts`). Work on the agent's thread comes in slices
// of SLICE_BUDGET (`pacer.ts`); what cannot be sliced (compiling a pattern with counted
// repetitions, one line longer than a slice) runs in this call's match worker, which its signal
// terminates. Every file is opened O_NOFOLLOW|O_NONBLOCK, must be a regular file, and its
// descriptor must sit at the walked path (a file or directory swapped for a link is skipped).

/** Files larger than this are skipped by the fallback (ripgrep streams them; we read whole files). */
const MAX_FILE_BYTES = 64 * 1024 * 1024

/** Patterns compiled on the agent's thread: short, without counted repetitions (`a{1000}`). */
const MAX_INLINE_PATTERN_CHARS = 1000
const COUNTED_REPETITION = /\{\d/

function invalidPattern(pattern: string, message: string): ToolError {
  return new ToolError(
    `Invalid regular expression ${JSON.stringify(pattern)}: ${message}. Escape special characters (e.g. \\( \\. \\[) to search for them literally.`,
    { info: { code: 'INVALID_PATTERN' } },
  )
}

/** Matches lines on the agent's thread in slices, or in the worker when a slice cannot hold them. */
class Matcher {
  readonly #inline: LineSearch | undefined
  readonly #worker: MatchWorker

  constructor(
    readonly pattern: string,
    private readonly pacer: Pacer,
    signal: AbortSignal,
  ) {
    if (pattern.length <= MAX_INLINE_PATTERN_CHARS && !COUNTED_REPETITION.test(pattern)) {
      try {
        this.#inline = compileLineSearch(RE2JS, pattern)
      } catch (error) {
        throw invalidPattern(pattern, (error as Error).message)
      }
    }
    this.#worker = new MatchWorker(pattern, signal)
  }

  /** Check the pattern before any file is read (the worker compiles it when inline did not). */
  async ready(): Promise<void> {
    if (this.#inline !== undefined) return
    try {
      await this.#worker.search('', true)
    } catch (error) {
      if (error instanceof WorkerPatternError) throw invalidPattern(this.pattern, error.message)
      throw error
    }
  }

  /** 0-based numbers of the matching lines (the first only, with `first`). */
  async search(text: string, first: boolean): Promise<number[]> {
    const inline = this.#inline
    if (inline === undefined) return this.#worker.search(text, first)
    const sliceChars = Math.max(1, Math.floor(SLICE_BUDGET / inline.cost))
    const found: number[] = []
    let line = 0
    for (let pos = 0; pos < text.length; ) {
      let end = Math.min(text.length, pos + sliceChars)
      if (end < text.length) {
        const nl = text.lastIndexOf('\n', end - 1)
        if (nl < pos) {
          // One line longer than a slice: the worker tests it.
          const lineEnd = text.indexOf('\n', pos)
          end = lineEnd === -1 ? text.length : lineEnd + 1
          if ((await this.#worker.search(text.slice(pos, end), true)).length > 0) found.push(line)
          line++
          pos = end
          if (first && found.length > 0) break
          continue
        }
        end = nl + 1
      }
      const chunk = text.slice(pos, end)
      for (const i of searchLines(inline, chunk, first)) found.push(line + i)
      await this.pacer.spend(chunk.length * inline.cost)
      if (first && found.length > 0) break
      line += lineCount(chunk)
      pos = end
    }
    return found
  }

  close(): Promise<void> {
    return this.#worker.close()
  }
}

function lineCount(chunk: string): number {
  let n = 0
  for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) n++
  return chunk.endsWith('\n') ? n : n + 1
}

function compileFileGlob(glob: string): FileGlob {
  try {
    return fileGlob(glob)
  } catch (error) {
    if (!(error instanceof GlobPatternError)) throw error
    throw new ToolError(
      `Invalid glob ${JSON.stringify(glob)}: ${error.message}. Correct the glob and call grep again.`,
      {
        info: { code: 'INVALID_GLOB' },
      },
    )
  }
}

/** Read a regular file through its descriptor, at most `size` bytes (what fstat said). */
async function readAll(handle: FileHandle, size: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size)
  let filled = 0
  while (filled < size) {
    const { bytesRead } = await handle.read(bytes, filled, size - filled, filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return bytes.subarray(0, filled)
}

/** A walked file opened for reading, or `undefined` to skip it (not regular, too big, moved). */
async function openWalked(entry: WalkEntry): Promise<{ handle: FileHandle; size: number } | undefined> {
  let handle: FileHandle
  try {
    handle = await open(entry.opener, OPEN_FLAGS.read)
  } catch {
    return undefined // unreadable, gone, or a link now: skipped, as ripgrep skips what it cannot read
  }
  try {
    const st = await handle.stat({ bigint: true })
    if (!st.isFile() || st.size > BigInt(MAX_FILE_BYTES)) throw new Error('skip')
    // Opened by name (no procfs): its descriptor must sit at the walked path.
    if (!entry.anchored && (await descriptorPath(handle, entry.path, st)) !== entry.path)
      throw new Error('skip')
    return { handle, size: Number(st.size) }
  } catch {
    await handle.close()
    return undefined
  }
}

export async function grepJs(request: GrepRequest): Promise<GrepCollector> {
  const pacer = new Pacer(request.signal)
  const matcher = new Matcher(request.pattern, pacer, request.signal)
  try {
    await matcher.ready()
    const out = new GrepCollector(request.mode)
    const searchOne = async (shown: string, handle: FileHandle, size: number) => {
      const bytes = await readAll(handle, size)
      if (bytes.includes(0)) return // binary (ripgrep's NUL heuristic)
      const text = bytes.toString('utf8')
      const lines = await matcher.search(text, request.mode === 'files_with_matches')
      if (lines.length === 0) return
      switch (request.mode) {
        case 'files_with_matches':
          out.file(shown)
          break
        case 'count':
          out.file(shown, lines.length)
          break
        case 'content': {
          const all = text.split('\n')
          for (const i of lines) out.line(shown, i + 1, all[i]!)
          break
        }
      }
    }
    const target = request.target
    if (target.kind === 'file') {
      if (target.size <= MAX_FILE_BYTES)
        await searchOne(request.display(target.lexical), target.handle, target.size)
      return out
    }
    const glob = request.glob === undefined ? undefined : compileFileGlob(request.glob)
    for await (const entry of walkFiles(target.real, request.signal)) {
      if (glob !== undefined) {
        const subject = glob.subject(entry.relative, entry.name)
        await pacer.spend(subject.length * glob.matcher.cost)
        if (!glob.matcher.test(subject)) continue
      }
      // A protected file is never read by a directory search (only when named, after approval).
      if (request.excludes(entry.path)) continue
      const file = await openWalked(entry)
      if (file === undefined) continue
      try {
        await searchOne(request.display(join(target.lexical, entry.relative)), file.handle, file.size)
      } finally {
        await file.handle.close()
      }
    }
    return out
  } finally {
    await matcher.close()
  }
}
