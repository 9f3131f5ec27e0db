// A reference glob matcher written straight from the syntax table (packages/policy/README.md,
// "Glob syntax"), for property tests only: expand braces, split pattern and path into segments,
// let a `**` segment eat any number of path segments, and match each name by backtracking. It is
// exponential and ASCII-only on purpose: simple enough to check by reading, used on tiny inputs.

/**
 * Expand `{a,b}` groups (nested), honouring `\` escapes. A NUL marks where an alternative begins
 * and ends, so `*{*,a}` gives `*\0*\0`, not the globstar `**` (stars only make one when written
 * together).
 */
function expand(pattern: string): string[] {
  let depth = 0
  let open = -1
  const commas: number[] = []
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      i++
      continue
    }
    if (c === '[') {
      const end = classEnd(pattern, i)
      if (end > 0) {
        i = end
        continue
      }
    }
    if (c === '{') {
      if (depth === 0) open = i
      depth++
    } else if (c === ',' && depth === 1) commas.push(i)
    else if (c === '}' && depth > 0) {
      depth--
      if (depth === 0) {
        const bounds = [open, ...commas, i]
        const head = pattern.slice(0, open)
        const tail = pattern.slice(i + 1)
        const out: string[] = []
        for (let k = 0; k + 1 < bounds.length; k++) {
          for (const alt of expand(pattern.slice(bounds[k]! + 1, bounds[k + 1]!)))
            out.push(...expand(`${head}\0${alt}\0${tail}`))
        }
        return out
      }
    }
  }
  return [pattern]
}

/** Index of the `]` closing the class opened at `start`, or -1 (then `[` is a literal). */
function classEnd(p: string, start: number): number {
  let i = start + 1
  if (p[i] === '!' || p[i] === '^') i++
  if (p[i] === ']') i++
  for (; i < p.length; i++) if (p[i] === ']') return i
  return -1
}

/** Split at `/` that are not escaped. */
function segments(pattern: string): string[] {
  const out: string[] = []
  let cur = ''
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\' && i + 1 < pattern.length) {
      cur += pattern.slice(i, i + 2)
      i++
    } else if (pattern[i] === '/') {
      out.push(cur)
      cur = ''
    } else cur += pattern[i]
  }
  out.push(cur)
  return out
}

function nameMatch(p: string, name: string): boolean {
  if (p === '') return name === ''
  const c = p[0]!
  if (c === '\0') return nameMatch(p.slice(1), name)
  if (c === '*') {
    let k = 1
    while (p[k] === '*') k++
    for (let j = 0; j <= name.length; j++) if (nameMatch(p.slice(k), name.slice(j))) return true
    return false
  }
  if (name === '') return false
  if (c === '?') return nameMatch(p.slice(1), name.slice(1))
  if (c === '\\' && p.length > 1) return name[0] === p[1] && nameMatch(p.slice(2), name.slice(1))
  if (c === '[') {
    const end = classEnd(p, 0)
    if (end > 0) {
      let body = p.slice(1, end)
      const negated = body[0] === '!' || body[0] === '^'
      if (negated) body = body.slice(1)
      let inClass = false
      for (let i = 0; i < body.length; i++) {
        if (body[i + 1] === '-' && i + 2 < body.length) {
          if (name[0]! >= body[i]! && name[0]! <= body[i + 2]!) inClass = true
          i += 2
        } else if (body[i] === name[0]) inClass = true
      }
      return inClass !== negated && nameMatch(p.slice(end + 1), name.slice(1))
    }
  }
  return name[0] === c && nameMatch(p.slice(1), name.slice(1))
}

function segmentsMatch(ps: readonly string[], xs: readonly string[]): boolean {
  if (ps.length === 0) return xs.length === 0
  const [p, ...rest] = ps
  if (p!.includes('**') && p!.replaceAll('\0', '') === '**') {
    for (let k = 0; k <= xs.length; k++) if (segmentsMatch(rest, xs.slice(k))) return true
    return false
  }
  return xs.length > 0 && nameMatch(p!, xs[0]!) && segmentsMatch(rest, xs.slice(1))
}

export function referenceMatch(pattern: string, path: string): boolean {
  const xs = path.split('/')
  return expand(pattern).some((p) => segmentsMatch(segments(p), xs))
}
