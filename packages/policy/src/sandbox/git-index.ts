import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

/**
 * The gitlink (submodule) paths recorded in a git index file, read on the host without running
 * git. `git status`, `diff` and `checkout --recurse-submodules` enter every populated gitlink and
 * read ITS configuration (`core.fsmonitor` runs as code), so the sandbox must know where they are
 * (issue 11 §1, "hooks elsewhere"): a `.git` there is as sensitive as the top one.
 *
 * Format (gitformat-index(5)): "DIRC", version 2-4, entry count; each entry 40 bytes of stat data
 * (mode at offset 24), the object id (20 bytes, 32 for SHA-256), 16-bit flags, 16 more bits of
 * extended flags when version ≥ 3 and bit 0x4000 is set, then the path: NUL-terminated and padded
 * to a multiple of 8 (v2, v3), or prefix-compressed and unpadded (v4).
 *
 * Returns undefined when the file is not an index this reader understands (the caller fails
 * closed), an empty list when there is no index.
 */
export function indexGitlinks(path: string, hashBytes: 20 | 32): readonly string[] | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return []
  }
  let data: Buffer
  try {
    const size = fstatSync(fd).size
    if (size > MAX_INDEX_BYTES) return undefined
    data = Buffer.alloc(size)
    let off = 0
    while (off < size) {
      const n = readSync(fd, data, off, size - off, off)
      if (n === 0) break
      off += n
    }
    data = data.subarray(0, off)
  } finally {
    closeSync(fd)
  }
  return parse(data, hashBytes)
}

/** An index larger than this is not read (fail closed: the caller treats it as unknown). */
const MAX_INDEX_BYTES = 512 * 1024 * 1024
const GITLINK = 0o160000
const TYPE_MASK = 0o170000

function parse(data: Buffer, hashBytes: number): string[] | undefined {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') return undefined
  const version = data.readUInt32BE(4)
  if (version < 2 || version > 4) return undefined
  const count = data.readUInt32BE(8)
  const found: string[] = []
  let off = 12
  let previous: Buffer = Buffer.alloc(0)
  for (let i = 0; i < count; i++) {
    const start = off
    const fixed = 40 + hashBytes + 2
    if (off + fixed > data.length) return undefined
    const mode = data.readUInt32BE(off + 24)
    const flags = data.readUInt16BE(off + 40 + hashBytes)
    off += fixed
    if (flags & 0x4000) {
      if (version < 3) return undefined
      off += 2
    }
    let name: Buffer
    if (version === 4) {
      // Varint (git's offset encoding): bytes to strip from the end of the previous path.
      let c = data[off++]
      if (c === undefined) return undefined
      let strip = c & 127
      while (c & 128) {
        c = data[off++]
        if (c === undefined || strip > previous.length) return undefined
        strip = ((strip + 1) << 7) | (c & 127)
      }
      if (strip > previous.length) return undefined
      const end = data.indexOf(0, off)
      if (end < 0) return undefined
      name = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(off, end)])
      off = end + 1
    } else {
      const end = data.indexOf(0, off)
      if (end < 0) return undefined
      name = data.subarray(off, end)
      // Entry length padded with 1-8 NULs to a multiple of 8.
      off = start + ((end - start + 8) & ~7)
    }
    // The flags hold the path's length (0xFFF: that long or longer): a check that the entry was
    // read with the right object id size.
    const length = flags & 0xfff
    if (length < 0xfff ? name.length !== length : name.length < 0xfff) return undefined
    previous = name
    if ((mode & TYPE_MASK) === GITLINK) found.push(name.toString('utf8'))
  }
  return found
}
