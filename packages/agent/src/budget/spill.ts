// Spill files: the full text of an output the model sees only in part, where the `read` tool can
// open it. The directory is created on demand, ignores itself for git (a `.gitignore` of `*`), and
// is checked to be a real directory — not a symbolic link — from the workspace root down: the
// model can run commands in the workspace and must not be able to point the harness's writes
// elsewhere by planting a link (`.toolgate` is also protected from writes by the permission engine
// and mounted read-only in the bash sandbox). Each file is created exclusively (O_EXCL: never an
// existing file, never through a link) and never overwritten.
import { constants, lstatSync, mkdirSync, writeFileSync } from 'node:fs'
import { copyFile, writeFile } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

export class SpillDirectory {
  readonly dir: string
  private readonly anchor: string | undefined
  private ready = false
  private count = 0

  /** `anchor`: the workspace root; every directory from it down to `dir` must be a real directory. */
  constructor(dir: string, anchor?: string) {
    this.dir = resolve(dir)
    this.anchor = anchor === undefined ? undefined : resolve(anchor)
  }

  /** Write `text` to a fresh file named after `stem`; returns its absolute path. */
  write(stem: string, text: string): Promise<string> {
    return this.create(stem, 'txt', (file) => writeFile(file, text, { encoding: 'utf8', flag: 'wx' }))
  }

  /** Copy the file at `source` (a spill file bash wrote elsewhere) to a fresh file named after `stem`. */
  copy(stem: string, source: string): Promise<string> {
    return this.create(stem, 'txt', (file) => copyFile(source, file, constants.COPYFILE_EXCL))
  }

  /**
   * `write` for callers that cannot wait (MCP output is limited in the runtime's synchronous
   * finalize stage); `extension` names the kind (`txt`, `png`, …). Returns the absolute path.
   */
  saveSync(stem: string, extension: string, data: string | Uint8Array): string {
    this.prepare()
    for (;;) {
      const file = this.nextFile(stem, extension)
      try {
        writeFileSync(file, data, { flag: 'wx', mode: 0o600 })
        return file
      } catch (error) {
        this.retryOrThrow(error)
      }
    }
  }

  private async create(
    stem: string,
    extension: string,
    make: (file: string) => Promise<void>,
  ): Promise<string> {
    this.prepare()
    for (;;) {
      const file = this.nextFile(stem, extension)
      try {
        await make(file)
        return file
      } catch (error) {
        this.retryOrThrow(error)
      }
    }
  }

  private nextFile(stem: string, extension: string): string {
    this.count++
    return join(this.dir, `${safeName(stem)}-${this.count}.${safeName(extension)}`)
  }

  /** A name taken (by an earlier session or a planted file) moves on to the next number. */
  private retryOrThrow(error: unknown): void {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || this.count > 100_000) throw error
  }

  /**
   * Synchronous on purpose: a handful of system calls once per session, and one code path for
   * `saveSync` and the asynchronous writers. A failure is retried on the next spill (the person may
   * have fixed the directory meanwhile).
   */
  private prepare(): void {
    if (this.ready) return
    const inside = this.anchor === undefined ? undefined : relative(this.anchor, this.dir)
    if (inside === undefined || inside.startsWith('..') || isAbsolute(inside)) {
      mkdirSync(this.dir, { recursive: true })
      checkReal(this.dir)
    } else {
      let at = this.anchor!
      for (const part of inside.split(sep).filter((p) => p !== '')) {
        at = join(at, part)
        try {
          mkdirSync(at)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        }
        checkReal(at)
      }
    }
    try {
      writeFileSync(join(this.dir, '.gitignore'), '*\n', { flag: 'wx' })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    this.ready = true
  }
}

function checkReal(path: string): void {
  const stat = lstatSync(path)
  if (stat.isSymbolicLink())
    throw new Error(`${path} is a symbolic link; spill files go only into a real directory`)
  if (!stat.isDirectory()) throw new Error(`${path} is not a directory`)
}

function safeName(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80)
}
