import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

// A real child process that keeps swapping one name between two things (issue 13 §3): each flip
// prepares the next thing under a temporary name and renames it over `name`, so the name always
// exists and the swap is atomic. It reports every 500 flips on stdout; tests wait on that count
// (never on time) and stop it when done.

const SCRIPT = `
const fs = require('node:fs')
const [name, a, b, kind] = process.argv.slice(1)
const tmp = name + '.racer-tmp'
let flips = 0
process.on('SIGTERM', () => { process.stdout.write('stopped ' + flips + '\\n', () => process.exit(0)) })
// fifo: hard links to one regular file and one FIFO made once (mkfifo), so a flip costs no spawn.
const masters = kind === 'fifo' ? [name + '.racer-file', name + '.racer-fifo'] : []
if (kind === 'fifo') {
  fs.writeFileSync(masters[0], a)
  require('node:child_process').execFileSync('mkfifo', [masters[1]])
}
process.stdout.write('ready\\n')
const step = () => {
  for (let i = 0; i < 50; i++) {
    if (kind === 'dir-link') {
      // A real directory (moved in from a, moved back) and a link to b take turns; not atomic:
      // the name is briefly missing in between.
      if (flips % 2 === 0) {
        fs.rmSync(name, { force: true })
        fs.renameSync(a, name)
      } else {
        fs.renameSync(name, a)
        fs.symlinkSync(b, name)
      }
      flips++
      if (flips % 500 === 0) process.stdout.write('flips ' + flips + '\\n')
      continue
    }
    fs.rmSync(tmp, { force: true })
    if (kind === 'fifo') fs.linkSync(masters[flips % 2], tmp)
    else fs.symlinkSync(flips % 2 === 0 ? a : b, tmp)
    fs.renameSync(tmp, name)
    flips++
    if (flips % 500 === 0) process.stdout.write('flips ' + flips + '\\n')
  }
  setImmediate(step)
}
step()
`

export interface Racer {
  /** Flips done so far (as last reported). */
  readonly flips: () => number
  /** Resolves once at least `n` flips were reported. */
  readonly reached: (n: number) => Promise<void>
  /** Stop the child and get its final flip count. */
  readonly stop: () => Promise<number>
}

/**
 * Swap `name` between links to `a` and `b` (`kind: 'link'`), between a regular file holding
 * the text `a` and a FIFO (`kind: 'fifo'`, `b` ignored), or between the directory `a` (moved in
 * and out) and a link to `b` (`kind: 'dir-link'`).
 */
export async function startRacer(
  name: string,
  a: string,
  b: string,
  kind: 'link' | 'fifo' | 'dir-link' = 'link',
): Promise<Racer> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT, name, a, b, kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let flips = 0
  let final: number | undefined
  const waiters: { n: number; resolve: () => void }[] = []
  const lines = createInterface({ input: child.stdout! })
  const ready = new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`racer exited early (${code})`)))
    lines.on('line', (line) => {
      if (line === 'ready') resolve()
      const [word, count] = line.split(' ')
      if (word === 'flips') flips = Number(count)
      if (word === 'stopped') final = Number(count)
      for (const w of waiters.splice(0)) {
        if (flips >= w.n) w.resolve()
        else waiters.push(w)
      }
    })
  })
  await ready
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    flips: () => flips,
    reached: (n) => (flips >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    stop: async () => {
      child.kill('SIGTERM')
      await exited
      return final ?? flips
    },
  }
}
