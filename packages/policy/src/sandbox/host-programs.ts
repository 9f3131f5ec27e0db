import { accessSync, constants } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { isFile, realOrUndefined } from './fs-kind.js'

/**
 * Programs the agent itself runs on the host, outside any sandbox (bubblewrap, ripgrep, unshare):
 * resolved once to an absolute path, and kept read-only by every profile where it writes, so a
 * command cannot put its own program in their place.
 */
const resolved = new Set<string>()

/** The host programs resolved so far (sorted): `planProfile` keeps them read-only. */
export function hostPrograms(): readonly string[] {
  return [...resolved].sort()
}

/** Where a program given by name is looked for first: directories only root writes to. */
const SYSTEM_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin']

/**
 * The absolute path of the program the probe checks and every command then runs under. A bare
 * name was looked up on PATH at every spawn: in danger-full-access the home directory's
 * subdirectories are writable and `~/.local/bin` or `~/bin` usually come first on PATH, so a
 * `bwrap` a command put there ran the next command with no sandbox (found by the red team). So the
 * name is resolved once, system directories first, then PATH (absolute entries only: a relative
 * one is looked up from wherever the agent spawns, a workspace directory for ripgrep); every
 * profile keeps each program resolved here read-only where it writes (`hostPrograms`). A path with a slash is taken as given (made absolute). Unfound: the name, which
 * then fails as "not installed".
 */
export function resolveProgram(program: string, path = process.env.PATH ?? ''): string {
  if (program.includes('/')) {
    const real = realOrUndefined(program) ?? resolve(program)
    resolved.add(real)
    return real
  }
  const dirs = [...SYSTEM_DIRS, ...path.split(':').filter((dir) => isAbsolute(dir))]
  for (const dir of dirs) {
    const candidate = join(dir, program)
    try {
      accessSync(candidate, constants.X_OK)
    } catch {
      continue
    }
    if (isFile(candidate)) {
      const real = realOrUndefined(candidate) ?? candidate
      resolved.add(real)
      return real
    }
  }
  return program
}
