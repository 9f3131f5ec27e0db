import { isAbsolute, relative, sep } from 'node:path'
import { checkProtected, type ProtectedPath } from '@toolgate/policy'

// The rules an opened file's real path must pass before a byte is read or written (issue 13 §3).
// The permission engine judged the call by its arguments (the path as written) and by the real
// path it resolved at that moment; a link flipped afterwards changes only the second. So the tool
// checks what it actually opened, against what holds whatever was resolved earlier:
//
//   1. protected paths: a `deny` entry matching the opened file refuses; an `ask` entry refuses
//      unless the path as written matches an `ask` entry too (then the engine asked a person for
//      this very name; a path as written cannot change between check and use);
//   2. the workspace boundary: a path written inside the workspace must open a file inside it.
//      Paths written outside it are judged by the engine by name (a sandboxed command cannot
//      change links outside the workspace); only rule 1 applies to them.
//
// Pure: no file system access, so it is tested on its own and usable for directories too.

export type Access = 'read' | 'write'

export interface Protection {
  readonly table: readonly ProtectedPath[]
  readonly homes: readonly string[]
}

export type TargetRefusal =
  | { readonly kind: 'outside-workspace' }
  | {
      readonly kind: 'protected'
      readonly entry: ProtectedPath
      /** Whether the path as written is itself protected (else only a link led there). */
      readonly named: boolean
    }

export function isInside(path: string, root: string): boolean {
  if (path === root) return true
  const rel = relative(root, path)
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

export function insideAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isInside(path, root))
}

/**
 * Judge an opened file: `lexical` is the path as the call wrote it (absolute, normalized), `real`
 * the real path of the descriptor, `roots` the workspace root as written and as resolved.
 */
export function judgeTarget(
  roots: readonly string[],
  protection: Protection,
  lexical: string,
  real: string,
  access: Access,
): TargetRefusal | undefined {
  const hit = checkProtected(protection.table, { lexical, real }, access, protection.homes)
  if (hit !== undefined) {
    const named = checkProtected(protection.table, { lexical, real: lexical }, access, protection.homes)
    if (hit.entry.action === 'deny' || named?.entry.action !== 'ask') {
      return { kind: 'protected', entry: hit.entry, named: named !== undefined }
    }
  }
  if (insideAny(lexical, roots) && !insideAny(real, roots)) return { kind: 'outside-workspace' }
  return undefined
}
