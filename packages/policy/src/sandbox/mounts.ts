import { assertNever } from '@toolgate/core'
/** One mount of a sandbox profile, in bubblewrap's order (a later mount covers an earlier one). */
export type Mount =
  /** The host path, writable. */
  | { readonly kind: 'bind'; readonly source: string; readonly target: string }
  /** The host path, read-only. */
  | { readonly kind: 'ro-bind'; readonly source: string; readonly target: string }
  /** Hide a directory: an empty read-only tmpfs over it. */
  | { readonly kind: 'empty-dir'; readonly target: string }
  /** Hide a file: an empty read-only file (`source`, see `emptyFile`) over it. */
  | { readonly kind: 'empty-file'; readonly source: string; readonly target: string }
  /** A private, writable, empty directory (a fresh `/tmp`, `/run`). */
  | { readonly kind: 'tmpfs'; readonly target: string }

export function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case 'bind':
      return ['--bind', mount.source, mount.target]
    case 'ro-bind':
      return ['--ro-bind', mount.source, mount.target]
    case 'empty-dir':
      return ['--tmpfs', mount.target, '--remount-ro', mount.target]
    case 'empty-file':
      return ['--ro-bind', mount.source, mount.target]
    case 'tmpfs':
      return ['--tmpfs', mount.target]
    default:
      return assertNever(mount)
  }
}
