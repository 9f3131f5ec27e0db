import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { isDirectory, isRealFile, realOrUndefined } from './fs-kind.js'
import { configPath, readGitConfig } from './git-config.js'

/**
 * Where the workspace's repository lives and which of its files run as code (issue 11 §1, §6),
 * read on the host from the files themselves — git is never run with the workspace's config.
 *
 * - `entry`: what `<root>/.git` is: a directory, a gitdir file (worktrees, submodules), a symlink,
 *   or absent — or a directory without HEAD, which git does not use either (then the sandbox
 *   still covers the name, so `git init` inside cannot create a repository the host's git would
 *   trust later).
 * - `gitdirs`: git directories inside the workspace whose state files git updates (the root one,
 *   the target of a `.git` file when it is inside the workspace, submodule gitdirs under
 *   `modules/`), outermost first.
 * - `hooks`: every `core.hooksPath` any configuration git reads names (system, global, repository,
 *   their includes), resolved as git does (relative to the working tree's top).
 * - `configFiles`: every configuration file git may read (includes too, existing or not).
 */
export interface GitLayout {
  readonly entry:
    | { readonly kind: 'dir'; readonly path: string }
    | { readonly kind: 'file'; readonly path: string; readonly gitdir: string | undefined }
    | { readonly kind: 'symlink'; readonly path: string }
    | { readonly kind: 'absent'; readonly path: string }
  readonly gitdirs: readonly string[]
  readonly hooks: readonly string[]
  readonly configFiles: readonly string[]
}

/** Submodule gitdirs searched under `modules/` (names may hold slashes; nesting is allowed). */
const MAX_SUBMODULE_GITDIRS = 64
const MAX_SUBMODULE_DEPTH = 8

export function gitLayout(root: string, home: string, env: NodeJS.ProcessEnv = process.env): GitLayout {
  const dotGit = join(root, '.git')
  let entry: GitLayout['entry']
  const gitdirs: string[] = []
  let kind: 'dir' | 'file' | 'symlink' | 'absent'
  try {
    const st = lstatSync(dotGit)
    kind = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'file'
  } catch {
    kind = 'absent'
  }
  if (kind === 'dir' && !isRealFile(join(dotGit, 'HEAD'))) {
    // Not a repository (git itself looks for HEAD, objects/, refs/): an empty directory such as the
    // sandbox's own cover of a missing `.git`. Covered again, never staged.
    entry = { kind: 'absent', path: dotGit }
  } else if (kind === 'dir') {
    entry = { kind, path: dotGit }
    gitdirs.push(dotGit)
  } else if (kind === 'file') {
    const gitdir = readGitfile(dotGit, root)
    entry = { kind, path: dotGit, gitdir }
    if (gitdir !== undefined && inside(root, gitdir) && isDirectory(gitdir)) gitdirs.push(gitdir)
  } else if (kind === 'symlink') {
    entry = { kind, path: dotGit }
    const target = realOrUndefined(dotGit)
    if (target !== undefined && inside(root, target) && isDirectory(target)) gitdirs.push(target)
  } else {
    entry = { kind, path: dotGit }
  }
  for (const gitdir of [...gitdirs]) gitdirs.push(...submoduleGitdirs(gitdir))

  // Configuration git reads, in git's order: system, global (XDG, then ~/.gitconfig), repository.
  const configs: string[] = []
  if (env.GIT_CONFIG_NOSYSTEM === undefined) configs.push(env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig')
  if (env.GIT_CONFIG_GLOBAL !== undefined) configs.push(env.GIT_CONFIG_GLOBAL)
  else {
    configs.push(join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'git', 'config'))
    configs.push(join(home, '.gitconfig'))
  }
  const repoGitdir =
    entry.kind === 'file'
      ? entry.gitdir
      : entry.kind === 'absent'
        ? undefined
        : (realOrUndefined(dotGit) ?? dotGit)
  if (repoGitdir !== undefined) {
    configs.push(join(repoGitdir, 'config'), join(repoGitdir, 'config.worktree'))
    const common = commondir(repoGitdir)
    if (common !== undefined) configs.push(join(common, 'config'))
  }
  const hooks = new Set<string>()
  const files = new Set<string>()
  for (const config of configs) {
    const read = readGitConfig(config, home)
    for (const f of read.files) files.add(f)
    for (const e of read.entries) {
      if (e.key !== 'core.hookspath') continue
      // Relative hooksPath is relative to where hooks run: the working tree's top (githooks(5)).
      const path = configPath(e.value, root, home)
      if (path !== undefined) hooks.add(path)
    }
  }
  return { entry, gitdirs, hooks: [...hooks], configFiles: [...files] }
}

/** The target of a `gitdir: <path>` file, absolute (relative to the file's directory). */
export function readGitfile(file: string, root: string): string | undefined {
  try {
    const text = readFileSync(file).subarray(0, 4096).toString('utf8')
    const match = /^gitdir: (.+?)\r?\n?$/.exec(text.split('\n')[0] ?? '')
    if (match === null) return undefined
    const target = match[1]!
    return realOrUndefined(isAbsolute(target) ? target : resolve(root, target))
  } catch {
    return undefined
  }
}

function commondir(gitdir: string): string | undefined {
  try {
    const text = readFileSync(join(gitdir, 'commondir'), 'utf8').trim()
    if (text === '') return undefined
    return realOrUndefined(isAbsolute(text) ? text : resolve(gitdir, text))
  } catch {
    return undefined
  }
}

/** Git directories under `<gitdir>/modules` (a directory holding HEAD), bounded. */
function submoduleGitdirs(gitdir: string): string[] {
  const found: string[] = []
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_SUBMODULE_DEPTH || found.length >= MAX_SUBMODULE_GITDIRS) return
    let names: string[]
    try {
      names = readdirSync(dir).sort()
    } catch {
      return
    }
    for (const name of names) {
      const path = join(dir, name)
      let st: ReturnType<typeof lstatSync>
      try {
        st = lstatSync(path)
      } catch {
        continue
      }
      if (!st.isDirectory()) continue
      if (isRealFile(join(path, 'HEAD'))) {
        found.push(path)
        if (found.length >= MAX_SUBMODULE_GITDIRS) return
        walk(join(path, 'modules'), depth + 1)
      } else {
        walk(path, depth + 1)
      }
    }
  }
  walk(join(gitdir, 'modules'), 0)
  return found
}

export function inside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}
