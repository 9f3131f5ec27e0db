// npm run bench: runs every bench/*.bench.mjs in its own process (with --expose-gc), in order.
// `npm run bench -- core agent` runs the files whose names contain one of the words;
// `--node PATH` (repeatable) runs them on that Node binary instead of this one, e.g. once on the
// machine's Node and once on Node 24 (the reference for targets, issue 14 §1). Every line a bench
// prints carries the Node version it was measured on.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const here = dirname(fileURLToPath(import.meta.url))
const { values, positionals } = parseArgs({
  options: { node: { type: 'string', multiple: true } },
  allowPositionals: true,
})
const nodes = values.node ?? [process.execPath]
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => positionals.length === 0 || positionals.some((o) => f.includes(o)))
  .sort()
let failed = 0
for (const node of nodes) {
  for (const file of files) {
    console.log(`\n# ${file}`)
    const result = spawnSync(node, ['--expose-gc', join(here, file)], { stdio: 'inherit' })
    if (result.error) console.log(`# ${file}: could not start ${node}: ${result.error.message}`)
    if (result.status !== 0) failed++
  }
}
process.exit(failed > 0 ? 1 : 0)
