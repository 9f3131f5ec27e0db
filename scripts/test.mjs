// `npm test`: the typecheck beside the lint and then the build (each is mostly one core; the build
// comes after knip, which reads the packages' entries, and it is what the CLI binary tests spawn:
// built here, their own `tsc -b` is an up-to-date check), then vitest with the arguments given
// (`npm test -- packages/cli`). Each step's output is printed whole when it ends, with its time; a
// step failing fails the run, after the others have ended.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const npmRun = (script) => (stdio) => run(script, 'npm', ['run', '-s', script], stdio)
const then = (first, second) => async (stdio) => {
  const a = await first(stdio)
  return a.ok ? [a, await second(stdio)] : [a]
}
const steps = [npmRun('typecheck'), then(npmRun('lint'), npmRun('build'))]

function run(name, command, args, stdio) {
  const started = performance.now()
  return new Promise((done) => {
    const child = spawn(command, args, { stdio })
    let out = ''
    child.stdout?.on('data', (c) => {
      out += c
    })
    child.stderr?.on('data', (c) => {
      out += c
    })
    child.on('error', (e) => {
      out += `${e.message}\n`
    })
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      const status = code === 0 ? 'ok' : signal ? `killed by ${signal}` : `exit ${code}`
      done({ name, ok: code === 0, out, line: `== ${name}: ${status}, ${seconds} s` })
    })
  })
}

const results = (await Promise.all(steps.map((step) => step(['ignore', 'pipe', 'pipe'])))).flat()
for (const r of results) {
  if (r.out.trim() !== '') process.stdout.write(`${r.out.trimEnd()}\n`)
  console.log(r.line)
}
const failed = results.filter((r) => !r.ok).map((r) => r.name)
if (failed.length > 0) {
  console.error(`npm test: ${failed.join(', ')} failed; vitest did not run`)
  process.exit(1)
}
const vitestBin = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url))
const vitest = await run('vitest', process.execPath, [vitestBin, 'run', ...process.argv.slice(2)], 'inherit')
console.log(vitest.line)
process.exit(vitest.ok ? 0 : 1)
