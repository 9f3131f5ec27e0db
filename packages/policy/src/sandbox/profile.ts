import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { assertNever } from '@toolgate/core'
import { AUTO_RUN_PATHS, HOME_GIT_CONFIG, SHELL_RC_FILES } from './auto-run.js'
import { CREDENTIAL_STORES, SYSTEM_SECRET_FILES, SYSTEM_SECRET_PATTERN } from './credential-stores.js'
import { canonical, isFile, isRealDir } from './fs-kind.js'
import { gitLayout, inside } from './git-layout.js'
import { type GitStage, stageGitdir } from './git-staging.js'
import { emptyFile, privateDir } from './host-files.js'
import type { Mount } from './mounts.js'
import { type AutoRunSnapshot, snapshotAutoRun } from './new-auto-run.js'
import {
  type RepositorySnapshot,
  repositoryCandidates,
  repositoryIndex,
  snapshotRepositories,
} from './new-repositories.js'
import type { SandboxPolicy } from './types.js'
import { scanWorkspace } from './workspace-scan.js'

/**
 * The filesystem side of a sandbox profile, per preset (README "Sandbox" has the table with the
 * reason for each line). Computed on the host right before each command, from the files as they
 * are now; `bwrapArgs` turns it into bubblewrap's command line.
 *
 * Order matters (a later mount covers an earlier one): the base (`/` read-only, or writable in
 * danger-full-access), private `/tmp` and `/run`, the workspace, then what must stay read-only
 * inside it (`.git`, hooks, auto-run files, `.toolgate`), then what must be hidden (`.env*`,
 * credential stores), last, so nothing re-exposes it.
 */
export interface ProfilePlan {
  readonly mounts: readonly Mount[]
  /** Git directories staged for this command; `sync()` each after it ended. */
  readonly stages: readonly GitStage[]
  readonly network: boolean
  /** The working directory inside the sandbox. */
  readonly cwd: string
  /** Writable profiles: the repositories before the command (`blockNewRepositories` after it). */
  readonly repositories: RepositorySnapshot | undefined
  /** Writable profiles: the auto-run files before the command (`blockNewAutoRun` after it). */
  readonly autoRun: AutoRunSnapshot | undefined
}

export function planProfile(policy: SandboxPolicy, env: NodeJS.ProcessEnv = process.env): ProfilePlan {
  const startedMs = Date.now()
  const root = canonical(policy.root)
  const home = canonical(policy.home ?? homedir())
  const writable = policy.mode !== 'read-only'
  const network = policy.network ?? policy.mode === 'danger-full-access'
  const mounts: Mount[] = []

  // Base: the host filesystem, read-only (writable only in danger-full-access).
  mounts.push(
    policy.mode === 'danger-full-access'
      ? { kind: 'bind', source: '/', target: '/' }
      : { kind: 'ro-bind', source: '/', target: '/' },
  )
  // Private /tmp: the host's /tmp holds other programs' sockets and files.
  mounts.push(
    policy.tmpDir !== undefined
      ? { kind: 'bind', source: canonical(policy.tmpDir), target: '/tmp' }
      : { kind: 'tmpfs', target: '/tmp' },
  )
  mounts.push(...runtimeMounts(env, network))

  // danger-full-access: the home directory's top level stays read-only (no new dotfiles that run
  // as code or configure git: ~/.bash_profile, ~/.gitconfig), its subdirectories are writable.
  if (policy.mode === 'danger-full-access') mounts.push(...homeMounts(home))
  // The workspace (re-bound even when read-only: it may live under the private /tmp).
  mounts.push(
    writable ? { kind: 'bind', source: root, target: root } : { kind: 'ro-bind', source: root, target: root },
  )

  const stages: GitStage[] = []
  let repositories: RepositorySnapshot | undefined
  let autoRun: AutoRunSnapshot | undefined
  try {
    const scan = scanWorkspace(root)
    if (writable) {
      const layout = gitLayout(root, home, env)
      const stagingDir = policy.stagingDir ?? join(privateDir(), 'git-staging')
      switch (layout.entry.kind) {
        case 'dir':
        case 'symlink':
          break
        case 'file':
          mounts.push({ kind: 'ro-bind', source: layout.entry.path, target: layout.entry.path })
          break
        case 'absent':
          // No repository: keep the name, so `git init` cannot make one the host's git trusts.
          mounts.push({ kind: 'empty-dir', target: layout.entry.path })
          break
        default:
          assertNever(layout.entry, 'git entry')
      }
      for (const gitdir of layout.gitdirs) {
        const stage = stageGitdir(gitdir, stagingDir, root)
        stages.push(stage)
        mounts.push(...stage.mounts)
      }
      const gitTops = new Set(layout.gitdirs)
      // Repositories inside the workspace: the walk's, and every gitlink's wherever it is (the
      // host's `git status` enters them). Existing ones read-only; new ones are renamed after.
      const index = repositoryIndex(layout, home)
      const candidates = repositoryCandidates(root, scan.repositories, index)
      const top = join(root, '.git')
      const nested = new Set([
        ...scan.nestedGit,
        ...candidates.filter((c) => c !== top && basename(c) === '.git'),
      ])
      const mounted = new Set([...nested].filter((path) => existsSync(path)))
      if (layout.entry.kind === 'dir' || layout.entry.kind === 'file') mounted.add(top)
      for (const gitdir of layout.gitdirs) mounted.add(join(gitdir, 'HEAD'))
      repositories = snapshotRepositories(root, mounted, index, startedMs)
      for (const path of [...nested].sort()) mounts.push(...readOnlyIfExists(path))
      // Hooks and configuration git reads: read-only where the profile writes (the workspace; in
      // danger-full-access everywhere). A missing one is covered too (an empty directory or file on
      // the host: no hooks, no settings), or the command could create it. The top of a staged
      // gitdir needs nothing: what is created there is never written back.
      const guarded = (path: string) =>
        (policy.mode === 'danger-full-access' || inside(root, path)) && !gitTops.has(dirname(path))
      const readOnlyHome = policy.mode === 'danger-full-access' ? home : undefined
      for (const hooks of layout.hooks) {
        if (!guarded(hooks)) continue
        if (existsSync(hooks)) mounts.push(readOnly(hooks))
        else if (creatableInProfile(hooks, readOnlyHome)) mounts.push({ kind: 'empty-dir', target: hooks })
      }
      for (const file of layout.configFiles) {
        if (!guarded(file)) continue
        if (existsSync(file)) mounts.push(readOnly(file))
        else if (creatableInProfile(file, readOnlyHome)) {
          mounts.push({ kind: 'empty-file', source: emptyFile(), target: file })
        }
      }
      // Auto-run files: existing ones read-only (at any depth the walk reaches); missing ones are
      // not covered (an empty file changes what those tools do): renamed after the command.
      const autoRunNow = new Set([...AUTO_RUN_PATHS.map((auto) => join(root, auto.path)), ...scan.autoRun])
      for (const path of [...autoRunNow].sort()) mounts.push(...readOnlyIfExists(path))
      for (const rc of SHELL_RC_FILES) mounts.push(...readOnlyIfExists(join(root, rc)))
      const toolgate = join(root, '.toolgate')
      mounts.push(
        ...(existsSync(toolgate)
          ? readOnlyIfExists(toolgate)
          : [{ kind: 'empty-dir', target: toolgate } as const]),
      )
      for (const p of policy.protectedPaths ?? []) mounts.push(...readOnlyIfExists(absolute(p, root, home)))
      if (policy.mode === 'danger-full-access') {
        // Below the read-only top of the home directory: the git configuration directory.
        for (const config of HOME_GIT_CONFIG) {
          const path = join(home, config.path)
          if (existsSync(path)) mounts.push(readOnly(path))
          else if (config.kind === 'dir' && isRealDir(dirname(path)))
            mounts.push({ kind: 'empty-dir', target: path })
        }
      }
    }
    if (writable) {
      autoRun = snapshotAutoRun(
        root,
        scan.autoRun,
        mounts.map((m) => m.target),
        startedMs,
      )
    }
    if (policy.exposeEnvFiles !== true) {
      for (const file of scan.envFiles) mounts.push(...hideIfExists(file))
    }
    for (const store of CREDENTIAL_STORES) mounts.push(...hideIfExists(join(home, store.path)))
    for (const p of policy.credentialStores ?? []) mounts.push(...hideIfExists(absolute(p, root, home)))
    for (const file of SYSTEM_SECRET_FILES) mounts.push(...hideIfExists(file))
    for (const file of systemSecretKeys()) mounts.push(...hideIfExists(file))
  } catch (error) {
    // A stage already made must not be left behind.
    for (const stage of stages) stage.sync()
    throw error
  }
  const cwd = policy.cwd === undefined ? root : resolve(root, policy.cwd)
  return { mounts, stages, network, cwd, repositories, autoRun }
}

/**
 * /run, /var/run, $XDG_RUNTIME_DIR and the SSH agent socket hold the sockets of host services
 * (the container daemon, the session bus, agents): an empty tmpfs over them. With the network on,
 * /etc/resolv.conf may point into /run (systemd-resolved): that one file is bound back read-only.
 */
function runtimeMounts(env: NodeJS.ProcessEnv, network: boolean): Mount[] {
  const mounts: Mount[] = [{ kind: 'tmpfs', target: '/run' }]
  const hidden = ['/run', '/tmp']
  if (isRealDir('/var/run')) {
    mounts.push({ kind: 'tmpfs', target: '/var/run' })
    hidden.push('/var/run')
  }
  const runtime = env.XDG_RUNTIME_DIR
  if (
    runtime !== undefined &&
    isAbsolute(runtime) &&
    isRealDir(runtime) &&
    !hidden.some((h) => inside(h, runtime))
  ) {
    mounts.push({ kind: 'empty-dir', target: runtime })
    hidden.push(runtime)
  }
  const agent = env.SSH_AUTH_SOCK
  if (agent !== undefined && isAbsolute(agent) && !hidden.some((h) => inside(h, agent))) {
    mounts.push(...hideIfExists(agent))
  }
  if (network) {
    const resolv = canonical('/etc/resolv.conf')
    if (resolv !== '/etc/resolv.conf' && hidden.some((h) => inside(h, resolv)) && isFile(resolv)) {
      mounts.push({ kind: 'ro-bind', source: resolv, target: resolv })
    }
  }
  return mounts
}

/**
 * Could a command in the profile create this missing path? Only if its nearest existing ancestor
 * is writable for us (the sandbox has our uid and no capabilities) and is not the read-only top of
 * the home directory (danger-full-access). Then the path needs a mount point; else nothing.
 */
function creatableInProfile(path: string, readOnlyHome: string | undefined): boolean {
  let dir = dirname(path)
  while (!existsSync(dir)) {
    const up = dirname(dir)
    if (up === dir) return false
    dir = up
  }
  if (dir === readOnlyHome) return false
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

function readOnly(path: string): Mount {
  return { kind: 'ro-bind', source: path, target: path }
}

function readOnlyIfExists(path: string): Mount[] {
  return existsSync(path) ? [readOnly(path)] : []
}

/** Entries at the top of the home directory bound writable one by one; more: all read-only. */
const MAX_HOME_ENTRIES = 1024

/** danger-full-access: the home directory's top level read-only, its real subdirectories writable. */
function homeMounts(home: string): Mount[] {
  if (home === '/' || !isRealDir(home)) return []
  const mounts: Mount[] = [readOnly(home)]
  let names: string[]
  try {
    names = readdirSync(home).sort()
  } catch {
    return mounts
  }
  if (names.length > MAX_HOME_ENTRIES) return mounts
  for (const name of names) {
    const path = join(home, name)
    if (isRealDir(path)) mounts.push({ kind: 'bind', source: path, target: path })
  }
  return mounts
}

/** An empty read-only mount over an existing file or directory (any other type: an empty file). */
function hideIfExists(path: string): Mount[] {
  try {
    return statSync(path).isDirectory()
      ? [{ kind: 'empty-dir', target: path }]
      : [{ kind: 'empty-file', source: emptyFile(), target: path }]
  } catch {
    return [] // missing, or a dangling link: nothing to read there
  }
}

function systemSecretKeys(): string[] {
  try {
    return readdirSync(SYSTEM_SECRET_PATTERN.dir)
      .filter((n) => SYSTEM_SECRET_PATTERN.name.test(n))
      .sort()
      .map((n) => join(SYSTEM_SECRET_PATTERN.dir, n))
  } catch {
    return []
  }
}

function absolute(path: string, root: string, home: string): string {
  if (path === '~') return home
  if (path.startsWith('~/')) return join(home, path.slice(2))
  return isAbsolute(path) ? resolve(path) : resolve(root, path)
}
