// UTF-8 byte accounting without allocating (no TextEncoder round trip per chunk). The counts match
// `new TextEncoder().encode(s).length` exactly, lone surrogates included (TextEncoder writes them as
// U+FFFD, 3 bytes) — test/jobs-buffer.test.ts checks that equivalence with fast-check.

/** Bytes of one UTF-16 unit at `i` in `s`, and how many units it spans (2 for a surrogate pair). */
function unitAt(s: string, i: number): { bytes: number; units: number } {
  const c = s.charCodeAt(i)
  if (c < 0x80) return { bytes: 1, units: 1 }
  if (c < 0x800) return { bytes: 2, units: 1 }
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1)
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 }
  }
  return { bytes: 3, units: 1 }
}

/** The UTF-8 length of `s` in bytes. */
export function utf8Length(s: string): number {
  const n = s.length
  let bytes = n
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) continue // ASCII: already counted, the common case for command output
    if (c < 0x800) {
      bytes += 1
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 2 // a pair: 2 units, 4 bytes
        i++
      } else {
        bytes += 2
      }
    } else {
      bytes += 2 // 3 bytes, lone surrogates included (written as U+FFFD)
    }
  }
  return bytes
}

/**
 * Drop at least `bytes` UTF-8 bytes from the start of `s`, on a code point boundary (a character is
 * never split, so up to 3 bytes more than asked may go). Returns the rest and the bytes really dropped.
 */
export function dropUtf8Prefix(s: string, bytes: number): { rest: string; dropped: number } {
  let dropped = 0
  let i = 0
  while (i < s.length && dropped < bytes) {
    const u = unitAt(s, i)
    dropped += u.bytes
    i += u.units
  }
  return { rest: s.slice(i), dropped }
}
