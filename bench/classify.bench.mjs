// classifyCommand throughput and memory (DESIGN.md §7: >= 50,000 commands/s; memory flat over 1e6
// calls). Baselines measured in the same run: the bare tree-sitter parse (parse + tree.delete()),
// which bounds what any tree-sitter-based classifier can reach on this machine.
// Run: npx tsc -b packages/policy && node --expose-gc bench/classify.bench.mjs
import { createRequire } from 'node:module'
import { classifyCommand, classifyUncached, clearClassifyCache, initShellParser } from '@toolgate/policy'
import { Language, Parser } from 'web-tree-sitter'

const TARGET = 50_000
const RUNS = 5
const N = 20_000

// Realistic mixed commands of an agent session (reads, searches, git, pipelines, some writes).
const COMMANDS = [
  'ls -la',
  'git status',
  'git log --oneline -n 10',
  'git diff --stat',
  'cat package.json',
  'rg -n "classifyCommand" packages',
  'grep -rn TODO src --include=*.ts',
  'head -n 50 src/index.ts',
  'find . -name "*.ts" -not -path "*/node_modules/*" | wc -l',
  'npm test',
  'npm run build 2>&1 | tail -20',
  'cat file.txt 2>&1 | head',
  'jq -r ".dependencies | keys[]" package.json',
  'sed -n "1,40p" src/shell/walk.ts',
  'git show HEAD --stat',
  'mkdir -p build && cp -r src build/',
  'echo "done" > status.txt',
  'sort names.txt | uniq -c | sort -rn | head',
  'cd packages/policy && ls',
  'rm -rf dist',
]

await initShellParser()
const require = createRequire(import.meta.url)
await Parser.init()
const parser = new Parser()
parser.setLanguage(await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')))

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmt = (n) => Math.round(n).toLocaleString('en-US')

function rate(fn) {
  const rates = []
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now()
    for (let i = 0; i < N; i++) fn(COMMANDS[i % COMMANDS.length])
    rates.push(N / ((performance.now() - t0) / 1000))
  }
  return median(rates)
}

// warm up
for (let i = 0; i < 5_000; i++) classifyUncached(COMMANDS[i % COMMANDS.length])

const parseOnly = rate((c) => parser.parse(c).delete())
const uncached = rate((c) => classifyUncached(c))
const cached = rate((c) => classifyCommand(c))

console.log(
  `tree-sitter parse+delete baseline: ${fmt(parseOnly)} cmd/s median of ${RUNS} runs (${(parseOnly / TARGET).toFixed(2)}x target ${fmt(TARGET)})`,
)
console.log(
  `classifyCommand uncached throughput: ${fmt(uncached)} cmd/s median of ${RUNS} runs (${(uncached / TARGET).toFixed(2)}x target ${fmt(TARGET)}; ${(uncached / parseOnly).toFixed(2)}x the parse-only baseline)`,
)
console.log(
  `classifyCommand LRU-cached throughput (20 distinct commands): ${fmt(cached)} cmd/s median of ${RUNS} runs (${(cached / TARGET).toFixed(2)}x target ${fmt(TARGET)}; ${(cached / uncached).toFixed(1)}x uncached)`,
)

// Memory: heap and WASM-backed RSS after GC, before and after 1e6 calls (uncached: every call
// parses and frees a tree; a leaked tree would grow RSS).
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
    for (let i = 0; i < CALLS / 4; i++) classifyUncached(COMMANDS[i % COMMANDS.length])
    gc()
    checkpoints.push(process.memoryUsage().rss)
  }
  const heap1 = process.memoryUsage().heapUsed
  const rss1 = process.memoryUsage().rss
  const mb = (b) => (b / 1024 / 1024).toFixed(1)
  console.log(
    `classifyCommand memory over ${fmt(CALLS)} uncached calls: heap ${mb(heap0)} -> ${mb(heap1)} MB after GC (growth ${mb(heap1 - heap0)} MB), rss ${mb(rss0)} -> ${mb(rss1)} MB (growth ${mb(rss1 - rss0)} MB; rss at each quarter ${checkpoints.map(mb).join(' / ')} MB: growth in the last 3 quarters ${mb(checkpoints[3] - checkpoints[0])} MB; baseline: 0)`,
  )
}
