// "Did you mean": the closest visible names by edit distance (case-insensitive), at most two.

export function closestNames(name: string, candidates: readonly string[], limit = 2): string[] {
  const target = name.toLowerCase()
  const scored: [number, string][] = []
  for (const candidate of candidates) {
    const distance = editDistance(target, candidate.toLowerCase())
    const threshold = Math.max(2, Math.floor(Math.max(target.length, candidate.length) / 3))
    const contains = candidate.toLowerCase().includes(target) || target.includes(candidate.toLowerCase())
    if (distance <= threshold || (contains && target.length >= 3)) scored.push([distance, candidate])
  }
  scored.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1))
  return scored.slice(0, limit).map(([, c]) => c)
}

function editDistance(a: string, b: string): number {
  if (a === b) return 0
  if (a.length > 64 || b.length > 64) return Math.max(a.length, b.length)
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length]!
}
