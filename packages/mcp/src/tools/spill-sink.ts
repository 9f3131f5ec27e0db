// Where the full text of a cut MCP result goes. The CLI passes its workspace spill directory (the
// one `read` may always open, paths shown relative to the workspace); a library user without one
// gets a private temporary directory. Either way each file is created exclusively (O_EXCL: never
// an existing file, never through a planted link) and never overwritten.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** Synchronous: MCP output is limited in the runtime's finalize stage, which cannot wait. */
export interface SpillSink {
  /** Create a fresh file for `data`; returns the path the model should pass to `read`. */
  save(stem: string, extension: string, data: string | Uint8Array): string
}

/** Files in `dir` (default: a fresh `toolgate-mcp-*` temporary directory, made on first use). */
export function directorySpill(dir?: string): SpillSink {
  let at: string | undefined
  let count = 0
  return {
    save(stem, extension, data) {
      at ??= dir !== undefined ? resolve(dir) : mkdtempSync(join(tmpdir(), 'toolgate-mcp-'))
      for (;;) {
        const file = join(at, `${clean(stem)}-${++count}.${clean(extension)}`)
        try {
          writeFileSync(file, data, { flag: 'wx', mode: 0o600 })
          return file
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || count > 100_000) throw error
        }
      }
    },
  }
}

function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100)
}
