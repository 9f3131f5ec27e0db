// The edit/write diff (issue 14 §4): `unifiedDiff` (jsdiff's line diff behind a common-prefix and
// -suffix trim) against the floor of the same run, splitting both texts into lines and comparing
// them, round-robin so load drift hits both alike. Then the worst case the edit-distance cap bounds.

import { unifiedDiff } from '@toolgate/tools'
import { fmtUs, roundRobin } from './lib.mjs'

const node = process.version
const source = (n) =>
  Array.from({ length: n }, (_, i) => `  const value${i} = compute(${i}) // line ${i}`).join('\n')
const changeEvery = (text, every) =>
  text
    .split('\n')
    .map((l, i) => (i % every === 7 % every ? `${l} // changed` : l))
    .join('\n')

function floor(a, b) {
  const x = a.split('\n')
  const y = b.split('\n')
  let same = 0
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] === y[i]) same++
  return same
}

const cases = [
  ['2,000-line file, one line edited', source(2000), changeEvery(source(2000), 10_000), 200],
  ['2,000-line file, 200 lines edited', source(2000), changeEvery(source(2000), 10), 5],
]
for (const [what, a, b, iterations] of cases) {
  const r = await roundRobin(
    {
      diff: (n) => {
        for (let i = 0; i < n; i++) unifiedDiff('f.ts', a, b)
      },
      floor: (n) => {
        for (let i = 0; i < n; i++) floor(a, b)
      },
    },
    { iterations, rounds: 7 },
  )
  console.log(`${node} diff: ${what}: ${fmtUs(r.diff)} (${(r.diff / r.floor).toFixed(2)}x split-and-compare)`)
}

// Worst case: 20,000 lines against a rewrite sharing nothing; past the cap the middle is one block.
const a = source(20_000)
const b = Array.from({ length: 20_000 }, (_, i) => `l${(i * 7919) % 20_000}`).join('\n')
const w = await roundRobin(
  {
    diff: (n) => {
      for (let i = 0; i < n; i++) unifiedDiff('f.ts', a, b)
    },
    floor: (n) => {
      for (let i = 0; i < n; i++) floor(a, b)
    },
  },
  { iterations: 1, rounds: 3 },
)
console.log(
  `${node} diff: 20,000 lines, rewritten (over the edit cap): ${fmtUs(w.diff)} (${(w.diff / w.floor).toFixed(2)}x split-and-compare)`,
)
