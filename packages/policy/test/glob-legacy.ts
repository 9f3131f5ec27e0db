// The permission engine's glob matcher before issue 14 §4 (packages/policy/src/permissions/glob.ts at
// b71c6c3), kept verbatim as a test oracle: the one matcher must match at least what it matched.

/**
 * Path globs for rules and the protected-path table: `*` and `?` stay inside one path segment,
 * `**` spans any number of segments (zero included: `src/**` matches `src` itself), `{a,b}`
 * alternates. Dotfiles are not special (a deny rule must not miss `.env`).
 */

const SPECIAL = /[\\^$.+()|[\]]/

function segmentToRegExp(segment: string): string {
  let out = ''
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!
    if (ch === '*') out += '[^/]*'
    else if (ch === '?') out += '[^/]'
    else if (ch === '{') {
      const end = segment.indexOf('}', i)
      if (end < 0) throw new Error("unclosed '{' in the pattern")
      const options = segment.slice(i + 1, end).split(',')
      out += `(?:${options.map(segmentToRegExp).join('|')})`
      i = end
    } else if (ch === '}') throw new Error("unexpected '}' in the pattern")
    else out += SPECIAL.test(ch) ? `\\${ch}` : ch
  }
  return out
}

/** Compile a glob to an anchored RegExp over '/'-separated paths. Throws on malformed braces. */
export function legacyPolicyGlob(glob: string): RegExp {
  const segs = glob.split('/')
  let out = ''
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!
    const last = i === segs.length - 1
    if (seg === '**') {
      if (segs.length === 1) out += '.*'
      else if (i === 0) out += '(?:.*/)?'
      else if (last) out += '(?:/.*)?'
      else out += '(?:/[^/]+)*'
      continue
    }
    if (i > 0 && !(i === 1 && segs[0] === '**')) out += '/'
    out += segmentToRegExp(seg)
  }
  return new RegExp(`^${out}$`, 's')
}
