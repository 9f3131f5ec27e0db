// classifyCommand throughput and memory (issue 4 §1 and DESIGN.md §7: >= 50,000 commands/s;
// memory flat over 1e6 calls). Baselines measured in the same run: the bare tree-sitter parse
// (parse + tree.delete()), which bounds any classifier that parses every command with tree-sitter,
// and the tree-sitter path alone (no fast path).
// Run: npx tsc -b packages/policy && node --expose-gc bench/classify.bench.mjs
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { classifyCommand, classifyUncached, clearClassifyCache, initShellParser } from '@toolgate/policy'
import tsBlankSpace from 'ts-blank-space'
import { Language, Parser } from 'web-tree-sitter'
// Package internals (same module instances as '@toolgate/policy': node resolves the workspace link).
import { classifyWithTreeSitter } from '../packages/policy/dist/shell/classify.js'
import { fastParse } from '../packages/policy/dist/shell/fast-parse.js'

const TARGET = 50_000
const RUNS = 7
const N = 20_000

// The test corpora (TypeScript without imports: strip the types and import the module as data).
const corpusTs = readFileSync(new URL('../packages/policy/test/shell-corpus.ts', import.meta.url), 'utf8')
const { READ_ONLY, UNSAFE } = await import(
  `data:text/javascript;base64,${Buffer.from(tsBlankSpace(corpusTs)).toString('base64')}`
)

// Commands of an agent session that change things (builds, writes, installs).
const WRITING = [
  'npm test',
  'npm run build 2>&1 | tail -20',
  'mkdir -p build && cp -r src build/',
  'echo "done" > status.txt',
  'rm -rf dist',
  'git add -A && git commit -m "fix: handle empty input"',
  'npx tsc -b',
  'sed -i "s/foo/bar/g" src/index.ts',
  'git checkout -b feature/x',
  'npm install',
]
// Realistic mix: every everyday read-only command, the writing ones, and every 10th adversarial one.
const MIXED = [...READ_ONLY, ...WRITING, ...UNSAFE.filter((_, i) => i % 10 === 0)]
const ADVERSARIAL = UNSAFE

await initShellParser()
const require = createRequire(import.meta.url)
await Parser.init()
const parser = new Parser()
parser.setLanguage(await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')))

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (n) => Math.round(n).toLocaleString('en-US')
const vsTarget = (r) => `${(r / TARGET).toFixed(2)}x target ${fmt(TARGET)}`

// The machine is shared: measure all variants round-robin within each run, so that a burst of load
// from elsewhere hits every variant alike, and report medians (and ratios of medians).
function rates(variants) {
  const samples = variants.map(() => [])
  for (let r = 0; r < RUNS; r++) {
    variants.forEach(([fn, corpus], v) => {
      const t0 = performance.now()
      for (let i = 0; i < N; i++) fn(corpus[i % corpus.length])
      samples[v].push(N / ((performance.now() - t0) / 1000))
    })
  }
  return samples.map(median)
}

// warm up every path
for (let i = 0; i < 5_000; i++) {
  const c = MIXED[i % MIXED.length]
  classifyUncached(c)
  classifyWithTreeSitter(c)
  parser.parse(c).delete()
}

const share = (corpus) => corpus.filter((c) => fastParse(c) !== undefined).length
const mixedFast = share(MIXED)
const [parseOnly, treeOnly, uncached, adversarial, cached] = rates([
  [(c) => parser.parse(c).delete(), MIXED],
  [(c) => classifyWithTreeSitter(c), MIXED],
  [(c) => classifyUncached(c), MIXED],
  [(c) => classifyUncached(c), ADVERSARIAL],
  [(c) => classifyCommand(c), MIXED],
])
const corpusDesc = `${MIXED.length} commands: ${READ_ONLY.length} everyday read-only, ${WRITING.length} writing, ${MIXED.length - READ_ONLY.length - WRITING.length} adversarial`
console.log(
  `fast-path share of the mixed corpus (${corpusDesc}): ${mixedFast}/${MIXED.length} = ${((100 * mixedFast) / MIXED.length).toFixed(1)}% (read-only corpus ${share(READ_ONLY)}/${READ_ONLY.length}, adversarial ${share(ADVERSARIAL)}/${ADVERSARIAL.length}); baseline: 0% before the fast path`,
)
console.log(
  `tree-sitter parse+delete baseline (mixed corpus): ${fmt(parseOnly)} cmd/s median of ${RUNS} runs (${vsTarget(parseOnly)})`,
)
console.log(
  `classify via tree-sitter only, uncached (mixed corpus): ${fmt(treeOnly)} cmd/s median of ${RUNS} runs (${vsTarget(treeOnly)}; ${(treeOnly / parseOnly).toFixed(2)}x the parse-only baseline)`,
)
console.log(
  `classifyCommand uncached throughput (mixed corpus, fast path + tree-sitter): ${fmt(uncached)} cmd/s median of ${RUNS} runs (${vsTarget(uncached)}; ${(uncached / treeOnly).toFixed(2)}x tree-sitter only, ${(uncached / parseOnly).toFixed(2)}x the parse-only baseline)`,
)
console.log(
  `classifyCommand uncached throughput (adversarial corpus only, ${ADVERSARIAL.length} commands, worst case): ${fmt(adversarial)} cmd/s median of ${RUNS} runs (${vsTarget(adversarial)}; ${(adversarial / parseOnly).toFixed(2)}x the parse-only baseline)`,
)
console.log(
  `classifyCommand LRU-cached throughput (mixed corpus, ${MIXED.length} distinct commands): ${fmt(cached)} cmd/s median of ${RUNS} runs (${vsTarget(cached)}; ${(cached / uncached).toFixed(1)}x uncached)`,
)

// Memory: heap and WASM-backed RSS after GC, before and after 1e6 calls (uncached: every call that
// delegates parses and frees a tree; a leaked tree would grow RSS).
const CALLS = Number(process.env.CLASSIFY_BENCH_CALLS ?? 1_000_000)
const gc = globalThis.gc
if (gc === undefined) {
  console.log('classifyCommand memory over 1e6 calls: skipped (run node with --expose-gc)')
} else {
  clearClassifyCache()
  gc()
  const heap0 = process.memoryUsage().heapUsed
  const rss0 = process.memoryUsage().rss
  const checkpoints = []
  for (let q = 0; q < 4; q++) {
    for (let i = 0; i < CALLS / 4; i++) classifyUncached(MIXED[i % MIXED.length])
    gc()
    checkpoints.push(process.memoryUsage().rss)
  }
  const heap1 = process.memoryUsage().heapUsed
  const rss1 = process.memoryUsage().rss
  const mb = (b) => (b / 1024 / 1024).toFixed(1)
  console.log(
    `classifyCommand memory over ${fmt(CALLS)} uncached calls (mixed corpus): heap ${mb(heap0)} -> ${mb(heap1)} MB after GC (growth ${mb(heap1 - heap0)} MB), rss ${mb(rss0)} -> ${mb(rss1)} MB (growth ${mb(rss1 - rss0)} MB; rss at each quarter ${checkpoints.map(mb).join(' / ')} MB: growth in the last 3 quarters ${mb(checkpoints[3] - checkpoints[0])} MB; baseline: 0)`,
  )
}
