// Shared helpers for the benchmarks: medians over repeated runs, and one-line reports.
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Run `fn(iterations)` `runs` times (after one warm-up) and return the median ns per iteration. */
export async function nsPerOp(fn, { iterations = 20_000, runs = 7 } = {}) {
  await fn(Math.min(iterations, 2_000))
  const samples = []
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint()
    await fn(iterations)
    samples.push(Number(process.hrtime.bigint() - t0) / iterations)
  }
  return median(samples)
}

export function fmtUs(ns) {
  return `${(ns / 1000).toFixed(2)} us`
}

/** The Node version every line carries: targets are read on Node 24 (issue 14 §1), lines from two runs sit side by side. */
export const NODE = `node ${process.versions.node}`

/** One measurement line, tagged with the Node version it was measured on. */
export function report(...parts) {
  console.log(`${parts.join(' ')} [${NODE}]`)
}

export function heapAfterGc() {
  if (globalThis.gc) {
    globalThis.gc()
    globalThis.gc()
  }
  return process.memoryUsage().heapUsed
}

/**
 * Measure several variants round-robin (each round runs every variant once), so load drift on a
 * shared machine hits all of them alike; returns the median ns per iteration of each.
 */
export async function roundRobin(variants, options = {}) {
  return (await roundRobinSamples(variants, options)).medians
}

/** roundRobin, also returning every round's sample of each variant (for paired ratios). */
export async function roundRobinSamples(variants, { iterations = 20_000, rounds = 9 } = {}) {
  for (const fn of Object.values(variants)) await fn(Math.min(iterations, 5_000))
  const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
  const entries = Object.entries(variants)
  for (let r = 0; r < rounds; r++) {
    // The order rotates each round: a variant's garbage is often collected on the time of the
    // one after it, so each variant follows each other one equally often.
    for (let k = 0; k < entries.length; k++) {
      const [name, fn] = entries[(r + k) % entries.length]
      const t0 = process.hrtime.bigint()
      await fn(iterations)
      samples[name].push(Number(process.hrtime.bigint() - t0) / iterations)
    }
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]))
  return { medians, samples }
}

/**
 * The median over rounds of a's time divided by b's time in the same round. On a shared machine
 * the load moves between rounds more than between two variants of one round, so a paired ratio
 * is steadier than the ratio of two medians taken from different rounds.
 */
export function pairedRatio(samples, a, b) {
  return median(samples[a].map((v, i) => v / samples[b][i]))
}
