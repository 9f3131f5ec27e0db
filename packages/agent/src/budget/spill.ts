// Spill files: the full text of an output the model sees only in part, where the `read` tool can
// open it. The directory is created on demand, ignores itself for git (a `.gitignore` of `*`), and
// is checked to be a real directory — not a symbolic link — from the workspace root down: the
// model can run commands in the workspace and must not be able to point the harness's writes
// elsewhere by planting a link (`.toolgate` is also protected from writes by the permission engine
// and mounted read-only in the bash sandbox). Each file is created exclusively (O_EXCL: never an
// existing file, never through a link) and never overwritten.
import { constants } from 'node:fs'
import { copyFile, lstat, mkdir, writeFile } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

export class SpillDirectory {
  readonly dir: string
  private readonly anchor: string | undefined
  private ready: Promise<void> | undefined
  private count = 0

  /** `anchor`: the workspace root; every directory from it down to `dir` must be a real directory. */
  constructor(dir: string, anchor?: string) {
    this.dir = resolve(dir)
    this.anchor = anchor === undefined ? undefined : resolve(anchor)
  }

  /** Write `text` to a fresh file named after `stem`; returns its absolute path. */
  write(stem: string, text: string): Promise<string> {
    return this.create(stem, (file) => writeFile(file, text, { encoding: 'utf8', flag: 'wx' }))
  }

  /** Copy the file at `source` (a spill file bash wrote elsewhere) to a fresh file named after `stem`. */
  copy(stem: string, source: string): Promise<string> {
    return this.create(stem, (file) => copyFile(source, file, constants.COPYFILE_EXCL))
  }

  private async create(stem: string, make: (file: string) => Promise<void>): Promise<string> {
    this.ready ??= this.prepare()
    try {
      await this.ready
    } catch (error) {
      this.ready = undefined // a later spill may succeed once the directory is fixed
      throw error
    }
    for (;;) {
      this.count++
      const file = join(this.dir, `${safeName(stem)}-${this.count}.txt`)
      try {
        await make(file)
        return file
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || this.count > 100_000) throw error
      }
    }
  }

  private async prepare(): Promise<void> {
    const inside = this.anchor === undefined ? undefined : relative(this.anchor, this.dir)
    if (inside === undefined || inside.startsWith('..') || isAbsolute(inside)) {
      await mkdir(this.dir, { recursive: true })
      await this.checkReal(this.dir)
    } else {
      let at = this.anchor!
      for (const part of inside.split(sep).filter((p) => p !== '')) {
        at = join(at, part)
        await mkdir(at).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error
        })
        await this.checkReal(at)
      }
    }
    await writeFile(join(this.dir, '.gitignore'), '*\n', { flag: 'wx' }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error
      },
    )
  }

  private async checkReal(path: string): Promise<void> {
    const stat = await lstat(path)
    if (stat.isSymbolicLink())
      throw new Error(`${path} is a symbolic link; spill files go only into a real directory`)
    if (!stat.isDirectory()) throw new Error(`${path} is not a directory`)
  }
}

function safeName(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80)
}
