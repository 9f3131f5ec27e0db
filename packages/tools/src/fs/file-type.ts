import type { BigIntStats, Stats } from 'node:fs'

// What kind of file a name stands for, from lstat or fstat. Only regular files are opened for
// content: a FIFO blocks its reader until a writer comes (forever, holding one of libuv's four
// pool threads), a device can be endless (/dev/zero) or have side effects, a socket cannot be read.

export type FileKind =
  | 'file'
  | 'directory'
  | 'symlink'
  | 'fifo'
  | 'socket'
  | 'character-device'
  | 'block-device'
  | 'unknown'

export function kindOf(st: Stats | BigIntStats): FileKind {
  if (st.isFile()) return 'file'
  if (st.isDirectory()) return 'directory'
  if (st.isSymbolicLink()) return 'symlink'
  if (st.isFIFO()) return 'fifo'
  if (st.isSocket()) return 'socket'
  if (st.isCharacterDevice()) return 'character-device'
  if (st.isBlockDevice()) return 'block-device'
  return 'unknown'
}

/** The kind as the model reads it ("`x` is a named pipe (FIFO), not a regular file"). */
export const KIND_TEXT = {
  file: 'a regular file',
  directory: 'a directory',
  symlink: 'a symbolic link',
  fifo: 'a named pipe (FIFO)',
  socket: 'a socket',
  'character-device': 'a character device',
  'block-device': 'a block device',
  unknown: 'a special file',
} as const satisfies Record<FileKind, string>
